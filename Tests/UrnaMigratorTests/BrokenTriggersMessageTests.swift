import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// Two triggers that no longer work on the new version each get their own reason. The check compiles every
/// trigger on the table after creating each one, so the second trigger was reported with the first one's error
/// ("trigger person_gone ... (no such column: new.firstName)" for a trigger that reads old.lastName), and the
/// message pointed at the wrong fix.
@Suite struct BrokenTriggersMessageTests {
    @Test("Each broken trigger is reported with its own SQLite error")
    func eachTriggerItsOwnReason() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        try Connection(path: path).execute(
            """
            CREATE TABLE plog (x);
            CREATE TRIGGER person_added AFTER INSERT ON "Person" BEGIN INSERT INTO plog VALUES (new.firstName); END;
            CREATE TRIGGER person_gone BEFORE DELETE ON "Person" BEGIN INSERT INTO plog VALUES (old.lastName); END;
            """)
        let before = Fixture.snapshot(path)
        let strict = Migrator(family: SchemaFamilies.people, options: MigrationOptions(recordsFailedRuns: false))
        do {
            _ = try strict.run(try strict.plan(path: path), backup: .none)
            Issue.record("triggers on dropped columns must stop the upgrade")
        } catch let e as MigrationError {
            guard case .validationFailed(_, let failures, _) = e else {
                Issue.record("unexpected \(e)")
                return
            }
            let added = failures.filter { $0.message.contains("trigger person_added ") }
            let gone = failures.filter { $0.message.contains("trigger person_gone ") }
            #expect(added.count == 1 && gone.count == 1, "\(failures)")
            #expect(added.allSatisfy { $0.message.contains("new.firstName") }, "\(added)")
            #expect(gone.allSatisfy { $0.message.contains("old.lastName") }, "\(gone)")
        }
        #expect(Fixture.snapshot(path) == before)
    }
}
