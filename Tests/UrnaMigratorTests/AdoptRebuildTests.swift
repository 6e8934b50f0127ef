import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// Adopting plain SQLite files whose tables hold a version's columns in another form: rebuilt into the storage
/// contract in one transaction, or refused listing every row and column that does not fit.
@Suite struct AdoptRebuildTests {
    static let plainPerson = """
        CREATE TABLE Person (firstName TEXT, lastName TEXT, age INTEGER);
        INSERT INTO Person VALUES ('Ana', 'Souza', 31), ('José', 'Lima', 47);
        """

    @Test func plainRowidTableIsRebuiltThenMigrated() throws {
        let dir = try Fixture.directory()
        let path = dir.file("plain.sqlite")
        try Connection(path: path).execute(
            Self.plainPerson + """
                CREATE INDEX person_age ON Person(age);
                CREATE VIEW adults AS SELECT age FROM Person WHERE age >= 18;
                CREATE TABLE notes (body TEXT);
                INSERT INTO notes VALUES ('kept');
                """)
        let m = Migrator(family: SchemaFamilies.people)
        let before = Fixture.snapshot(path)
        let preview = try m.adopt(path: path, version: 0, dryRun: true)
        #expect(preview.dryRun && preview.rebuilt == ["Person": 2] && preview.counts == ["Person": 2])
        #expect(preview.changes.count == 1 && preview.changes[0].contains("column _id is missing"))
        #expect(Fixture.snapshot(path) == before, "a dry run does not touch the file")

        let report = try m.adopt(path: path, version: 0)
        #expect(!report.dryRun && report.rebuilt == ["Person": 2] && report.otherTables == ["notes"])
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT _id, firstName, lastName, age FROM Person ORDER BY _id").map { $0.map { "\($0)" } }
                == [["1", "Ana", "Souza", "31"], ["2", "José", "Lima", "47"]])
        #expect(try c.integer("SELECT count(*) FROM sqlite_master WHERE name IN ('person_age', 'adults')") == 2)
        #expect(try c.integer("SELECT count(*) FROM adults") == 2, "the view still reads the rebuilt table")
        #expect(try c.integer("SELECT count(*) FROM sqlite_master WHERE name LIKE '_urna_adopt_%'") == 0)
        #expect(try m.status(path: path).drift == [])

