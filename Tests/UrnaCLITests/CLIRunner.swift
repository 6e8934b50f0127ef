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

    static var binary: URL {
        for config in ["debug", "release"] {
            let u = packageRoot.appendingPathComponent(".build/\(config)/urna")
            if FileManager.default.isExecutableFile(atPath: u.path) { return u }
        }
        return packageRoot.appendingPathComponent(".build/debug/urna")
    }

    static func run(_ args: [String], in dir: URL? = nil, stdin: String? = nil) throws -> CLIResult {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        if let dir { p.currentDirectoryURL = dir }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        var outData = Data(), errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return CLIResult(code: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
    }

    static func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("urna-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }
}
