import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

@Suite struct PeopleMigrationTests {
    @Test func seedExampleV0ToV2ValueByValue() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let migrator = Migrator(family: SchemaFamilies.people)
        let plan = try migrator.plan(path: path)
        #expect(plan.fromVersion == 0)
        #expect(plan.toVersion == 2)
        let report = try migrator.run(plan, backupPath: nil)
        #expect(report.outcome == .applied)

        let store = try Store(path: path, schema: People.v2)
        let people = Array(try store.objects("Person"))
        #expect(people.count == 4)
        let expected: [(String, Int64)] = [
            ("Ada Lovelace", 36), ("Alan Turing", 41), ("Grace Hopper", 85), ("José Conceição", 0),
        ]
        for (person, (fullName, age)) in zip(people, expected) {
            #expect(person["fullName"] == .string(fullName))
            #expect(person["email"] == .string(""))
            #expect(person["age"] == .int(age))
        }
    }
}

@Suite struct PeopleFormsAndUserObjectsTests {
    /// The same history written step by step gives the same file as seed 000's single block.
    @Test func stepwiseFormEqualsSingleBlock() throws {
        let stepwise = SchemaFamily(
            name: "people",
            versions: [
                SchemaVersion(People.v0),
                SchemaVersion(
                    People.v1,
                    step: MigrationStep("fullName") { m in
                        try m.enumerateObjects(ofType: "Person") { old, new in
                            new["fullName"] = .string("\(old["firstName"]) \(old["lastName"])")
                        }
                    }),
                SchemaVersion(People.v2, step: MigrationStep("email, empty")),
            ])
        let dir = try Fixture.directory()
        for start in [0, 1] {
            let a = dir.file("block\(start).sqlite")
            let b = dir.file("steps\(start).sqlite")
            try Fixture.peopleFile(at: a, version: start)
            try Fixture.peopleFile(at: b, version: start)
            _ = try Migrator(family: SchemaFamilies.people).run(
                try Migrator(family: SchemaFamilies.people).plan(path: a), backup: .none)
            let report = try Migrator(family: stepwise).run(try Migrator(family: stepwise).plan(path: b), backup: .none)
            #expect(report.steps.count == 2 - start, "one history row per step")
            #expect(try Fixture.dump(a) == Fixture.dump(b))
            #expect(try Fixture.master(a) == Fixture.master(b))
        }
    }

    /// Views, triggers and indexes someone added survive the table rebuilds; one that no longer
    /// works stops the upgrade with its name, and the file stays as it was.
    @Test func userViewsTriggersAndIndexes() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        try Connection(path: path).execute(
            """
            CREATE TABLE audit (n INTEGER);
            CREATE VIEW adults AS SELECT age FROM "Person" WHERE age >= 18;
            CREATE INDEX person_age ON "Person"(age);
            CREATE TRIGGER person_added AFTER INSERT ON "Person" BEGIN INSERT INTO audit VALUES (1); END;
            """)
        // A table outside the family is the user's own: not drift, left alone (and nothing here breaks).
        #expect(try Migrator(family: SchemaFamilies.people).plan(path: path).brokenUserObjects == [])
        try Connection(path: path).execute("DROP TRIGGER person_added; DROP TABLE audit")
        try Connection(path: path).execute(
            "CREATE TRIGGER person_check BEFORE UPDATE ON \"Person\" BEGIN SELECT RAISE(ABORT, 'no') WHERE new.age < 0; END"
        )
        let migrator = Migrator(family: SchemaFamilies.people)
        let report = try migrator.run(try migrator.plan(path: path), backup: .none)
        #expect(report.steps[0].sql.contains("DROP VIEW \"adults\""))
        let objects = try Connection(path: path).rows(
            "SELECT type, name FROM sqlite_master WHERE name IN ('adults', 'person_age', 'person_check') ORDER BY name")
        #expect(
            objects == [
                [.text("view"), .text("adults")], [.text("index"), .text("person_age")],
                [.text("trigger"), .text("person_check")],
            ])
        #expect(try Connection(path: path).integer("SELECT count(*) FROM adults") == 3)

        let broken = dir.file("broken.sqlite")
        try Fixture.peopleFile(at: broken, version: 0)
        try Connection(path: broken).execute("CREATE VIEW names AS SELECT firstName FROM \"Person\"")
        let before = Fixture.snapshot(broken)
        // Without the failed-run row in _urna_history (see RunLedgerTests), not one byte changes.
        let strict = Migrator(family: SchemaFamilies.people, options: MigrationOptions(recordsFailedRuns: false))
        do {
            _ = try strict.run(try strict.plan(path: broken), backup: .none)
            Issue.record("a view on a dropped column must stop the upgrade")
        } catch let e as MigrationError {
            guard case .validationFailed(_, let failures, _) = e else {
                Issue.record("unexpected \(e)")
                return
            }
            #expect(failures.contains { $0.check == "view" && $0.message.contains("view names no longer works") })
        }
        #expect(Fixture.snapshot(broken) == before)

        // SQLite checks a trigger's body only when a statement that fires it is compiled: the run compiles them,
        // so a trigger on a dropped column stops it by name instead of breaking the app's next INSERT.
        for (n, trigger) in [
            "CREATE TRIGGER person_log AFTER INSERT ON \"Person\" BEGIN INSERT INTO plog VALUES (new.firstName); END",
            "CREATE TRIGGER person_log AFTER UPDATE OF age ON \"Person\" BEGIN INSERT INTO plog VALUES (old.lastName); END",
            "CREATE TRIGGER person_log BEFORE DELETE ON \"Person\" BEGIN INSERT INTO plog SELECT old.firstName; END",
        ].enumerated() {
            let file = dir.file("trigger\(n).sqlite")
            try Fixture.peopleFile(at: file, version: 0)
            try Connection(path: file).execute("CREATE TABLE plog (x); " + trigger)
            let untouched = Fixture.snapshot(file)
            do {
                _ = try strict.run(try strict.plan(path: file), backup: .none)
                Issue.record("a trigger on a dropped column must stop the upgrade: \(trigger)")
            } catch let e as MigrationError {
                guard case .validationFailed(_, let failures, _) = e else {
                    Issue.record("unexpected \(e)")
                    continue
                }
                #expect(failures.contains { $0.check == "trigger" && $0.message.contains("trigger person_log no longer works") }, "\(failures)")
            }
            #expect(Fixture.snapshot(file) == untouched)
        }
    }
}
