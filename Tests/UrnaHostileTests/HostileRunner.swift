import CSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the built `urna` printed and returned.
struct RunResult {
    let code: Int32
    let stdout: String
    let stderr: String
    /// Wall-clock seconds the run took.
    let seconds: Double
    /// The process id the run had (sh execs urna, so it is urna's).
    let pid: Int32
}

/// Runs the built binary (like Tests/UrnaCLITests/CLIRunner, copied so this target stands alone), and the
/// file helpers the attacks need: digests, modes, listings, SQL on the side.
enum Hostile {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sampleData = packageRoot.appendingPathComponent("SampleData")

    /// The built binary: `URNA_HOSTILE_BINARY` when set (to run the attacks on another build), else debug,
    /// else release.
    static var binary: String {
        if let chosen = ProcessInfo.processInfo.environment["URNA_HOSTILE_BINARY"], !chosen.isEmpty { return chosen }
        for config in ["debug", "release"] {
            let u = packageRoot.appendingPathComponent(".build/\(config)/urna")
            if FileManager.default.isExecutableFile(atPath: u.path) { return u.path }
        }
        return packageRoot.appendingPathComponent(".build/debug/urna").path
    }

    /// Runs `urna args` in `dir` with umask 000 (so every mode the tool sets is its own doing); `signal`,
    /// when given, is sent `after` seconds. `redirections` are the shell's, applied to urna (`3>out.csv`).
    /// `timeout`: a run still going after that many seconds is killed (SIGKILL), so a hang fails, not waits.
    /// `ignoring`: signal names (`HUP`, `INT`) the shell sets to "ignore" before it execs urna, as `nohup` or a
    /// shell's background job does.
    @discardableResult
    static func urna(
        _ args: [String], in dir: URL, signal: Int32? = nil, after: Double = 0, redirections: String = "",
        timeout: Double? = nil, ignoring: [String] = []
    ) throws -> RunResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        let traps = ignoring.map { "trap '' \($0); " }.joined()
        p.arguments = ["-c", "umask 000; \(traps)exec \"$0\" \"$@\" \(redirections)", binary] + args
        p.currentDirectoryURL = dir
        let out = dir.appendingPathComponent("../\(dir.lastPathComponent).out").standardizedFileURL
        let err = dir.appendingPathComponent("../\(dir.lastPathComponent).err").standardizedFileURL
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        let o = try FileHandle(forWritingTo: out)
        let e = try FileHandle(forWritingTo: err)
        p.standardOutput = o
        p.standardError = e
        p.standardInput = FileHandle.nullDevice
        let start = Date()
        try p.run()
        if let signal {
            Thread.sleep(forTimeInterval: after)
            kill(p.processIdentifier, signal)
        }
        if let timeout {
            while p.isRunning && Date().timeIntervalSince(start) < timeout { Thread.sleep(forTimeInterval: 0.01) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        }
        p.waitUntilExit()
        try o.close()
        try e.close()
        return RunResult(
            code: p.terminationStatus, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self),
            seconds: Date().timeIntervalSince(start), pid: p.processIdentifier)
    }

    /// Runs a system tool (`/bin/mount`, `/bin/umount`) with its output discarded, returning its exit status.
    static func tool(_ path: String, _ args: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// A new empty folder for one test (its own, so listings compare).
    static func folder() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("urna-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// Copies a SampleData file into `dir`.
    @discardableResult
    static func sample(_ name: String, into dir: URL, as newName: String? = nil) throws -> String {
        let target = dir.appendingPathComponent(newName ?? name)
        try FileManager.default.copyItem(at: sampleData.appendingPathComponent(name), to: target)
        return target.lastPathComponent
    }

    static func bytes(_ dir: URL, _ name: String) -> Data? { try? Data(contentsOf: dir.appendingPathComponent(name)) }

    /// Names in `dir` (symlinks included, not followed), sorted.
    static func listing(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    }

    /// Permission bits of a file (not following a symlink).
    static func mode(_ dir: URL, _ name: String) -> Int? {
        var st = stat()
        guard lstat(dir.appendingPathComponent(name).path, &st) == 0 else { return nil }
        return Int(st.st_mode & 0o777)
    }

    /// Reads the FIFO at `fifo` to its end on a thread of its own, then writes the byte count to `<fifo>.count`.
    static func drainFIFO(_ fifo: String) {
        let reader = Thread {
            let fd = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 65536)
            var total = 0
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                total += n
            }
            close(fd)
            try? String(total).write(toFile: fifo + ".count", atomically: true, encoding: .utf8)
        }
        reader.start()
    }

    static func fileType(_ path: String) -> mode_t? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return st.st_mode & S_IFMT
    }

    /// Runs SQL on a database file directly (the attacker's edits), returning the first column of each row.
    @discardableResult
    static func sql(_ path: String, _ statements: String) throws -> [String] {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw SQLFailure(message: "cannot open \(path)") }
        defer { sqlite3_close(db) }
        var rows: [String] = []
        var rest = statements
        while !rest.isEmpty {
            var stmt: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let ok = rest.withCString { p -> Bool in
                guard sqlite3_prepare_v2(db, p, -1, &stmt, &tail) == SQLITE_OK else { return false }
                rest = tail.map { String(cString: $0) } ?? ""
                return true
            }
            guard ok else { throw SQLFailure(message: String(cString: sqlite3_errmsg(db))) }
            guard let stmt else { break }
            defer { sqlite3_finalize(stmt) }
            while true {
                let rc = sqlite3_step(stmt)
                if rc == SQLITE_ROW {
                    rows.append(sqlite3_column_text(stmt, 0).map { String(cString: $0) } ?? "NULL")
                } else if rc == SQLITE_DONE {
                    break
                } else {
                    throw SQLFailure(message: String(cString: sqlite3_errmsg(db)))
                }
            }
            rest = rest.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return rows
    }

    struct SQLFailure: Error { let message: String }

    /// An elections database with the MG sample's candidates and goods, made by `urna import`.
    static func importedDatabase(in dir: URL, name: String = "db.sqlite") throws -> String {
        let cand = try sample("consulta_cand_2018_MG.csv", into: dir, as: "cand.csv")
        let goods = try sample("bem_candidato_2018_MG.csv", into: dir, as: "bens.csv")
        let r = try urna(["import", "--db", name, "--quiet", cand, goods], in: dir)
        guard r.code == 0 else { throw SQLFailure(message: "setup import failed: \(r.stderr)") }
        return name
    }
}
