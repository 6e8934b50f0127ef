import Foundation
import Testing
import UrnaStore

@testable import UrnaCommandLine

/// The hint that names an `urna.sqlite` beside an app's missing default file reads the family only from a table:
/// a review found a view planted under `_urna_schema` run by it (a recursive one hung `hotel-app status`).
@Suite struct FormerDefaultDatabaseTests {
    @Test func aViewUnderTheDescriptorsNameIsNotRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-former-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let viewFile = dir.appendingPathComponent("view.sqlite").path
        let c = try Connection(path: viewFile)
        try c.execute("CREATE VIEW _urna_schema AS SELECT 1 AS id, 'hotel' AS family")
        #expect(FormerDefaultDatabase.recordedFamily(viewFile) == nil)
        let tableFile = dir.appendingPathComponent("table.sqlite").path
        let t = try Connection(path: tableFile)
        try t.execute("CREATE TABLE _urna_schema (id INTEGER PRIMARY KEY, family TEXT)")
        try t.execute("INSERT INTO _urna_schema VALUES (1, 'hotel')")
        #expect(FormerDefaultDatabase.recordedFamily(tableFile) == "hotel")
    }
}
