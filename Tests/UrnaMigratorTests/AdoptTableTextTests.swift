import Foundation
import HotelFamily
import Testing
import UrnaMigrator
import UrnaStore

/// A plain file whose table holds a version's columns exactly, but in its own spelling (no quotes, other spacing):
/// adopting it must leave a file the migrator accepts (issue 14's seventh app trial: `adopt` said "adopted" and
/// left Room as written, then every `migrate` failed "[shape] Room: its CREATE TABLE text differs").
@Suite struct AdoptTableTextTests {
    @Test func aTableInItsOwnSpellingIsRebuiltSoTheFileMigrates() throws {
        let dir = try Fixture.directory()
        let path = dir.file("hand.sqlite")
        try Connection(path: path).execute(
            """
            CREATE TABLE Room(number TEXT NOT NULL PRIMARY KEY, kind TEXT NOT NULL DEFAULT 'single',
              rate INTEGER NOT NULL DEFAULT 0, floor INTEGER);
            INSERT INTO Room VALUES ('101', 'single', 12050, 1), ('P1', 'suite', 99999999999, NULL);
            """)
        let m = Migrator(family: HotelFamily.family)
        let report = try m.adopt(path: path, version: 0)
        #expect(report.rebuilt["Room"] == 2, "\(report.changes)")
        #expect(try m.status(path: path).drift == [])
        let run = try m.run(try m.plan(path: path), backup: .none)
        #expect(run.toVersion == 5)
        let rooms = try Connection(path: path, readOnly: true, create: false).rows(
            "SELECT number, kind, quote(floor) FROM Room ORDER BY number"
        ).map { $0.map { "\($0)" } }
        #expect(rooms == [["101", "single", "1"], ["P1", "suite", "NULL"]])
    }
}
