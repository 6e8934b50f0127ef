import Foundation

/// Wall time and peak resident memory of one child process.
struct Measurement {
    let seconds: Double
    let peakMB: Double
    let output: String
}

enum BenchHarness {
    /// Runs this executable again with `args` (a `child-...` subcommand) and measures it.
    static func measureChild(_ args: [String]) throws -> Measurement {
        try measure(executable: CommandLine.arguments[0], args)
    }

    /// Runs any program and measures wall time and peak RSS (from wait4's rusage).
    static func measure(executable: String, _ args: [String], stdinPath: String? = nil) throws -> Measurement {
        let outPath = FileManager.default.temporaryDirectory.appendingPathComponent("urna-bench-\(UUID().uuidString).out").path
        FileManager.default.createFile(atPath: outPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        var fileActions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        posix_spawn_file_actions_addopen(&fileActions, 1, outPath, O_WRONLY | O_TRUNC, 0o644)
        if let stdinPath { posix_spawn_file_actions_addopen(&fileActions, 0, stdinPath, O_RDONLY, 0) }
        let argv = ([executable] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let rc = posix_spawnp(&pid, executable, &fileActions, nil, argv, environ)
        guard rc == 0 else { throw BenchError("cannot start \(executable): errno \(rc)") }
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        guard status == 0 else { throw BenchError("\(executable) \(args.joined(separator: " ")) failed (status \(status)): \(output)") }
        return Measurement(seconds: seconds, peakMB: Double(usage.ru_maxrss) / 1024, output: output)
    }

    static func temporaryDirectory() throws -> URL {
        let d = URL(fileURLWithPath: "bench-work", isDirectory: true)
        try? FileManager.default.removeItem(at: d)
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    static func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |" }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Seconds since an instant, for in-child timing.
func elapsed(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
