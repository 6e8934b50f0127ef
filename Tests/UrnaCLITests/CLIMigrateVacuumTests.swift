import Foundation
import Testing

/// `urna migrate --vacuum`: VACUUM after the upgrade, sizes reported in text and JSON.
@Suite("urna migrate --vacuum")
struct CLIMigrateVacuumTests {
    static func peopleFile(_ dir: URL, name: String) throws -> String {
        let db = dir.appendingPathComponent(name).path
        let i = try CLIRunner.run(["init", "--db", db, "--family", "people", "--version", "0"])
        guard i.code == 0 else { throw CLIFailure("init: \(i.stderr)") }
        _ = try CLIAppFamilyTests.sqlite(
            db,
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO Person (firstName, lastName, age) SELECT 'First ' || i, printf('%.40c', 'L'), i % 90 FROM n;
            """)
        return db
    }

    @Test("--vacuum shrinks the upgraded file and says by how much")
    func vacuumReportsSizes() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = try Self.peopleFile(dir, name: "plain.sqlite")
        let db = try Self.peopleFile(dir, name: "vacuumed.sqlite")
        let preview = try CLIRunner.run(["migrate", "--db", db, "--dry-run", "--vacuum"])
        #expect(preview.code == 0, "\(preview.stderr)")
        #expect(preview.stdout.contains("VACUUM: ") && preview.stdout.contains("(on the copy)"), "\(preview.stdout)")
        #expect(try CLIAppFamilyTests.sqlite(db, "PRAGMA user_version") == "0", "the dry run changed nothing")

        #expect(try CLIRunner.run(["migrate", "--db", plain, "--no-backup"]).code == 0)
        let r = try CLIRunner.run(["migrate", "--db", db, "--no-backup", "--vacuum", "--json"])
        #expect(r.code == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let vacuum = try #require(json?["vacuum"] as? [String: Any], "\(r.stdout)")
        let before = try #require((vacuum["bytesBefore"] as? NSNumber)?.int64Value)
        let after = try #require((vacuum["bytesAfter"] as? NSNumber)?.int64Value)
        #expect(after < before, "\(r.stdout)")
        func size(_ p: String) -> Int64 {
            ((try? FileManager.default.attributesOfItem(atPath: p))?[.size] as? NSNumber)?.int64Value ?? 0
        }
        #expect(size(db) < size(plain), "vacuumed \(size(db)) bytes, not vacuumed \(size(plain))")
        #expect(try CLIAppFamilyTests.sqlite(db, "PRAGMA freelist_count") == "0")
        #expect(
            try CLIAppFamilyTests.sqlite(db, "SELECT fullName FROM Person WHERE _id = 7")
                == "First 7 LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL")
    }
}
