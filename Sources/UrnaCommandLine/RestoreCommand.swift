import Foundation
import UrnaImport
import UrnaMigrator
import UrnaStore

enum RestoreCommand {
    static let spec = CommandSpec(
        name: "restore", abstract: "Put a file back as its migration backup holds it.",
        usage: "urna restore [--db PATH] [--from BACKUP]",
        discussion: """
            Copies the backup into the file through SQLite's backup API, in one transaction: the file ends wholly
            restored or as it was. Without --from, the newest backup next to the file (PATH.v<N>.bak). The backup
            must pass an integrity check and record a schema of the file's family; it is kept. The file as it
            was is copied first to PATH.before-restore.bak (or a free numbered name beside it).
            """,
        options: [
            .value("db", "PATH", "The file to restore (default: urna.sqlite)."),
            .value("from", "BACKUP", "The backup to restore from (default: the newest PATH.v<N>.bak)."),
        ],
        positionals: [], minPositionals: 0, maxPositionals: 0,
        examples: ["urna restore --db urna.sqlite", "urna restore --db urna.sqlite --from urna.sqlite.v3.bak"])

    static let command = Command(spec: spec) { p in
        let context = CommandContext.current
        let path = databasePath(p)
        try requireWritableDatabase(path, command: "\(context.toolName) restore")
        // A FIFO as --from made SQLite wait forever for its first bytes; a folder said "disk I/O error".
        if let from = p.value("from") {
            try InputChecks.checkDatabase(from, option: "--from")
            // The migrator's "does not exist: create a file with init" is no advice for a backup.
            guard FileManager.default.fileExists(atPath: from) else {
                throw CLIError(
                    ExitCode.missingInput,
                    "--from \(from) does not exist: give the path of a backup (\(context.toolName) migrate keeps "
                        + "one beside the file as \(path).v<N>.bak), or leave --from out to use the newest one there; "
                        + "nothing was changed")
            }
        }
        // The migrator's "give the backup's path" (exit 65) named no option and took a missing backup for bad data.
        if p.value("from") == nil, FileManager.default.fileExists(atPath: path),
            MigrationBackup.backups(of: path).isEmpty
        {
            throw CLIError(
                ExitCode.missingInput,
                "no backup of \(path) was found beside it (\(context.toolName) migrate keeps one there as "
                    + "\(path).v<N>.bak, unless --no-backup): give one with --from BACKUP; nothing was changed")
        }
        do {
            let r = try MigrationBackup.restore(path: path, from: p.value("from"))
            // The family is the backup file's own text: no escape sequence of it reaches the terminal.
            print(TerminalSafe.line("restored \(path) from \(r.backupPath): \(r.family) version \(r.version)"))
            if let k = r.keptAs { print(TerminalSafe.line("the file as it was before: \(k)")) }
            return ExitCode.ok
        } catch let e as MigrationError {
            throw CLIError(
                e.exitCode == 0 ? ExitCode.failure : e.exitCode, e.description(programName: context.toolName))
        }
    }
}
