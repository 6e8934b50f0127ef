import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Refusals made before any file is opened, so that a FIFO, a device or someone else's file never makes a
/// command hang, read forever, or take the file over.
enum InputChecks {
    /// `--db` must be a regular file (or not exist yet), and an SQLite file must not belong to another
    /// application (a non-zero `application_id` in its header; Urna sets none).
    /// `option` names the path in messages (`--from` for `copy` and `restore`).
    static func checkDatabase(_ path: String, option: String = "--db") throws {
        if let (database, what) = companion(path) {
            // `import --db b.sqlite-wal` beside b.sqlite made a database there (exit 0); the next program to open
            // b.sqlite found a -wal that was no log of its, and deleted it with every imported row.
            throw UsageError(
                "\(option) \(path) has the name SQLite gives \(database)'s \(what): whoever opens \(database) next "
                    + "deletes or rewrites the file of that name, so a database there would be lost; give \(option) "
                    + "another name (an existing file: move it to one first, such as \(path).sqlite) (nothing was changed)"
            )
        }
        // SQLite names the companions after the file a symbolic --db leads to: those are checked too (through a
        // link, a database at the resolved -wal name was deleted, exit 0).
        var bases = [path]
        if let resolved = ForeignCompanion.realPath(path), resolved != path { bases.append(resolved) }
        for base in bases { try checkCompanions(of: base) }
        var st = stat()
        guard stat(path, &st) == 0 else {
            try refuseOrphanCompanion(path)
            return
        }
        if st.st_size == 0 { try refuseOrphanCompanion(path) }
        let type = st.st_mode & S_IFMT
        if type == S_IFDIR {
            throw UsageError(
                "\(option) \(path) is a folder: give the path of a database file, such as \(path)/\(CommandContext.current.defaultDatabase)"
            )
        }
        if type != S_IFREG {
            throw UsageError(
                "\(option) \(path) is \(describe(type)), not a file: SQLite needs a regular file it can lock and seek; "
                    + "give \(option) the path of a database file (nothing was changed)")
        }
        if let problem = ForeignCompanion.problem(path) { throw CLIError(ExitCode.badData, problem) }
        if let id = applicationID(path), id != 0 {
            throw CLIError(
                ExitCode.badData,
                "\(path) is an SQLite file of another application (its application_id is \(id); Urna files have 0): "
                    + "Urna does not take it over; give \(option) the path of an Urna file, or a new path (nothing was changed)"
            )
        }
    }

