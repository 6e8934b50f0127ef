import Foundation
import Testing

/// A file whose `_urna_schema` descriptor was edited or damaged (JSON nested 100,000 deep, a type declared
/// twice): read commands said "the schema descriptor is not valid: The given data was not valid JSON." or
/// "type 'goods' is declared twice", naming neither the file nor the way back.
@Suite struct DescriptorDamageTests {
    @Test("status and query name the file, the table and the fix (restore) for an unusable descriptor")
    func unusableDescriptorNamed() throws {
        let dir = try Hostile.folder()
        #expect(try Hostile.urna(["init", "--db", "p.sqlite", "--family", "people"], in: dir).code == 0)
        let path = dir.appendingPathComponent("p.sqlite").path
        let original = try Hostile.sql(path, "SELECT descriptor FROM _urna_schema")[0]
        for damaged in [
            String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000),
            original.replacingOccurrences(
                of: "\"types\" : [", with: "\"types\" : [{\"name\":\"Person\",\"properties\":[]},"),
        ] {
            try Hostile.sql(
                path, "UPDATE _urna_schema SET descriptor = '\(damaged.replacingOccurrences(of: "'", with: "''"))'")
            let before = Hostile.bytes(dir, "p.sqlite")
            for args in [["status", "--db", "p.sqlite"], ["query", "--db", "p.sqlite", "Person", "--count"]] {
                let r = try Hostile.urna(args, in: dir)
                #expect(r.code == 65, "\(args): \(r.stderr)")
                #expect(
                    r.stderr.contains("p.sqlite: the schema it records in _urna_schema cannot be used (")
                        && r.stderr.contains("urna restore --db p.sqlite"), "\(args): \(r.stderr)")
            }
            // Writing commands and the preview say the same (migrate said only "the schema descriptor is not
            // valid", the dry run named its private copy as "not an Urna file").
            for args in [["migrate", "--db", "p.sqlite"], ["migrate", "--db", "p.sqlite", "--dry-run"]] {
                let r = try Hostile.urna(args, in: dir)
                #expect(r.code == 65, "\(args): \(r.stderr)")
                #expect(
                    r.stderr.contains("p.sqlite: the schema it records in _urna_schema cannot be used (")
                        && r.stderr.contains("restore") && !r.stderr.contains("urna-dry-run"), "\(args): \(r.stderr)")
            }
            #expect(Hostile.bytes(dir, "p.sqlite") == before)
        }
    }

    @Test("import names the file, the table and the fix for an unusable descriptor, and changes nothing")
    func importIntoDamagedDescriptor() throws {
        let dir = try Hostile.folder()
        #expect(try Hostile.urna(["init", "--db", "e.sqlite", "--family", "elections"], in: dir).code == 0)
        let path = dir.appendingPathComponent("e.sqlite").path
        try Hostile.sql(path, "UPDATE _urna_schema SET descriptor = '[[[]]]'")
        let input = try Hostile.sample("consulta_cand_2016_AC.txt", into: dir)
        let before = Hostile.bytes(dir, "e.sqlite")
        let r = try Hostile.urna(["import", "--db", "e.sqlite", input], in: dir)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(
            r.stderr.contains("e.sqlite: the schema it records in _urna_schema cannot be used (")
                && r.stderr.contains("restore"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, "e.sqlite") == before)
    }

    @Test("import into a file whose descriptor claims a far-future version names the file once, changing nothing")
    func importIntoFutureVersion() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try Hostile.urna(["init", "--db", "e.sqlite", "--family", "elections"], in: dir).code == 0)
        let path = dir.appendingPathComponent("e.sqlite").path
        try Hostile.sql(
            path,
            """
            UPDATE _urna_schema SET version = 999999999999,
              descriptor = replace(descriptor, '"version" : 6', '"version" : 999999999999')
            """)
        let input = try Hostile.sample("consulta_cand_2016_AC.txt", into: dir)
        let before = Hostile.bytes(dir, "e.sqlite")
        let r = try Hostile.urna(["import", "--db", "e.sqlite", input], in: dir)
        // "Error: e.sqlite: e.sqlite is at elections version 999999999999, ...".
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: e.sqlite is at elections version 999999999999, newer than"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, "e.sqlite") == before)
    }

    @Test("A descriptor stored as a blob or a number, or no row at all, is named as damaged, not as no table")
    func descriptorOfAnotherType() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try Hostile.urna(["init", "--db", "p.sqlite", "--family", "people"], in: dir).code == 0)
        let path = dir.appendingPathComponent("p.sqlite").path
        let original = try Hostile.sql(path, "SELECT descriptor FROM _urna_schema")[0]
        for edit in [
            "UPDATE _urna_schema SET descriptor = CAST(descriptor AS BLOB)", "UPDATE _urna_schema SET descriptor = 6",
            "DELETE FROM _urna_schema",
        ] {
            try Hostile.sql(path, "DELETE FROM _urna_schema")
            try Hostile.sql(
                path,
                "INSERT INTO _urna_schema VALUES (1, 'people', 2, '\(original.replacingOccurrences(of: "'", with: "''"))', '')"
            )
            try Hostile.sql(path, edit)
            // It said "p.sqlite is not an Urna file (it has no _urna_schema table)", and import "already holds
            // tables that Urna did not create: use a new file".
            for args in [["status", "--db", "p.sqlite"], ["migrate", "--db", "p.sqlite"]] {
                let r = try Hostile.urna(args, in: dir)
                #expect(r.code == 65, "\(edit) \(args): \(r.stderr)")
                #expect(!r.stderr.contains("no _urna_schema table"), "\(edit) \(args): \(r.stderr)")
                #expect(
                    r.stderr.contains("p.sqlite: the schema it records in _urna_schema cannot be used ("),
                    "\(edit) \(args): \(r.stderr)")
            }
        }
    }
}
