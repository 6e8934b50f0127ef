import Foundation
import Testing

@Suite("urna completion")
struct CLICompletionTests {
    @Test("The bash script parses (bash -n) and completes subcommands and options")
    func bash() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLIRunner.run(["completion", "bash"])
        #expect(r.code == 0)
        let script = dir.appendingPathComponent("urna.bash")
        try Data(r.stdout.utf8).write(to: script)
        let syntax = try Shell.run("bash", ["-n", script.path])
        #expect(syntax.code == 0, "\(syntax.stderr)")
        func complete(_ words: [String]) throws -> [String] {
            let setup =
                "source '\(script.path)'; COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " "))); "
                + "COMP_CWORD=\(words.count - 1); _urna_complete; printf '%s\\n' \"${COMPREPLY[@]}\""
            let out = try Shell.run("bash", ["-c", setup])
            #expect(out.code == 0, "\(out.stderr)")
            return out.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["urna", "s"]).sorted() == ["schema", "show", "sql", "status"])
        #expect(try complete(["urna", "d"]).sorted() == ["datasette-metadata", "download"])
        #expect(try complete(["urna", "sql", "--p"]) == ["--param"])
        #expect(try complete(["urna", "query", "--l"]) == ["--limit"])
    }

    @Test("zsh and fish scripts name every subcommand (and parse, where the shell is installed)")
    func zshAndFish() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        for shell in ["zsh", "fish"] {
            let r = try CLIRunner.run(["completion", shell])
            #expect(r.code == 0)
            for c in CLIBasicsTests.subcommands { #expect(r.stdout.contains(c), "\(shell) lacks \(c)") }
            let file = dir.appendingPathComponent("urna.\(shell)")
            try Data(r.stdout.utf8).write(to: file)
            let binary = ["/usr/bin/\(shell)", "/bin/\(shell)"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }
            if let binary {
                let syntax = try CLIRunner.runProcess(URL(fileURLWithPath: binary), ["-n", file.path])
                #expect(syntax.code == 0, "\(shell): \(syntax.stderr)")
            }
        }
        #expect(try CLIRunner.run(["completion", "tcsh"]).code == 64)
    }
}