    /// Refuses a database (not a log, journal or index) or a symbolic link at the -wal, -shm or -journal name of
    /// the database file `base`.
    static func checkCompanions(of base: String) throws {
        let suffixes = ["-wal", "-shm", "-journal"]
        for suffix in suffixes where looksLikeSQLite(base + suffix) == true {
            // A database (not a log, journal or index) under this file's companion name: SQLite would delete or
            // rewrite it the moment it opens `base`.
            throw CLIError(
                ExitCode.badData,
                "\(base)\(suffix) is an SQLite database, not \(base)'s \(suffix.dropFirst()) file: opening \(base) "
                    + "would delete or rewrite it; move it to another name first (mv \(base)\(suffix) "
                    + "\(base)\(suffix).sqlite) (nothing was changed)")
        }
        // SQLite will not open its -wal, -shm or -journal through a symbolic link (one planted there could point
        // at any file, which it would overwrite); every command then failed with "unable to open database file
        // ... its folder must exist and be writable", which pointed away from the link.
        for suffix in suffixes {
            var link = stat()
            guard lstat(base + suffix, &link) == 0, link.st_mode & S_IFMT == S_IFLNK else { continue }
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: base + suffix)) ?? "?"
            throw CLIError(
                ExitCode.failure,
                "\(base)\(suffix) is a symbolic link (to \(target)): SQLite keeps \(base)'s \(suffix.dropFirst()) "
                    + "file under that name and never writes through a link (it would overwrite what the link points "
                    + "to), so it cannot open \(base); remove the link if you did not put it there "
                    + "(rm \(base)\(suffix)) (nothing was changed)")
        }
        // A FIFO there (a tar archive or a shared folder can carry one) made SQLite's look for a hot journal wait
        // for a writer that never came: `urna status` hung for good. A folder or a device there is no file of
        // SQLite's either (it said only "disk I/O error").
        for suffix in suffixes {
            var st = stat()
            guard lstat(base + suffix, &st) == 0, st.st_mode & S_IFMT != S_IFREG else { continue }
            throw CLIError(
                ExitCode.failure,
                "\(base)\(suffix) is \(describe(st.st_mode & S_IFMT)), not a file: SQLite keeps \(base)'s "
                    + "\(suffix.dropFirst()) file under that name and cannot open \(base) beside it (reading would "
                    + "wait on it for good, or fail); move it away if you did not put it there "
                    + "(mv \(base)\(suffix) \(base)\(suffix).other) (nothing was changed)")
        }
    }

    /// Refuses a new (missing or empty) database whose -wal or -journal name is already taken by a file with
    /// bytes: SQLite would take it for the new file's own. `import` into a new file beside another database's
    /// -wal exited 0 and left a file every later command read as that other database; `init` deleted the log.
    static func refuseOrphanCompanion(_ path: String) throws {
        for (suffix, what) in [("-wal", "write-ahead log"), ("-journal", "rollback journal")] {
            var st = stat()
            guard lstat(path + suffix, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size > 0 else { continue }
            throw CLIError(
                ExitCode.badData,
                "\(path)\(suffix) is there but \(path) holds no database: that \(what) belongs to another database (or "
                    + "to a file removed without it), and SQLite would take it for the new file's own; nothing was "
                    + "changed: move it away (mv \(path)\(suffix) \(path)\(suffix).other), or put back the file it "
                    + "belongs to")
        }
    }

    /// When `path` is named as SQLite names another database's companion files (`X-wal`, `X-shm` or `X-journal`
    /// beside an SQLite file `X`): `X` and what that file is to it. SQLite finds those files by name alone, so
    /// it takes whatever is there for its own: an invalid log or journal is deleted, a -shm rewritten.
    static func companion(_ path: String) -> (database: String, what: String)? {
        let kinds = [("-wal", "write-ahead log"), ("-shm", "shared-memory index"), ("-journal", "rollback journal")]
        for (suffix, what) in kinds where path.hasSuffix(suffix) && path.count > suffix.count {
            let database = String(path.dropLast(suffix.count))
            var st = stat()
            guard !database.hasSuffix("/"), stat(database, &st) == 0, st.st_mode & S_IFMT == S_IFREG,
                looksLikeSQLite(database) == true
            else { continue }
            return (database, what)
        }
        return nil
    }

    /// Inputs must be regular files or folders: a FIFO, a pipe or a device would block or never end.
    static func checkInputs(_ paths: [String]) throws {
        for path in paths {
            var st = stat()
            guard stat(path, &st) == 0 else { continue }  // the importer names missing files itself
            let type = st.st_mode & S_IFMT
            if type == S_IFREG || type == S_IFDIR { continue }
            throw CLIError(
                ExitCode.missingInput,
                "\(path) is \(describe(type)), not a file: Urna reads its inputs more than once (to recognise them, "
                    + "then to import them) and needs their size; save the data to a file and import that (nothing was changed)"
            )
        }
    }

    static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: "a FIFO (a pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a folder"
        default: "not a regular file"
        }
    }

    /// The `application_id` of an SQLite file (big-endian at offset 68 of its header), nil when the file is
    /// not an SQLite file or is too short to have one.
    static func applicationID(_ path: String) -> UInt32? {
        let header = firstBytes(path, 72)
        guard header.count == 72, header.starts(with: sqliteMagic) else { return nil }
        return header[68..<72].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Whether a file that has bytes starts as every SQLite database does ("SQLite format 3\0"); nil when it
    /// has none or cannot be read (an empty file is a new database to SQLite).
    static func looksLikeSQLite(_ path: String) -> Bool? {
        let head = firstBytes(path, sqliteMagic.count)
        return head.isEmpty ? nil : head == sqliteMagic
    }

    static let sqliteMagic = Array("SQLite format 3\0".utf8)

    /// Up to `count` bytes from the start of `path` (fewer for a short file, none when it cannot be opened),
    /// without blocking on a FIFO.
    static func firstBytes(_ path: String, _ count: Int) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
        return n > 0 ? Array(bytes.prefix(n)) : []
    }
}
