import Foundation

/// Runs the built `urna` binary and captures what it printed.
struct CLIResult {
    let code: Int32
    let stdout: String
    let stderr: String
}

enum CLIRunner {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var binary: URL { built("urna") }

    /// A product of this package as built (debug first, then release): `urna` or an example app.
    static func built(_ product: String) -> URL {
        for config in ["debug", "release"] {
            let u = packageRoot.appendingPathComponent(".build/\(config)/\(product)")
            if FileManager.default.isExecutableFile(atPath: u.path) { return u }
        }
        return packageRoot.appendingPathComponent(".build/debug/\(product)")
    }

    static func run(_ args: [String], in dir: URL? = nil) throws -> CLIResult {
        try runProcess(binary, args, in: dir)
    }

    /// Runs any program with output captured in files (not pipes: a chatty program never blocks on a pipe
    /// nobody reads yet); standard input is /dev/null.
    static func runProcess(_ executable: URL, _ args: [String], in dir: URL? = nil) throws -> CLIResult {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        if let dir { p.currentDirectoryURL = dir }
        let dir = FileManager.default.temporaryDirectory
        let outURL = dir.appendingPathComponent("urna-cli-out-\(UUID().uuidString)")
        let errURL = dir.appendingPathComponent("urna-cli-err-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try out.close()
        try err.close()
        return CLIResult(code: p.terminationStatus, stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                         stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    static func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("urna-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }
}
