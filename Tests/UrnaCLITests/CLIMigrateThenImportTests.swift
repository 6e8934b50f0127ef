import Foundation
import Testing

/// What a user with a file from an older urna does: import (refused, naming `urna migrate`), migrate, import
/// again. The second import was rolled back on every migrated file (the run ledger's columns in `_urna_history`
/// failed the import's shape check), found by the sixth real-files trial.
@Suite struct CLIMigrateThenImportTests {
    @Test func olderFileMigratesThenImports() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("old.sqlite").path
        try FileManager.default.copyItem(
            atPath: CLIRunner.packageRoot.appendingPathComponent(
                "Tests/UrnaImportTests/Fixtures/elections-v3-by-urna-e42b860.sqlite"
            ).path, toPath: db)
        let file = AnalysisFixtures.sample.appendingPathComponent("consulta_cand_2018_MG.csv").path

        let refused = try CLIRunner.run(["import", "--db", db, "--quiet", file])
        #expect(refused.code == 65)
        #expect(
            refused.stderr
                == "Error: \(db): the file is at elections version 3, made by an older urna, and this one imports into "
                + "version 6: upgrade it with `urna migrate --db \(db)` (a backup is kept; `--dry-run` shows what "
                + "changes), then import again; nothing was imported and the file is as it was\n")

        let migrated = try CLIRunner.run(["migrate", "--db", db])
        #expect(migrated.code == 0, "\(migrated.stderr)")
        let imported = try CLIRunner.run(["import", "--db", db, "--quiet", file])
        #expect(imported.code == 0, "\(imported.stderr)")
        #expect(imported.stderr == "")
        let count = try CLIRunner.run(["query", "--db", db, "Candidate", "state == 'MG'", "--count"])
        #expect(count.stdout == "2388\n")
        let again = try CLIRunner.run(["import", "--db", db, "--quiet", "--json", file])
        #expect(again.code == 0)
        #expect(
            again.stdout.contains("\"rows\": {\"inserted\": 0, \"updated\": 0, \"unchanged\": 2388,"), "\(again.stdout)"
        )
    }
}
