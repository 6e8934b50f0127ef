import Foundation
import Testing

/// An app's refusals of a damaged file named `urna restore` and "Urna's table": its users have the app, maybe not
/// urna. The app's binary is run as its own process, so its tool name ("school-app") is its own, whatever the
/// process-wide defaults of other tests.
@Suite struct CLISchoolAppRestoreHintTests {
    static func initialized(_ dir: URL) throws -> String {
        let db = dir.appendingPathComponent("s.sqlite").path
        let i = try CLISchoolAppTests.run(["init", "--db", db, "--family", "school"])
        #expect(i.code == 0, "\(i.stderr)")
        return db
    }

    @Test("A table replaced by a view: status names the app's restore and no Urna")
    func plantedView() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.initialized(dir)
        _ = try CLISchoolAppTests.sqlite(
            db, "ALTER TABLE Assessment RENAME TO old_t; CREATE VIEW Assessment AS SELECT * FROM old_t;")
        let r = try CLISchoolAppTests.run(["status", "--db", db])
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.stderr.contains("Assessment is a view, not school-app's table of school"), "\(r.stderr)")
        #expect(r.stderr.contains("(school-app restore --db \(db))"), "\(r.stderr)")
        #expect(!r.stderr.contains("urna restore"), "\(r.stderr)")
        #expect(!r.stderr.contains("Urna"), "\(r.stderr)")
    }

    @Test("A descriptor that does not decode: status and migrate name the app's restore")
    func damagedDescriptor() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.initialized(dir)
        _ = try CLISchoolAppTests.sqlite(db, "UPDATE _urna_schema SET descriptor = 'not json'")
        for command in ["status", "migrate"] {
            let r = try CLISchoolAppTests.run([command, "--db", db])
            #expect(r.code == 65, "\(command): \(r.stderr)")
            #expect(r.stderr.contains("cannot be used"), "\(command): \(r.stderr)")
            #expect(r.stderr.contains("school-app restore --db \(db)"), "\(command): \(r.stderr)")
            #expect(!r.stderr.contains("urna restore"), "\(command): \(r.stderr)")
        }
    }
}
