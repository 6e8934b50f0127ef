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

    /// Runs any program and measures wall time and its own peak RSS (VmHWM).
    static func measure(executable: String, _ args: [String], stdinPath: String? = nil) throws -> Measurement {
        let outPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "urna-bench-\(UUID().uuidString).out"
        ).path
        FileManager.default.createFile(atPath: outPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        var fileActions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        posix_spawn_file_actions_addopen(&fileActions, 1, outPath, O_WRONLY | O_TRUNC, 0o644)
        if let stdinPath { posix_spawn_file_actions_addopen(&fileActions, 0, stdinPath, O_RDONLY, 0) }
        let argv = ([executable] + args).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let rc = posix_spawnp(&pid, executable, &fileActions, nil, argv, environ)
        guard rc == 0 else { throw BenchError("cannot start \(executable): errno \(rc)") }
        // Peak memory comes from the child's own VmHWM, polled while it runs: wait4's ru_maxrss is wrong
        // here, because posix_spawn starts the child on the parent's memory (vfork) and exec carries that
        // high-water mark over.
        var status: Int32 = 0
        var peakKB = 0
        while true {
            peakKB = max(peakKB, highWaterKB(pid))
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 { throw BenchError("waitpid failed for \(executable)") }
            usleep(2000)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw BenchError("\(executable) \(args.joined(separator: " ")) failed (status \(status)): \(output)")
        }
        return Measurement(seconds: seconds, peakMB: Double(peakKB) / 1024, output: output)
    }

    /// VmHWM (peak resident set) of a running process, in kB; 0 when it cannot be read.
    static func highWaterKB(_ pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    static func temporaryDirectory() throws -> URL {
        let d = URL(fileURLWithPath: "bench-work", isDirectory: true)
        try? FileManager.default.removeItem(at: d)
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// The middle value (the mean of the two middle ones for an even count); 0 for none.
    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    static func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |" }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Seconds since an instant, for in-child timing.
func elapsed(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
