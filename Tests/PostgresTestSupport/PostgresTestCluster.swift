// A real, throwaway PostgreSQL server for tests.
//
// The server runs from a temporary folder, listens on 127.0.0.1 only (plus a
// Unix socket inside that folder), on a free port, with durability switched
// off for speed. One cluster per test process: `PostgresTestCluster.shared()`
// starts it on first use; an atexit handler stops it and removes the folder.
// If the test process dies without running atexit handlers (a crash, SIGKILL),
// a small watchdog shell, holding the read end of a pipe whose write end only
// this process holds, notices end-of-file and stops the server and removes the
// folder.
//
// When the tests run as root (initdb and postgres refuse root), initdb and
// postgres run as the `postgres` system user through setpriv (or runuser), and
// the temporary folder belongs to that user.

import Foundation

public final class PostgresTestCluster: @unchecked Sendable {

    /// Why there is no server: nil when one runs. Tests call `try XCTSkipIf(reason != nil, reason)`-style checks themselves.
    public struct Unavailable: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
        init(_ reason: String) { self.reason = reason }
    }

    public let port: Int
    public let host: String
    public let binDirectory: String

    /// The temporary folder: `data/` (the cluster), `postgres.log`, and the Unix socket.
    let directory: String
    private let dataDirectory: String
    private let logPath: String
    private let runAs: RunAs
    private let server: Process
    private let watchdog: Process?
    private let watchdogPipe: Pipe?
    private let lock = NSLock()
    private var stopped = false
    private var databaseCounter = 0

    private init(port: Int, binDirectory: String, directory: String, dataDirectory: String, logPath: String,
                 runAs: RunAs, server: Process, watchdog: Process?, watchdogPipe: Pipe?) {
        self.port = port
        self.host = "127.0.0.1"
        self.binDirectory = binDirectory
        self.directory = directory
        self.dataDirectory = dataDirectory
        self.logPath = logPath
        self.runAs = runAs
        self.server = server
        self.watchdog = watchdog
        self.watchdogPipe = watchdogPipe
    }

    // MARK: - The shared cluster

    private final class SharedState: @unchecked Sendable {
        let lock = NSLock()
        var cluster: PostgresTestCluster?
        var failure: Unavailable?
        var atexitRegistered = false
    }

    private static let state = SharedState()

    /// One cluster per test process, started on first use, stopped by an atexit handler (and by stop()).
    /// Throws Unavailable with a clear reason ("PostgreSQL server binaries not found (install Debian's postgresql; make test does)", or the initdb/start failure with log tail) when it cannot run.
    public static func shared() throws -> PostgresTestCluster {
        let state = Self.state
        state.lock.lock()
        defer { state.lock.unlock() }
        if let failure = state.failure { throw failure }
        if let cluster = state.cluster, !cluster.isStopped { return cluster }
        do {
            let cluster = try start()
            state.cluster = cluster
            if !state.atexitRegistered {
                state.atexitRegistered = true
                atexit { PostgresTestCluster.stopSharedAtExit() }
            }
            return cluster
        } catch let error as Unavailable {
            state.failure = error
            throw error
        } catch {
            let failure = Unavailable("PostgreSQL test server could not start: \(error)")
            state.failure = failure
            throw failure
        }
    }

    /// The shared cluster, or nil with the reason when none can run; under URNA_REQUIRE_POSTGRES=1 (set by
    /// `make test` when it installed the server) a missing server is an error instead, so it fails the test.
    public static func sharedIfAvailable() throws -> (cluster: PostgresTestCluster?, reason: String) {
        do {
            return (try shared(), "")
        } catch let e as Unavailable {
            if ProcessInfo.processInfo.environment["URNA_REQUIRE_POSTGRES"] == "1" { throw e }
            return (nil, "skipped: no PostgreSQL server: \(e.reason)")
        }
    }

    private static func stopSharedAtExit() {
        // No lock here: a test that exits from inside shared() must not deadlock.
        state.cluster?.stop()
    }

    // MARK: - Using it

    /// postgresql://urna@127.0.0.1:PORT/NAME
    public func url(database: String) -> String {
        let name = database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#@:"))) ?? database
        return "postgresql://urna@\(host):\(port)/\(name)"
    }

    /// Creates a fresh database with a unique name built from `prefix` (lowercase letters, digits, _), returns its URL.
    public func createDatabase(prefix: String) throws -> String {
        var cleaned = String(prefix.lowercased().map { ch -> Character in
            (ch.isASCII && (ch.isLetter || ch.isNumber)) || ch == "_" ? ch : "_"
        })
        if cleaned.isEmpty || cleaned.first!.isNumber { cleaned = "db_" + cleaned }
        let counter: Int = lock.withLock {
            databaseCounter += 1
            return databaseCounter
        }
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let suffix = "_\(getpid())_\(counter)_\(random)"
        let name = String(cleaned.prefix(63 - suffix.count)) + suffix
        _ = try psql("CREATE DATABASE \"\(name)\"", url: url(database: "postgres"))
        return url(database: name)
    }

    /// Runs psql (from binDirectory or PATH) with -X -A -t -q -v ON_ERROR_STOP=1 -c SQL against the database URL; returns stdout; throws with stderr on failure.
    public func psql(_ sql: String, url: String) throws -> String {
        let local = (binDirectory as NSString).appendingPathComponent("psql")
        let (executable, prefix) = FileManager.default.isExecutableFile(atPath: local)
            ? (local, [String]()) : ("/usr/bin/env", ["psql"])
        let result = try Self.run(executable, prefix + ["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql, "-d", url],
                                  environment: Self.childEnvironment(binDirectory: binDirectory, port: port, host: host),
                                  directory: nil, timeout: 300)
        guard result.status == 0 else {
            throw Unavailable("psql failed (exit \(result.status)) for \(url): \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))\nSQL: \(sql)")
        }
        return result.stdout
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Stops the server at once (immediate shutdown) and removes the temporary folder. Safe to call twice.
    public func stop() {
        let already: Bool = lock.withLock {
            defer { stopped = true }
            return stopped
        }
        if already { return }
        // The watchdog first, so it cannot act on a pid that no longer is the server's.
        if let watchdog, watchdog.isRunning {
            kill(watchdog.processIdentifier, SIGKILL)
        }
        Self.terminate(server)
        try? watchdogPipe?.fileHandleForWriting.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// SIGQUIT is PostgreSQL's immediate shutdown (what `pg_ctl -m immediate stop` sends); SIGKILL if that takes over 5 s.
    private static func terminate(_ server: Process) {
        guard server.isRunning else { return }
        let pid = server.processIdentifier
        kill(pid, SIGQUIT)
        if !waitForExit(server, seconds: 5) {
            kill(pid, SIGKILL)
            _ = waitForExit(server, seconds: 5)
        }
    }

    private static func waitForExit(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    // MARK: - Starting

    /// How initdb and postgres are run: as this user, or (when root) as `postgres`.
    private struct RunAs: Sendable {
        let uid: uid_t
        let gid: gid_t
        let wrapper: [String]   // e.g. ["/usr/bin/setpriv", "--reuid=101", ...]; empty when not root

        func command(_ executable: String, _ arguments: [String]) -> (String, [String]) {
            guard let first = wrapper.first else { return (executable, arguments) }
            return (first, Array(wrapper.dropFirst()) + [executable] + arguments)
        }
    }

    private static func start() throws -> PostgresTestCluster {
        guard let bin = findBinDirectory() else {
            throw Unavailable("PostgreSQL server binaries not found (install Debian's postgresql; make test does)")
        }
        let runAs = try makeRunAs()
        let directory = try makeTemporaryDirectory(owner: runAs)
        var keepDirectory = false
        defer { if !keepDirectory { try? FileManager.default.removeItem(atPath: directory) } }

        let data = (directory as NSString).appendingPathComponent("data")
        let logPath = (directory as NSString).appendingPathComponent("postgres.log")
        try initdb(bin: bin, data: data, directory: directory, runAs: runAs)

        var lastFailure = ""
        for _ in 0..<5 {
            let port = try freePort()
            switch try launch(bin: bin, data: data, directory: directory, logPath: logPath, port: port, runAs: runAs) {
            case .running(let server):
                let (watchdog, pipe) = startWatchdog(serverPID: server.processIdentifier, directory: directory)
                keepDirectory = true
                return PostgresTestCluster(port: port, binDirectory: bin, directory: directory, dataDirectory: data,
                                           logPath: logPath, runAs: runAs, server: server, watchdog: watchdog, watchdogPipe: pipe)
            case .portTaken(let log):
                lastFailure = log
                continue
            }
        }
        throw Unavailable("PostgreSQL test server could not bind a port on 127.0.0.1 after 5 tries:\n\(lastFailure)")
    }

    /// The newest /usr/lib/postgresql/*/bin with initdb and postgres, else `pg_config --bindir`.
    private static func findBinDirectory() -> String? {
        let fm = FileManager.default
        func usable(_ dir: String) -> Bool {
            fm.isExecutableFile(atPath: dir + "/initdb") && fm.isExecutableFile(atPath: dir + "/postgres")
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? fm.contentsOfDirectory(atPath: root)) ?? [])
            .sorted { $0.compare($1, options: .numeric) == .orderedDescending }
        for version in versions where usable("\(root)/\(version)/bin") {
            return "\(root)/\(version)/bin"
        }
        for pgConfig in ["/usr/bin/pg_config", "/usr/local/bin/pg_config"] where fm.isExecutableFile(atPath: pgConfig) {
            if let result = try? run(pgConfig, ["--bindir"], environment: childEnvironment(binDirectory: nil),
                                     directory: nil, timeout: 10),
               result.status == 0 {
                let dir = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                if usable(dir) { return dir }
            }
        }
        if let result = try? run("/usr/bin/env", ["pg_config", "--bindir"], environment: childEnvironment(binDirectory: nil),
                                 directory: nil, timeout: 10),
           result.status == 0 {
            let dir = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            if usable(dir) { return dir }
        }
        return nil
    }

    private static func makeRunAs() throws -> RunAs {
        guard getuid() == 0 else { return RunAs(uid: getuid(), gid: getgid(), wrapper: []) }
        guard let entry = getpwnam("postgres") else {
            throw Unavailable("running as root, and there is no 'postgres' system user to run the PostgreSQL test server as (initdb and postgres refuse root)")
        }
        let uid = entry.pointee.pw_uid
        let gid = entry.pointee.pw_gid
        let fm = FileManager.default
        for setpriv in ["/usr/bin/setpriv", "/bin/setpriv"] where fm.isExecutableFile(atPath: setpriv) {
            return RunAs(uid: uid, gid: gid, wrapper: [setpriv, "--reuid=\(uid)", "--regid=\(gid)", "--init-groups", "--"])
        }
        for runuser in ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"] where fm.isExecutableFile(atPath: runuser) {
            return RunAs(uid: uid, gid: gid, wrapper: [runuser, "-u", "postgres", "--"])
        }
        throw Unavailable("running as root, and neither setpriv nor runuser is there to run the PostgreSQL test server as 'postgres'")
    }

    private static func makeTemporaryDirectory(owner: RunAs) throws -> String {
        // The socket path must stay short (about 107 bytes), and `postgres` must reach the folder: /tmp when root.
        var base = "/tmp"
        if getuid() != 0 {
            let tmp = NSTemporaryDirectory()
            if tmp.utf8.count < 60, FileManager.default.fileExists(atPath: tmp) { base = tmp }
        }
        var template = Array(((base as NSString).appendingPathComponent("urna-pg-XXXXXX")).utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            mkdtemp(buffer.baseAddress!) != nil
        }
        guard made else { throw Unavailable("could not create a temporary folder in \(base): \(String(cString: strerror(errno)))") }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if getuid() == 0, chown(path, owner.uid, owner.gid) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: path)
            throw Unavailable("could not give \(path) to the postgres user: \(reason)")
        }
        return path
    }

    private static func initdb(bin: String, data: String, directory: String, runAs: RunAs) throws {
        var failures: [String] = []
        for locale in ["C.UTF-8", "C"] {
            try? FileManager.default.removeItem(atPath: data)
            let (executable, arguments) = runAs.command(bin + "/initdb", [
                "-D", data, "-A", "trust", "-U", "urna", "-E", "UTF8", "--locale=\(locale)", "--no-sync", "--no-instructions",
            ])
            let result = try run(executable, arguments, environment: childEnvironment(binDirectory: bin),
                                 directory: directory, timeout: 120)
            if result.status == 0 { return }
            failures.append("initdb --locale=\(locale) failed (exit \(result.status)):\n\(tail(result.stdout + result.stderr))")
        }
        throw Unavailable("PostgreSQL test server: " + failures.joined(separator: "\n"))
    }

    private enum Launch { case running(Process), portTaken(String) }

    private static func launch(bin: String, data: String, directory: String, logPath: String, port: Int,
                               runAs: RunAs) throws -> Launch {
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        if getuid() == 0 { _ = chown(logPath, runAs.uid, runAs.gid) }
        guard let log = FileHandle(forWritingAtPath: logPath) else {
            throw Unavailable("could not open \(logPath)")
        }
        defer { try? log.close() }
        log.seekToEndOfFile()

        let (executable, arguments) = runAs.command(bin + "/postgres", [
            "-D", data, "-p", String(port), "-k", directory,
            "-c", "listen_addresses=127.0.0.1",
            "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
            "-c", "lc_messages=C", "-c", "logging_collector=off", "-c", "log_destination=stderr",
        ])
        let server = Process()
        server.executableURL = URL(fileURLWithPath: executable)
        server.arguments = arguments
        server.environment = childEnvironment(binDirectory: bin)
        server.currentDirectoryURL = URL(fileURLWithPath: directory)
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = log
        server.standardError = log
        do { try server.run() } catch {
            throw Unavailable("could not run \(executable): \(error)")
        }

        let deadline = Date().addingTimeInterval(30)
        let isReady = bin + "/pg_isready"
        let readyExecutable = FileManager.default.isExecutableFile(atPath: isReady) ? isReady : "/usr/bin/env"
        let readyArguments = (readyExecutable == isReady ? [] : ["pg_isready"])
            + ["-q", "-h", "127.0.0.1", "-p", String(port), "-U", "urna", "-d", "postgres", "-t", "2"]
        while true {
            if !server.isRunning {
                let text = tail(readFile(logPath))
                if text.contains("could not bind") || text.contains("Address already in use") {
                    return .portTaken(text)
                }
                throw Unavailable("PostgreSQL test server exited at start (status \(server.terminationStatus)); log tail:\n\(text)")
            }
            if let ready = try? run(readyExecutable, readyArguments, environment: childEnvironment(binDirectory: bin),
                                    directory: nil, timeout: 10),
               ready.status == 0 {
                return .running(server)
            }
            if Date() > deadline {
                terminate(server)
                throw Unavailable("PostgreSQL test server not ready on 127.0.0.1:\(port) after 30 s; log tail:\n\(tail(readFile(logPath)))")
            }
            usleep(50_000)
        }
    }

    /// A shell that waits for end-of-file on a pipe only this process can write to: if this process
    /// dies without stop(), it stops the server (immediate shutdown, then SIGKILL) and removes the folder.
    private static func startWatchdog(serverPID: Int32, directory: String) -> (Process?, Pipe?) {
        let pipe = Pipe()
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        let quoted = "'" + directory.replacingOccurrences(of: "'", with: "'\\''") + "'"
        watchdog.arguments = ["-c", """
            trap '' INT HUP
            while read -r _; do :; done
            kill -QUIT \(serverPID) 2>/dev/null
            i=0
            while kill -0 \(serverPID) 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
            kill -KILL \(serverPID) 2>/dev/null
            rm -rf \(quoted)
            """]
        watchdog.environment = ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"]
        watchdog.standardInput = pipe
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        do { try watchdog.run() } catch { return (nil, nil) }
        try? pipe.fileHandleForReading.close()
        return (watchdog, pipe)
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Unavailable("socket() failed: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw Unavailable("bind(127.0.0.1:0) failed: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Unavailable("getsockname() failed: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    // MARK: - Child processes

    /// This process's environment without PG* variables (PGPASSWORD, PGSSLMODE, PGOPTIONS... would leak into
    /// the children), with binDirectory first on PATH, and PGHOST/PGPORT/PGUSER when a server is known.
    private static func childEnvironment(binDirectory: String?, port: Int? = nil, host: String? = nil) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
        if let binDirectory { environment["PATH"] = binDirectory + ":" + path } else { environment["PATH"] = path }
        environment["PGCLIENTENCODING"] = "UTF8"
        environment["PGCONNECT_TIMEOUT"] = "10"
        if let port, let host {
            environment["PGHOST"] = host
            environment["PGPORT"] = String(port)
            environment["PGUSER"] = "urna"
        }
        return environment
    }

    private final class Collected: @unchecked Sendable {
        var data = Data()
    }

    private struct RunResult { let status: Int32; let stdout: String; let stderr: String }

    /// Runs a program to its end, reading stdout and stderr at the same time; terminates it after `timeout` seconds.
    private static func run(_ executable: String, _ arguments: [String], environment: [String: String],
                            directory: String?, timeout: Double) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outPipe
        process.standardError = errPipe
        try process.run()

        let errReader = errPipe.fileHandleForReading
        let errCollected = Collected()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errCollected.data = errReader.readDataToEndOfFile()
            group.leave()
        }
        let timer = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        let out = outPipe.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        timer.cancel()
        return RunResult(status: process.terminationStatus,
                         stdout: String(decoding: out, as: UTF8.self),
                         stderr: String(decoding: errCollected.data, as: UTF8.self))
    }

    private static func readFile(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func tail(_ text: String, lines: Int = 20) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}
