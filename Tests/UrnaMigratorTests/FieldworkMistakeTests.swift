import FieldworkFamily
import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// The fieldwork trial's developer mistakes, each checked against every row of the file.
@Suite struct FieldworkMistakeTests {
    /// v6 lower-cases observer logins: "Ana" (fixture) and a second observer "ana" collide. The refusal names the
    /// type, the key and says the step gave it (it said "object ana cannot be written: another object of Observer
    /// has the same primary key", which read as if the file already held two).
    @Test func aKeyChangeThatMakesTwoObjectsCollideNamesBoth() throws {
        let dir = try Fixture.directory()
        let path = dir.file("fieldwork.sqlite")
        try FieldworkFamily.fillV0(at: path)
        let c = try Connection(path: path, readOnly: false, create: false)
        try c.execute("INSERT INTO Observer VALUES ('ana', 'Ana Maria', NULL)")
        try c.execute("INSERT INTO Visit_observers VALUES (3, 0, 'ana')")
        let before = try RowChecker.rows(path)
        let m = Migrator(family: FieldworkFamily.family)
        var message = ""
        do {
            _ = try m.run(try m.plan(path: path), backup: .none)
        } catch {
            message = "\(error)"
        }
        #expect(
            message.contains("two Observer objects were given the primary key ana in this step (id; one of them"),
            "\(message)")
        #expect(message.contains(#"migration.newObject(ofType: "Observer", forPrimaryKey:)"#))
        #expect(try RowChecker.rows(path) == before)
    }

    static func v1(_ step: MigrationStep) -> SchemaFamily {
        let v1 = try! Schema(family: "fieldwork", version: 1, types: FieldworkFamily.v0.types)
        return SchemaFamily(
            name: "fieldwork", versions: [SchemaVersion(FieldworkFamily.v0), SchemaVersion(v1, step: step)])
    }

    /// A closure that deletes sites and observers others link to: the links go nil and the list entries go, as a
    /// delete in the store does, and the dry run and the report now count them per property (they said only
    /// "Site: 3 enumerated, 3 deleted", and 8 Visit.site links and 12 Visit.observers entries went unsaid).
    @Test func linksToObjectsAStepDeletesAreCountedInTheReport() throws {
        let dir = try Fixture.directory()
        let path = dir.file("fieldwork.sqlite")
        try FieldworkFamily.fillV0(at: path)
        let family = Self.v1(
            MigrationStep("sites and observers are gone") { m in
                try m.enumerateObjects(ofType: "Site") { _, new in try m.delete(new) }
                try m.deleteData(forType: "Observer")
            })
        let m = Migrator(family: family)
        let dry = try m.dryRun(path: path, sample: 0)
        #expect(dry.steps.first?.clearedLinks == ["Visit.site": 8, "Visit.observers": 12])
        #expect(dry.renderText().contains("    Visit.site: 8 link(s)"))
        let report = try m.run(try m.plan(path: path), backup: .none)
        #expect(report.steps.first?.clearedLinks == ["Visit.site": 8, "Visit.observers": 12])
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.scalar("SELECT count(*) FROM Visit WHERE site IS NULL") == .integer(8))
        #expect(try c.scalar("SELECT count(*) FROM Visit_observers") == .integer(0))
    }

    /// `adopt --version 0` with the history squashed into a v3 baseline said "fieldwork has no version 0 (it has 3, 4,
    /// 5, 6): pick one of those" (exit 64) where `migrate` gives the app's advice: adopt checks the baseline first.
    @Test func adoptBelowASquashedBaselineGivesTheAdvice() throws {
        let dir = try Fixture.directory()
        let path = dir.file("legacy.sqlite")
        try Connection(path: path).execute("CREATE TABLE Observer (id TEXT PRIMARY KEY, name TEXT, email TEXT)")
        let bytes = FileManager.default.contents(atPath: path)
        #expect {
            try Migrator(family: FieldworkFamily.squashed).adopt(path: path, version: 0)
        } throws: { error in
            guard case .olderThanSupported(_, "fieldwork", 0, 3, let advice) = error as? MigrationError else {
                return false
            }
            return advice == "open it once with fieldwork-app 1.x, which upgrades it to version 3"
        }
        #expect(FileManager.default.contents(atPath: path) == bytes)
    }

    /// A type or property named with a typo or another case in a closure (`enumerateObjects(ofType: "sample")`,
    /// `old["hbitat"]`) stopped the run with "no type 'sample' in either version of this step" and nothing more:
    /// the failure now says which name was meant.
    @Test func aMisspeltNameInAClosureIsPointedOut() throws {
        let typeTypo: MigrationClosure = { m in try m.enumerateObjects(ofType: "sample") { _, _ in } }
        let propertyTypo: MigrationClosure = { m in
            try m.enumerateObjects(ofType: "Site") { old, _ in _ = old["hbitat"] }
        }
        for (wrong, right, closure) in [("sample", "Sample", typeTypo), ("hbitat", "habitat", propertyTypo)] {
            let dir = try Fixture.directory()
            let path = dir.file("fieldwork.sqlite")
            try FieldworkFamily.fillV0(at: path)
            let before = try RowChecker.rows(path)
            let m = Migrator(family: Self.v1(MigrationStep("a typo", migration: closure)))
            var message = ""
            do {
                _ = try m.run(try m.plan(path: path), backup: .none)
            } catch {
                message = "\(error)"
            }
            #expect(message.contains("'\(wrong)'") && message.contains("did you mean '\(right)'?"), "\(message)")
            #expect(try RowChecker.rows(path) == before)
        }
    }

    /// A unique index the step's SQL creates over values held twice failed with SQLite's bare "UNIQUE constraint
    /// failed" as a storage error: no ledger row, and the dry run threw instead of reporting. It is now a failed
    /// check naming the statement and the values held more than once.
    @Test func aUniqueIndexOverDuplicatesNamesTheValues() throws {
        let dir = try Fixture.directory()
        let path = dir.file("fieldwork.sqlite")
        try FieldworkFamily.fillV0(at: path)
        let before = try RowChecker.rows(path)
        let m = Migrator(
            family: Self.v1(MigrationStep(sqlAfter: ["CREATE UNIQUE INDEX Sample_kind_unique ON Sample(kind)"])))
        let dry = try m.dryRun(path: path, sample: 0)
        #expect(dry.outcome == .failed)
        let expected = "Sample.kind holds 'soil' 8 times, 'water' 8 times"
        #expect(dry.failures.contains { $0.message.contains(expected) }, "\(dry.failures)")
        var message = ""
        do {
            _ = try m.run(try m.plan(path: path), backup: .none)
        } catch {
            message = "\(error)"
        }
        #expect(message.contains("sqlAfter[0] failed: UNIQUE constraint failed: Sample.kind"), "\(message)")
        #expect(message.contains(expected))
        #expect(try RowChecker.rows(path) == before)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.scalar("SELECT count(*) FROM _urna_history WHERE outcome = 'failed'") == .integer(1))
    }
}