        _ = try m.run(try m.plan(path: path), backup: .none)
        let names = try Connection(path: path).rows("SELECT fullName FROM Person ORDER BY _id").map { "\($0[0])" }
        #expect(names == ["Ana Souza", "José Lima"])
    }

    @Test func constraintsAndColumnOrderOutsideTheContractAreRebuilt() throws {
        let dir = try Fixture.directory()
        let path = dir.file("plain.sqlite")
        try Connection(path: path).execute(
            """
            CREATE TABLE Person (age INTEGER CHECK (age >= 0), LastName TEXT UNIQUE, firstName);
            INSERT INTO Person VALUES ('40', 'Souza', 'Ana');
            """)
        let report = try Migrator(family: SchemaFamilies.people).adopt(path: path, version: 0)
        #expect(report.rebuilt == ["Person": 1])
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT typeof(age), age, lastName FROM Person").map { $0.map { "\($0)" } } == [
                ["integer", "40", "Souza"]
            ])
        #expect(try Migrator(family: SchemaFamilies.people).status(path: path).drift == [])
    }

    @Test func aTableNamedInAnotherCaseIsTheContractsTable() throws {
        let dir = try Fixture.directory()
        let path = dir.file("plain.sqlite")
        try Connection(path: path).execute(
            "CREATE TABLE person (firstName TEXT, lastName TEXT, age INTEGER); INSERT INTO person VALUES ('Ana', 'Souza', 31)"
        )
        let report = try Migrator(family: SchemaFamilies.people).adopt(path: path, version: 0)
        #expect(report.rebuilt == ["Person": 1] && report.otherTables == [] && report.created == [])
        #expect(report.changes.first?.hasPrefix("Person: the table is named person") == true, "\(report.changes)")
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'person'").map { "\($0[0])" }
                == ["Person"])
        #expect(try Migrator(family: SchemaFamilies.people).status(path: path).drift == [])
    }

    @Test func rowsThatDoNotFitAreListedAndNothingChanges() throws {
        let dir = try Fixture.directory()
        let path = dir.file("plain.sqlite")
        try Connection(path: path).execute(
            """
            CREATE TABLE Person (firstName TEXT, lastName TEXT, age);
            INSERT INTO Person VALUES ('Ana', NULL, 31), ('José', 'Lima', 'forty'), (NULL, NULL, 2);
            """)
        let before = Fixture.snapshot(path)
        let differences = try refusal { try Migrator(family: SchemaFamilies.people).adopt(path: path, version: 0) }
        #expect(
            differences == [
                "Person (rowid 3): firstName is NULL; the contract needs a value (firstName TEXT NOT NULL DEFAULT '')",
                "Person (rowid 1): lastName is NULL; the contract needs a value (lastName TEXT NOT NULL DEFAULT '')",
                "Person (rowid 3): lastName is NULL; the contract needs a value (lastName TEXT NOT NULL DEFAULT '')",
            ])
        #expect(Fixture.snapshot(path) == before)
        try Connection(path: path).execute("UPDATE Person SET firstName = '', lastName = '' WHERE lastName IS NULL")
        let typed = try refusal { try Migrator(family: SchemaFamilies.people).adopt(path: path, version: 0) }
        #expect(typed == ["Person (_id 2): age is 'forty' (text); the contract needs an integer"])
        #expect(
            try Connection(path: path).integer("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'Person'") == 0,
            "the failed rebuild was rolled back")
    }

    @Test func missingAndExtraColumnsAreRefused() throws {
        let dir = try Fixture.directory()
        let path = dir.file("plain.sqlite")
        try Connection(path: path).execute(
            "CREATE TABLE Person (firstName TEXT, nickname TEXT, age INTEGER); INSERT INTO Person VALUES ('Ana', 'Aninha', 3)"
        )
        let differences = try refusal { try Migrator(family: SchemaFamilies.people).adopt(path: path, version: 0) }
        #expect(
            differences == [
                "Person: column lastName is missing (expected lastName TEXT NOT NULL DEFAULT ''); add it, or adopt at the version without it",
                "Person: column nickname is not in the storage contract (its values would be lost); drop it, or adopt at the version that has it",
            ])
    }

    @Test func duplicateKeysAndBrokenLinksAreListed() throws {
        let dir = try Fixture.directory()
        let path = dir.file("plain.sqlite")
        let schema = try Schema(
            family: "shop", version: 0,
            types: [
                ObjectSchema("Shelf", [Property("code", .string, primaryKey: true)]),
                ObjectSchema(
                    "Item", [Property("name", .string, default: ""), Property("shelf", .link("Shelf"), optional: true)]),
            ])
        let family = SchemaFamily(name: "shop", versions: [SchemaVersion(schema)])
        try Connection(path: path).execute(
            """
            CREATE TABLE Shelf (code TEXT);
            CREATE TABLE Item (name TEXT, shelf TEXT);
            INSERT INTO Shelf VALUES ('A'), ('A'), ('B');
            INSERT INTO Item VALUES ('pen', 'A'), ('cup', 'Z'), ('box', NULL);
            """)
        let duplicates = try refusal { try Migrator(family: family).adopt(path: path, version: 0) }
        #expect(duplicates == ["Shelf: code 'A' is held by 2 rows; the contract's primary key needs one"])
        try Connection(path: path).execute("DELETE FROM Shelf WHERE rowid = 2")
        let links = try refusal { try Migrator(family: family).adopt(path: path, version: 0) }
        #expect(links == ["Item (rowid 2): a link to Shelf names a row Shelf does not have"])
        try Connection(path: path).execute("UPDATE Item SET shelf = 'B' WHERE name = 'cup'")
        let report = try Migrator(family: family).adopt(path: path, version: 0)
        #expect(report.rebuilt == ["Item": 3, "Shelf": 2] && report.counts == ["Item": 3, "Shelf": 2])
        #expect(try Migrator(family: family).status(path: path).drift == [])
    }

    private func refusal(_ body: () throws -> AdoptionReport) throws -> [String] {
        do {
            _ = try body()
            Issue.record("adopted a file that does not fit")
        } catch let e as MigrationError {
            guard case .adoptionRefused(_, _, _, let differences) = e else {
                Issue.record("\(e)")
                return []
            }
            #expect(e.exitCode == 65)
            return differences
        }
        return []
    }
}
