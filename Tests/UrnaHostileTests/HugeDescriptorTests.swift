import Foundation
import Testing

/// A `_urna_schema` descriptor made huge (an extra key holding megabytes): every command decoded all of it (200 MB:
/// 20 s and 420 MB of memory for `status`; SQLite lets a value reach 1 GB). Over 16 Mi characters it is refused as
/// a damaged descriptor before it is read.
@Suite struct HugeDescriptorTests {
    @Test("A descriptor over 16 Mi characters is named as damaged (exit 65) by status, query and migrate")
    func hugeDescriptorRefused() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(
            path, "UPDATE _urna_schema SET descriptor = json_set(descriptor, '$.x', printf('%.*c', 17000000, 'A'))")
        for args in [["status", "--db", db], ["query", "--db", db, "Party", "--count"], ["migrate", "--db", db]] {
            let r = try Hostile.urna(args, in: dir)
            #expect(r.code == 65, "\(args): \(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("over the 16777216 a descriptor may have"), "\(args): \(r.stderr)")
            #expect(r.stderr.contains("restore the file from a backup"), "\(r.stderr)")
        }
        // Back to its own size, it is read as before.
        try Hostile.sql(path, "UPDATE _urna_schema SET descriptor = json_remove(descriptor, '$.x')")
        let r = try Hostile.urna(["query", "--db", db, "Party", "--count"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout == "35\n")
    }
}
