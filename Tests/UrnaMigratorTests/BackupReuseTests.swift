import Foundation
import Testing
@testable import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// The default backup name holds one backup per source version: a rerun's equal copy reuses it, a copy of other
/// data never replaces it (the earlier one is kept under a numbered name).
@Suite struct BackupReuseTests {
    @Test func anEqualBackupIsReusedAndAnotherOneKeptAside() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let backup = FileCopy.defaultBackupPath(for: path, version: 0)
        #expect(try FileCopy.backup(sourcePath: path, to: backup, replacing: true) == nil)
        let first = try Data(contentsOf: URL(fileURLWithPath: backup))
        #expect(try FileCopy.backup(sourcePath: path, to: backup, replacing: true) == nil, "nothing changed: reused")
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == first)
        #expect(!FileManager.default.fileExists(atPath: dir.file("people.sqlite.v0.1.bak")))

        let store = try Store(path: path, schema: People.v0)
        try store.write { try store.create("Person", value: ["firstName": "New", "lastName": "One", "age": 2]) }
        let aside = try FileCopy.backup(sourcePath: path, to: backup, replacing: true)
        #expect(aside == dir.file("people.sqlite.v0.1.bak"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("people.sqlite.v0.1.bak"))) == first)
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) != first)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(names.isEmpty, "\(names)")
    }
}
