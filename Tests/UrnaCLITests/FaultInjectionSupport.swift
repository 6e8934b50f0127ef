import Foundation
import Testing

/// A small tmpfs mounted for one test: a real file system that runs out of space, or is remounted
/// read-only. Mounting needs root (CAP_SYS_ADMIN); without it `mount` throws `Unavailable` and the test
/// cancels itself with the reason, so a skip always shows in the test output.
final class SmallFileSystem {
    struct Unavailable: Error, CustomStringConvertible { let description: String }

    let directory: URL
    private var mounted = false

    /// Mounts a tmpfs of `kilobytes` KiB at a new folder under `parent`.
    init(kilobytes: Int, under parent: URL) throws {
        directory = parent.appendingPathComponent("fs-\(kilobytes)k-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let r = try Shell.run("mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0755", "tmpfs", directory.path])
        guard r.code == 0 else {
            try? FileManager.default.removeItem(at: directory)
            throw Unavailable(description: "cannot mount a tmpfs (mount exited \(r.code): "
                + "\(r.stderr.trimmingCharacters(in: .whitespacesAndNewlines))); this test needs root")
        }
        mounted = true
    }

    /// Mounts a tmpfs, or cancels the running test (a visible skip) saying why it could not.
    static func mountOrSkip(kilobytes: Int, under parent: URL) throws -> SmallFileSystem {
        do {
            return try SmallFileSystem(kilobytes: kilobytes, under: parent)
        } catch let e as Unavailable {
            try Test.cancel(Comment(rawValue: "skipped: \(e.description)"))
        }
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Free bytes left on the file system.
    var freeBytes: Int64 {
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: directory.path)
        return (attributes?[.systemFreeSize] as? NSNumber)?.int64Value ?? -1
    }

    func remountReadOnly() throws {
        let r = try Shell.run("mount", ["-o", "remount,ro", directory.path])
        guard r.code == 0 else { throw Unavailable(description: "remount read-only failed: \(r.stderr)") }
    }

    /// Unmounts (lazily if something still holds a file open) and removes the folder.
    func unmount() {
        guard mounted else { return }
        if (try? Shell.run("umount", [directory.path]))?.code != 0 { _ = try? Shell.run("umount", ["-l", directory.path]) }
        mounted = false
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { unmount() }
}

/// Runs system tools (sqlite3, mount, chattr) and captures what they print.
enum Shell {
    static func executable(_ name: String) -> String {
        for dir in ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        return "/usr/bin/\(name)"
    }

    static func run(_ tool: String, _ args: [String]) throws -> CLIResult {
        try CLIRunner.runProcess(URL(fileURLWithPath: executable(tool)), args)
    }

    /// `sqlite3 db sql`, stdout trimmed.
    static func sqlite(_ db: String, _ sql: String) throws -> String {
        try run("sqlite3", [db, sql]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// What a test compares to prove a failed command changed nothing: the main file's bytes, the whole content
/// as `sqlite3 .dump` prints it, the schema version; plus SQLite's own checks.
struct DatabaseSnapshot: Equatable {
    let bytes: Data
    let dump: String
    let userVersion: String

    /// `onReadOnlyMedia`: read through SQLite's `immutable=1` URI, since a WAL-mode file cannot otherwise be
    /// opened where its -shm cannot be created (only valid when no -wal holds committed data, as here).
    init(_ path: String, onReadOnlyMedia: Bool = false) throws {
        bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let name = Self.name(path, onReadOnlyMedia)
        dump = try Shell.run("sqlite3", [name, ".dump"]).stdout
        userVersion = try Shell.sqlite(name, "PRAGMA user_version")
    }

    static func checks(_ path: String, onReadOnlyMedia: Bool = false) throws -> String {
        try Shell.sqlite(name(path, onReadOnlyMedia), "PRAGMA integrity_check; PRAGMA foreign_key_check;")
    }

    private static func name(_ path: String, _ immutable: Bool) -> String {
        immutable ? "file:\(path)?immutable=1" : path
    }
}

/// Fixtures the fault tests share.
enum FaultFixtures {
    static let sample = CLIRunner.packageRoot.appendingPathComponent("SampleData")
    static func sampleFile(_ name: String) -> String { sample.appendingPathComponent(name).path }
    static var acPair: [String] { [sampleFile("consulta_cand_2016_AC.txt"), sampleFile("consulta_legendas_2016_AC.txt")] }
    static var mgPair: [String] { [sampleFile("consulta_cand_2018_MG.csv"), sampleFile("bem_candidato_2018_MG.csv")] }

    /// A people-family file at version 0 holding `rows` Person rows, as `urna init` makes it (WAL mode),
    /// filled with sqlite3 the way CLICrashSafetyTests does.
    static func peopleV0(at path: String, rows: Int) throws {
        let i = try CLIRunner.run(["init", "--db", path, "--family", "people", "--version", "0"])
        guard i.code == 0 else { throw CLIFailure("urna init: \(i.stderr)") }
        let fill = try Shell.run("sqlite3", [path,
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows)) "
                + "INSERT INTO Person(firstName, lastName, age) SELECT 'First' || x, 'Last' || x, x % 90 FROM c"])
        guard fill.code == 0 else { throw CLIFailure("sqlite3 fill: \(fill.stderr)") }
    }

    /// The files in a folder, sorted.
    static func listing(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    }
}

/// Another process holding a write transaction open on a database (sqlite3 with `BEGIN IMMEDIATE`),
/// until `release()`.
final class WriteLockHolder {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    /// Starts sqlite3, runs `BEGIN IMMEDIATE` and `statement`, and returns once the lock is held.
    init(database: String, statement: String) throws {
        process.executableURL = URL(fileURLWithPath: Shell.executable("sqlite3"))
        process.arguments = [database]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\n\(statement);\nSELECT 'locked';\n".utf8))
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("locked") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw CLIFailure("sqlite3 ended before it held the lock") }
            seen += chunk
        }
    }

    /// Rolls the transaction back and ends sqlite3.
    func release() {
        guard process.isRunning else { return }
        input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
    }
}
