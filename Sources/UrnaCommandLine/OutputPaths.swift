import Foundation
import UrnaImport
import UrnaStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Refuses an output path (`--rejects`, `export --out`, `--backup`) that would clobber what the command
/// reads or writes: the database, its `-wal`, `-shm` and `-journal`, or an input, named directly, through a
/// symlink (followed with `realpath`, also when only its folder is a link) or through a hard link (same
/// device and inode). Streams (`-`, FIFOs, devices) are written through and so are not compared.
enum OutputPaths {
    /// Throws a usage error naming `option` when `output` is one of the files the command works on.
    /// With `refusingSymlinks`, a symlink at `output` (even a dangling one) is refused too: for outputs
    /// created in place (a backup) rather than renamed over the name.
    static func refuse(
        _ output: String, option: String, database: String?, inputs: [String] = [], refusingSymlinks: Bool = false
    ) throws {
        var st = stat()
        if refusingSymlinks, lstat(output, &st) == 0, st.st_mode & S_IFMT == S_IFLNK {
            throw UsageError(
                "\(option) \(output) is a symbolic link: urna does not write through links; give \(option) "
                    + "another path (nothing was changed)")
        }
        if let n = OutputFileName.descriptorNumber(output), fcntl(n, F_GETFD) < 0 {
            // Not open now, before urna opens anything: the number would be the database's, its -wal's or
            // -shm's by the time the output is written (`--rejects /dev/fd/4` wrote CSV over the database).
            throw UsageError(
                "\(option) \(output) names descriptor \(n), which is not open: urna's own files (the database, "
                    + "its -wal and -shm) get such numbers, and writing there would go into them; open it for "
                    + "urna (\(n)>FILE in the shell) or give \(option) a file (nothing was changed)")
        }
        if output == "-" || isStream(output) { return }
        // /dev, /proc and /sys hold devices and the kernel's files, never an output: a name there that is not a
        // stream would get a temporary file beside it renamed over it (as root, `--out /dev/stdin` with a file on
        // standard input would have replaced the system's /dev/stdin link).
        // (Not `absolute`: standardizingPath follows the last link too, and /dev/stdin's folder then read as the
        // folder of the file on standard input.)
        let given = output.hasPrefix("/") ? output : FileManager.default.currentDirectoryPath + "/" + output
        let folder = realPath(PathText.folder(of: given)) ?? ""
        // (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` are descriptors, written through.)
        let descriptor =
            OutputFileName.descriptorNumber(output) != nil || output == "/dev/stdout" || output == "/dev/stderr"
        if !descriptor,
            folder == "/dev" || folder == "/sys" || folder.hasPrefix("/sys/") || folder == "/proc"
                || folder.hasPrefix("/proc/")
        {
            throw UsageError(
                "\(option) \(output) is in \(folder), where urna writes only to devices and FIFOs, never creates or "
                    + "replaces a file; give \(option) a file in an ordinary folder (nothing was changed)")
        }
        var protected: [(path: String, what: String)] = []
        if let database {
            protected.append((database, "the database"))
            for suffix in ["-wal", "-shm", "-journal"] {
                protected.append((database + suffix, "the database's \(suffix) file"))
            }
            if let real = realPath(database), real != absolute(database) {
                for suffix in ["-wal", "-shm", "-journal"] {
                    protected.append((real + suffix, "the database's \(suffix) file"))
                }
            }
        }
        for input in inputs { protected.append((input, "an input of this command")) }
        let outNames = names(of: output)
        let outIdentity = identity(output)
        for (path, what) in protected {
            let clash =
                !outNames.isDisjoint(with: names(of: path))
                || (outIdentity != nil && outIdentity == identity(path))
            if clash {
                throw UsageError(
                    "\(option) \(output) is \(what) (\(path)): writing there would destroy it; "
                        + "give \(option) another path (nothing was changed)")
            }
        }
        // A file named as another database's -wal, -shm or -journal is lost the next time that database is
        // opened. An existing one that is that database's own log, journal or index is refused by
        // `refuseReplacing`, naming what it holds; any other (a new file above all: the -shm case used to pass
        // this check by comparing the name with itself) is refused here.
        if let (database, what) = InputChecks.companion(output),
            !FileManager.default.fileExists(atPath: output)
                || sqliteSidecar(head: head(of: output), path: output) == nil
        {
            throw UsageError(
                "\(option) \(output) has the name SQLite gives \(database)'s \(what): whoever opens \(database) next "
                    + "deletes or rewrites the file of that name, so what urna wrote there would be lost; give "
                    + "\(option) another path (nothing was changed)")
        }
    }

