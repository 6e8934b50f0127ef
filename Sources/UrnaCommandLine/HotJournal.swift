import Foundation
import UrnaStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A rollback journal (`FILE-journal`) left by a process that crashed mid-write is "hot": the file holds
/// half a transaction until a connection that may write rolls the journal back. A read-only connection
/// cannot, and SQLite then fails every read with "attempt to write a readonly database". Readers recover it
/// first when they may write the file and its folder, or explain how to.
enum HotJournal {
    /// Rolls a hot journal of `path` back (by opening the file read-write and reading it once, which
    /// SQLite does before any read), or throws a message with the command that recovers it.
    static func recoverIfNeeded(_ path: String) throws {
        let journal = path + "-journal"
        var st = stat()
        guard lstat(journal, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size > 0 else { return }
        guard access(path, W_OK) == 0, access(folder(of: path), W_OK) == 0 else {
            throw CLIError(
                ExitCode.failure,
                "\(path) was left mid-write by a process that stopped (its rollback journal \(journal) is still there), "
                    + "and SQLite must write the file and its folder to roll that write back, which this account cannot: "
                    + "run `sqlite3 \(path) 'PRAGMA integrity_check'` as a user who can write both (that rolls it back), "
                    + "or copy the file together with its -journal to a writable place; nothing was changed")
        }
        do {
            let connection = try Connection(path: path, readOnly: false, create: false)
            // Any read takes the shared lock, finds the journal hot and rolls it back.
            _ = try connection.integer("PRAGMA schema_version")
        } catch let e as SQLiteError where e.isBusy {
            // A journal of a write still running (another process holds the lock) is not hot: nothing was left.
            throw CLIError(
                ExitCode.failure,
                "\(path) is locked by another process that is writing to it (\(e.message)); nothing was changed: try "
                    + "again when it finishes")
        } catch {
            throw CLIError(
                ExitCode.failure,
                "\(path) was left mid-write by a process that stopped (its rollback journal \(journal) is still there), "
                    + "and rolling it back failed (\(error)); try `sqlite3 \(path) 'PRAGMA integrity_check'`")
        }
    }
}
