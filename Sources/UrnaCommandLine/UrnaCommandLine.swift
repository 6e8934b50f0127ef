import Foundation
import UrnaMigrator
import UrnaStore

/// The `urna` command line as a library: an app's own executable gets every command for its own schema
/// families, with its own name in help and messages.
///
/// ```swift
/// // Sources/library-cli/main.swift of an app
/// import UrnaCommandLine
/// UrnaCommandLine.main(families: [LibrarySchema.family], toolName: "library-cli")
/// ```
public enum UrnaCommandLine {
    /// Runs the command named by the process's arguments for these families and exits with its code.
    /// `toolName` (default: the executable's file name) is used in help and messages; `appVersion` is
    /// recorded in each file's `_urna_history` by the runs of `migrate`.
    public static func main(families: [SchemaFamily], toolName: String? = nil, appVersion: String? = nil) -> Never {
        let name = toolName ?? (CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? "urna")
        Interruption.install()
        if let refusal = RawArguments.refusal(RawArguments.current(), toolName: name) {
            CLI.printError("Error: " + refusal)
            exit(ExitCode.usage)
        }
        let code = run(
            Array(CommandLine.arguments.dropFirst()), families: families, toolName: name, appVersion: appVersion)
        exit(checkedStandardOutput(Interruption.exitCode(after: code) ?? code))
    }

    /// `print` goes through stdio's buffer: a full disk or a closed stdout shows at the last flush, which `exit`
    /// would do without a word (`urna query ... > out.csv` on a full disk exited 0 with nothing written). A
    /// command that succeeded but whose output did not all get out fails with a message.
    static func checkedStandardOutput(_ code: Int32) -> Int32 {
        // fflush(NULL): every stdio output stream (stdout itself cannot be named from Swift 6); a failed write
        // leaves its bytes in the buffer, so this fails again.
        guard fflush(nil) != 0 else { return code }
        let why = String(cString: strerror(errno))
        guard code == ExitCode.ok else { return code }
        StandardError.write(
            "Error: cannot write standard output (\(why)); the output is incomplete (what the command changed, if anything, is kept)\n"
        )
        return ExitCode.failure
    }

    /// Runs one command line (without the program name) for these families and returns its exit code.
    /// Families declared inconsistently (two with one name, versions out of order, renames of properties a
    /// version lacks, ...) refuse every command but help and `--version`, naming the problems: with versions out
    /// of order `status` called v1 the latest and `init` made files a later build could not read.
    public static func run(
        _ arguments: [String], families: [SchemaFamily], toolName: String = "urna", appVersion: String? = nil
    ) -> Int32 {
        CommandContext.install(
            CommandContext(families: families, toolName: toolName, appVersion: appVersion, arguments: arguments))
        // What killed runs left and this run removes is named: nothing disappears without a word.
        LeftoverNotes.setHandler { removed in
            CLI.printError(
                "note: removed \(removed.path) (\(SpaceNeed.megabytes(removed.bytes))), left by a run that was stopped before it "
                    + "could clean up" + (removed.pid > 0 ? " (process \(removed.pid), no longer running)" : ""))
        }
        let problems = problems(of: families)
        if !problems.isEmpty, !["--help", "-h", "help", "--version"].contains(arguments.first ?? "--help") {
            StandardError.write(
                "Error: \(toolName)'s schema families are declared inconsistently (a bug in the program, not in "
                    + "any file; nothing was read or changed):\n"
                    + problems.map { "  - \($0)\n" }.joined())
            return ExitCode.failure
        }
        return CLI.main(arguments)
    }

    /// What is wrong with the families an executable declares: each family's own `problems()`, and a name given
    /// twice (the first would silently win).
    public static func problems(of families: [SchemaFamily]) -> [String] {
        var seen: Set<String> = []
        var out: [String] = []
        for f in families {
            if !seen.insert(f.name).inserted { out.append("family \(f.name) is given twice") }
            out += f.problems()
        }
        return out
    }
}

/// What the running command line knows: its families and the name it is called by.
struct CommandContext: Sendable {
    let families: [SchemaFamily]
    let toolName: String
    var appVersion: String? = nil
    /// The command line as typed (without the program name): `TypedText` escapes line breaks in its paths.
    var arguments: [String] = []

    /// What `_urna_history` records as the program that ran a migration: "library-app 2.1.0 (urna 0.1.0)".
    var ledgerVersion: String {
        let urna = "urna \(CLI.version)"
        if toolName == "urna" && appVersion == nil { return urna }
        return [toolName, appVersion].compactMap { $0 }.joined(separator: " ") + " (\(urna))"
    }

    /// The file commands use when `--db` is not given: `urna.sqlite` for urna, `<toolName>.sqlite` for an app's
    /// own executable (an app and urna in one folder never open each other's file by default).
    var defaultDatabase: String { toolName == "urna" ? "urna.sqlite" : "\(toolName).sqlite" }

    /// Whose data a database holds, as messages name it: "Urna data" for urna, "school-app data" for an app's
    /// executable (its users know the app, not the library under it).
    var dataName: String { toolName == "urna" ? "Urna data" : "\(toolName) data" }

    var registry: FamilyRegistry { FamilyRegistry(families) }
    var familyNames: String { families.map(\.name).joined(separator: ", ") }
    func family(named name: String) -> SchemaFamily? { families.first { $0.name == name } }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed = CommandContext(families: [], toolName: "urna")

    /// The context of this process's command line (set once by `UrnaCommandLine.run`).
    static var current: CommandContext {
        lock.lock()
        defer { lock.unlock() }
        return installed
    }

    static func install(_ context: CommandContext) {
        lock.lock()
        installed = context
        lock.unlock()
    }
}
