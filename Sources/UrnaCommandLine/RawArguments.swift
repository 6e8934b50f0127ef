import Foundation
import UrnaImport

/// The process's arguments as the bytes the shell passed. Swift's `CommandLine.arguments` decodes them as UTF-8 and
/// turns bytes that are not (a Latin-1 file name, `caf\xE9.sqlite`) into U+FFFD: `--out out\xFF.json` wrote
/// `out\u{FFFD}.json`, a file the user never named, with exit 0, and `--db caf\xE9.sqlite` said the file did not
/// exist. Such an argument is refused before anything runs.
enum RawArguments {
    /// The process's arguments after the program name, as bytes.
    static func current() -> [[UInt8]] {
        let argv = CommandLine.unsafeArgv
        return (1..<Int(CommandLine.argc)).map { i in
            guard let p = argv[i] else { return [] }
            return Array(
                UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p)))
        }
    }

    /// The refusal for the first argument that is not valid UTF-8, or nil when every one is. The argument is shown
    /// on one line, each byte that is not UTF-8 as `\xNN` and control characters escaped: it was echoed raw, so a
    /// line feed in it forged an output line of its own. The advice fits any argument (SQL text, a --param value),
    /// not only a file name.
    static func refusal(_ arguments: [[UInt8]], toolName: String = "urna") -> String? {
        for (k, bytes) in arguments.enumerated() where String(validating: bytes, as: UTF8.self) == nil {
            return "argument \(k + 1) (\(shown(bytes))) is not UTF-8 text, and \(toolName) would read it as "
                + "another text (each byte it cannot read becomes \u{FFFD}); give it as UTF-8 text; for a file "
                + "name, rename the file to UTF-8 (e.g. convmv -f latin1 -t utf8 NAME) or give its path in UTF-8; "
                + "nothing was read or changed"
        }
        return nil
    }

    /// `bytes` as one terminal-safe line: its UTF-8 runs through `TerminalSafe.line`, every other byte as `\xNN`.
    static func shown(_ bytes: [UInt8]) -> String {
        var out = ""
        var run: [UInt8] = []
        var parser = Unicode.UTF8.ForwardParser()
        var input = bytes.makeIterator()
        var offset = 0
        func flush() {
            out += TerminalSafe.line(String(decoding: run, as: UTF8.self))
            run = []
        }
        while true {
            switch parser.parseScalar(from: &input) {
            case .valid(let scalar):
                run += scalar
                offset += scalar.count
            case .error(let length):
                flush()
                for byte in bytes[offset..<offset + length] {
                    let hex = String(byte, radix: 16, uppercase: true)
                    out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
                }
                offset += length
            case .emptyInput:
                flush()
                return out
            }
        }
    }
}
