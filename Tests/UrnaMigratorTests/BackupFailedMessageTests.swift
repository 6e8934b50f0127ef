import Testing
import UrnaMigrator

/// What a failed safety copy tells a person to do: `migrate` has `--backup PATH`, `restore` does not (its copy of
/// the file as it was has a fixed name beside the file), so restore's message must not send people to a flag it lacks.
@Suite struct BackupFailedMessageTests {
    @Test func restoresCopyNamesWhatRestoreCanDo() {
        let full = MigrationError.backupFailed(
            path: "/d/a.sqlite.before-restore.bak", reason: "No space left on device")
        let text = "\(full.localizedDescription)"
        #expect(!text.contains("--backup"), "\(text)")
        #expect(text.contains("free some space"), "\(text)")
        let taken = MigrationError.backupFailed(
            path: "/d/a.sqlite.before-restore.1.bak", reason: "a file is already there")
        #expect(!"\(taken.localizedDescription)".contains("--backup"))
        #expect("\(taken.localizedDescription)".contains("move what is there away"))
    }

    @Test func migratesBackupStillOffersItsFlag() {
        let e = MigrationError.backupFailed(path: "/d/a.sqlite.v0.bak", reason: "No space left on device")
        #expect("\(e.localizedDescription)".contains("--backup PATH"))
    }
}
