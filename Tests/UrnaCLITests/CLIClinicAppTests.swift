import Foundation
import Testing

/// The clinic app (issue 14's third trial: `UrnaCommandLine.main(families: [ClinicFamily.family], toolName:
/// "clinic-app", appVersion: "1.0")`): every command on a file filled with plain SQL, checked with sqlite3.
@Suite(.serialized) struct CLIClinicAppTests {
    static var app: URL { CLIRunner.built("clinic-app") }

    static func run(_ args: [String]) throws -> CLIResult { try CLIRunner.runProcess(app, args) }

    @Test("dry run leaves the file; migrate follows every link; status, export, restore; adopt is in the ledger")
    func theClinicAppsCommands() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("clinic.sqlite").path
        #expect(try Self.run(["init", "--db", db, "--family", "clinic", "--version", "0"]).code == 0)
        _ = try CLIAppFamilyTests.sqlite(
            db,
            """
            INSERT INTO Doctor VALUES (1, 'Dr. Ana', 'general'), (2, 'Dr. João', 'cardiology');
            INSERT INTO Patient VALUES (1, 'Ana Souza', NULL, '+55 11 1', 0, NULL, 'active', NULL),
              (2, 'José Lima', NULL, NULL, 1, x'0102', 'active', '{"street":"Rua 2","city":"Recife"}');
            INSERT INTO Patient_doctors VALUES (1, 0, 2), (1, 1, 1);
            INSERT INTO Visit VALUES (10, 1, NULL, 15000, NULL, 1, 2), (20, 2, NULL, 9950, 'J01', 0, NULL);
            INSERT INTO Prescription VALUES (100, 10, 'aspirin', 2);
            """)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let dry = try Self.run(["migrate", "--db", db, "--dry-run"])
        #expect(dry.code == 0 && dry.stdout.contains("the upgrade would succeed"), "\(dry.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        let migrate = try Self.run(["migrate", "--db", db])
        #expect(migrate.code == 0, "\(migrate.stderr)")
        #expect(
            try CLIAppFamilyTests.sqlite(
                db,
                "SELECT group_concat(id || ':' || patient || ':' || coalesce(drug, '-') || ':' || diagnosis, ' ') FROM Visit"
            )
                == "10:P1:aspirin: 20:P2:-:J01")
        #expect(
            try CLIAppFamilyTests.sqlite(db, "SELECT group_concat(id || '>' || role, ' ') FROM CareTeam")
                == "1/D2>primary 1/D1>member")
        #expect(
            try CLIAppFamilyTests.sqlite(db, "SELECT json_extract(address, '$.phone') FROM Patient WHERE id = 'P1'")
                == "+55 11 1")
        #expect(
            try CLIAppFamilyTests.sqlite(db, "SELECT DISTINCT app_version FROM _urna_history").hasPrefix(
                "clinic-app 1.0 (urna "))
        #expect(try Self.run(["status", "--db", db]).stdout.contains("pending:  none"))
        let export = try Self.run(["export", "--db", db, "--format", "json", "--type", "Visit"])
        #expect(export.stdout.contains(#""clinicians":["D2"]"#), "\(export.stdout)")
        let restore = try Self.run(["restore", "--db", db])
        #expect(restore.code == 0, "\(restore.stderr)")
        #expect(try CLIAppFamilyTests.sqlite(db, "SELECT count(*) FROM Prescription") == "1")

        let legacy = dir.appendingPathComponent("legacy.sqlite").path
        _ = try CLIAppFamilyTests.sqlite(
            legacy,
            """
            CREATE TABLE Clinician(code TEXT PRIMARY KEY, name TEXT, specialty INTEGER);
            CREATE TABLE Patient(id INTEGER PRIMARY KEY, name TEXT, birth TEXT, phone TEXT, smoker INTEGER, photo BLOB,
              status TEXT, address TEXT);
            CREATE TABLE Visit(id INTEGER PRIMARY KEY, patient INTEGER REFERENCES Patient(id), at TEXT, fee INTEGER,
              diagnosis TEXT, closed INTEGER, clinician TEXT REFERENCES Clinician(code), drug TEXT, doses INTEGER);
            CREATE TABLE Patient_clinicians(owner INTEGER, position INTEGER, target TEXT, PRIMARY KEY(owner, position));
            INSERT INTO Patient VALUES (1, 'Ana Souza', NULL, '', 0, NULL, 'active', NULL);
            """)
        let adopt = try Self.run(["adopt", "--db", legacy, "--family", "clinic", "--version", "2"])
        #expect(adopt.code == 0, "\(adopt.stderr)")
        #expect(
            try CLIAppFamilyTests.sqlite(legacy, "SELECT outcome || ' ' || app_version FROM _urna_history")
                .hasPrefix("adopted clinic-app 1.0 (urna "))
    }
}
