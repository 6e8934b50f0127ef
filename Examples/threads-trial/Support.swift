import Foundation
import Synchronization
import UrnaStore

/// Thread-safe tallies, printed at the end of each scenario (behind an NSLock: the thread sanitizer cannot see
/// `Synchronization.Mutex` on Linux and reports its users as races).
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var notes: [String] = []

    func add(_ name: String, _ n: Int = 1) { lock.withLock { counts[name, default: 0] += n } }
    subscript(name: String) -> Int { lock.withLock { counts[name] ?? 0 } }
    func note(_ s: String) { lock.withLock { if notes.count < 20 { notes.append(s) } } }

    func report(_ title: String) {
        let (c, n) = lock.withLock { (counts, notes) }
        print("== \(title)")
        for (k, v) in c.sorted(by: { $0.key < $1.key }) { print("   \(k): \(v)") }
        for line in n { print("   note: \(line)") }
    }
}

enum Files {
    static func fresh(_ name: String) -> String {
        let dir = NSTemporaryDirectory() + "threads-trial-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/" + name
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return path
    }
}

/// An independent look at the file: the sqlite3 command-line tool, not Urna.
enum SQLite3 {
    static func query(_ path: String, _ sql: String) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [path, sql]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try? p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func int(_ path: String, _ sql: String) -> Int { Int(query(path, sql)) ?? -1 }
}

/// Runs this executable again as a child in `mode`.
func spawnChild(_ arguments: [String], stdout: FileHandle? = nil) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    p.arguments = arguments
    if let stdout { p.standardOutput = stdout }
    try p.run()
    return p
}

/// Fails the process when `body` does not return within `seconds` (a hang is a finding, not a wait).
/// `THREADS_TRIAL_WATCHDOG_SCALE` multiplies the limit (the thread sanitizer slows the trial 5-10 times).
func watchdog<T>(_ name: String, seconds limit: Double, _ body: () async throws -> T) async rethrows -> T {
    let scale = Double(ProcessInfo.processInfo.environment["THREADS_TRIAL_WATCHDOG_SCALE"] ?? "") ?? 1
    let seconds = limit * scale
    let done = Flag()
    let t = Thread {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if done.isSet { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        if !done.isSet {
            print("HANG: \(name) did not finish within \(seconds) s")
            exit(3)
        }
    }
    t.start()
    defer { done.set() }
    return try await body()
}

final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