    /// The first 16 bytes of a file (none when it does not exist or cannot be read).
    static func head(of path: String) -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else { return Data() }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) ?? Data()
    }

    /// Refuses an existing file an output would be renamed over when replacing it could not be what was meant:
    /// an SQLite database (another Urna file, a backup: an export is never a database), another database's
    /// -wal, hot -journal or -shm, a program (the urna binary itself, a script), or a file without write permission
    /// (protected on purpose; root could replace it). Other files are replaced, as `-o` does.
    static func refuseReplacing(_ output: String, option: String) throws {
        var st = stat()
        guard output != "-", !isStream(output), stat(output, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return }
        if let handle = FileHandle(forReadingAtPath: output) {
            let head = (try? handle.read(upToCount: 16)) ?? Data()
            try? handle.close()
            if head == Data("SQLite format 3\0".utf8) {
                throw UsageError(
                    "\(option) \(output) is an SQLite database: urna never writes an export over one; give \(option) "
                        + "another path, or remove that file first if you mean it (nothing was changed)")
            }
            // A program (the urna binary itself, a script): an export or metadata file is never one. By its
            // first bytes, not its mode: FAT and NTFS mounts show every file executable.
            if st.st_mode & 0o111 != 0, head.starts(with: [0x7F, 0x45, 0x4C, 0x46]) || head.starts(with: [0x23, 0x21]) {
                throw UsageError(
                    "\(option) \(output) is a program (an executable \(head.first == 0x7F ? "binary" : "script")): urna "
                        + "never writes its output over one; give \(option) another path, or remove that file first "
                        + "if you mean it (nothing was changed)")
            }
            // Another database's write-ahead log or hot rollback journal holds its last commits, or what undoes
            // a half-written transaction: replacing it loses them or leaves that database damaged.
            if let what = sqliteSidecar(head: head, path: output) {
                throw UsageError(
                    "\(option) \(output) is \(what) of an SQLite database: replacing it would lose that database's "
                        + "commits or damage it; give \(option) another path (nothing was changed)")
            }
        }
        if st.st_mode & 0o222 == 0 {
            throw UsageError(
                "\(option) \(output) has no write permission (mode \(String(st.st_mode & 0o777, radix: 8))): urna does not "
                    + "replace a file protected that way; give \(option) another path (nothing was changed)")
        }
    }

    /// What an existing file is when it belongs to an SQLite database beside the data: "the write-ahead log"
    /// (WAL magic 0x377f0682 or 0x377f0683), "the rollback journal" (journal magic d9d505f920a163d7), or "the
    /// shared-memory index" (a `-shm` beside an SQLite file); nil otherwise.
    static func sqliteSidecar(head: Data, path: String) -> String? {
        let bytes = [UInt8](head)
        if bytes.count >= 4, bytes[0..<3].elementsEqual([0x37, 0x7F, 0x06]), bytes[3] == 0x82 || bytes[3] == 0x83 {
            return "the write-ahead log"
        }
        if bytes.count >= 8, bytes[0..<8].elementsEqual([0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]) {
            return "the rollback journal"
        }
        if path.hasSuffix("-shm"), InputChecks.looksLikeSQLite(String(path.dropLast(4))) == true {
            return "the shared-memory index"
        }
        return nil
    }

    /// The names a path can stand for: as given (made absolute), with its symlinks resolved, and with only
    /// its folder resolved (a file that does not exist yet).
    static func names(of path: String) -> Set<String> {
        var out: Set<String> = [absolute(path)]
        if let real = realPath(path) { out.insert(real) }
        let folder = PathText.folder(of: absolute(path))
        if let realFolder = realPath(folder) {
            out.insert((realFolder as NSString).appendingPathComponent((path as NSString).lastPathComponent))
        }
        return out
    }

    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (full as NSString).standardizingPath
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// Whether `path` leads to this process's standard output (`/dev/stdout`, `/proc/self/fd/1`, a link to
    /// the same terminal or file), where a summary line would mix with the data.
    static func isStandardOutput(_ path: String) -> Bool {
        var st = stat()
        guard fstat(STDOUT_FILENO, &st) == 0, let out = identity(path) else { return false }
        return out == [UInt64(st.st_dev), UInt64(st.st_ino)]
    }

    /// Device and inode of the file a path leads to, when it exists.
    static func identity(_ path: String) -> [UInt64]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return [UInt64(st.st_dev), UInt64(st.st_ino)]
    }

    /// Whether `path` is a FIFO or a character device, also through a symlink (`/dev/stdout` and
    /// `/proc/self/fd/N` lead to the terminal or pipe they stand for; one that leads to a regular file is
    /// compared like any file).
    static func isStream(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        let type = st.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR
    }
}
