import Foundation

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

    /// The refusal for the first argument that is not valid UTF-8, or nil when every one is.
    static func refusal(_ arguments: [[UInt8]], toolName: String = "urna") -> String? {
        for (k, bytes) in arguments.enumerated() where String(validating: bytes, as: UTF8.self) == nil {
            return "argument \(k + 1) (\(String(decoding: bytes, as: UTF8.self))) is not UTF-8 text, and \(toolName) "
                + "would read it as another name (each byte it cannot read becomes \u{FFFD}); rename the file to a "
                + "UTF-8 name (convmv -f latin1 -t utf8 NAME) or give a path in UTF-8; nothing was read or changed"
        }
        return nil
    }
}
