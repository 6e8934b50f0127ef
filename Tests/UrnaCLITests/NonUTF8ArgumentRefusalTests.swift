import Testing

@testable import UrnaCommandLine

/// The refusal of an argument that is not UTF-8 echoed it raw: a line feed in it forged an output line of its own
/// (`--db "$(printf 'x\377\nrestored: ...')"`), and its advice (rename the file with convmv) fitted only file names,
/// not SQL text or a --param value.
@Suite struct NonUTF8ArgumentRefusalTests {
    @Test("The argument is shown on one line, its unreadable bytes as \\xNN, and controls escaped")
    func escaped() throws {
        let bytes = Array("x".utf8) + [0xFF, 0x0A] + Array("restored: s.sqlite \u{202E}".utf8)
        let refusal = try #require(RawArguments.refusal([Array("status".utf8), bytes], toolName: "school-app"))
        #expect(!refusal.contains("\n"), "\(refusal)")
        #expect(
            refusal.contains("argument 2 (x\\xFF\\x0Arestored: s.sqlite \\u{202E}) is not UTF-8 text"), "\(refusal)")
        #expect(refusal.contains("school-app"), "\(refusal)")
    }

    @Test("The advice fits any argument: UTF-8 text, and for a file name a rename")
    func advice() throws {
        let refusal = try #require(RawArguments.refusal([[0x63, 0x61, 0x66, 0xE9]], toolName: "urna"))
        #expect(refusal.contains("argument 1 (caf\\xE9)"), "\(refusal)")
        #expect(refusal.contains("give it as UTF-8 text"), "\(refusal)")
        #expect(
            refusal.contains("for a file name, rename the file to UTF-8 (e.g. convmv -f latin1 -t utf8"), "\(refusal)")
        #expect(refusal.hasSuffix("nothing was read or changed"), "\(refusal)")
        #expect(RawArguments.refusal([Array("café".utf8)], toolName: "urna") == nil)
    }
}
