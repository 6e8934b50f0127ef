import Foundation
import UrnaStore

/// Exit codes, as README documents them.
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let badData: Int32 = 65
    static let missingInput: Int32 = 66
}

/// An error that already knows its exit code and message.
struct CLIError: Error {
    let code: Int32
    let message: String
    init(_ code: Int32, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// One subcommand: its spec and what it does.
struct Command: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws -> Int32
}

enum CLI {
    static let version = "0.1.0"

    static var commands: [Command] {
        [InitCommand.command, StatusCommand.command, QueryCommand.command, SchemaCommand.command,
         ImportCommand.command, ShowCommand.command, MigrateCommand.command, ExportCommand.command]
    }

    static func overview() -> String {
        var s = """
            OVERVIEW: urna — load Brazil's TSE candidate dumps into a clean object graph in plain SQLite,
            and upgrade those files safely from one schema version to the next.

            USAGE: urna <subcommand> [options]

            SUBCOMMANDS:

            """
        for c in commands { s += "  " + c.spec.name.padding(toLength: 12, withPad: " ", startingAt: 0) + c.spec.abstract + "\n" }
        s += """

            OPTIONS:
              --help      Show help (also: urna <subcommand> --help).
              --version   Show the version.

            Default database: urna.sqlite in the current folder (--db PATH to choose another).
            Exit codes: 0 ok, 1 failure, 64 bad usage, 65 bad data, 66 missing input.

            """
        return s
    }

    static func main(_ args: [String]) -> Int32 {
        guard let first = args.first else {
            FileHandle.standardError.write(Data(overview().utf8))
            return ExitCode.usage
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", args.count > 1, let c = commands.first(where: { $0.spec.name == args[1] }) {
                print(c.spec.helpText(), terminator: "")
            } else {
                print(overview(), terminator: "")
            }
            return ExitCode.ok
        }
        if first == "--version" {
            print("urna \(version)")
            return ExitCode.ok
        }
        guard let command = commands.first(where: { $0.spec.name == first }) else {
            var msg = "Error: unknown subcommand '\(first)'"
            if let hint = ArgumentParser.suggestion(for: first, among: commands.map(\.spec.name)) { msg += "; did you mean '\(hint)'?" }
            printError(msg + "\nRun 'urna --help' for the list of subcommands.")
            return ExitCode.usage
        }
        let rest = Array(args.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            print(command.spec.helpText(), terminator: "")
            return ExitCode.ok
        }
        do {
            let parsed = try ArgumentParser.parse(rest, spec: command.spec)
            return try command.run(parsed)
        } catch let e as UsageError {
            printError("Error: \(e.message)\nUsage: \(command.spec.usage)\nSee 'urna \(command.spec.name) --help'.")
            return ExitCode.usage
        } catch let e as CLIError {
            printError("Error: \(e.message)")
            return e.code
        } catch {
            let (code, message) = classify(error)
            printError("Error: \(message)")
            return code
        }
    }

    /// Maps library errors to exit codes.
    static func classify(_ error: Error) -> (Int32, String) {
        if let e = error as? ExitCodeProviding {
            // Only the documented codes leave the tool; anything else a library suggests is a failure.
            let documented: Set<Int32> = [ExitCode.ok, ExitCode.failure, ExitCode.usage, ExitCode.badData, ExitCode.missingInput]
            return (documented.contains(e.exitCode) && e.exitCode != 0 ? e.exitCode : ExitCode.failure, "\(error)")
        }
        switch error {
        case let e as QueryPredicateError: return (ExitCode.usage, "\(e)")
        case let e as StoreError:
            switch e {
            case .unknownType, .unknownProperty: return (ExitCode.usage, "\(e)")
            default: return (ExitCode.badData, "\(e)")
            }
        case let e as SchemaError: return (ExitCode.badData, "\(e)")
        case let e as SQLiteError:
            if e.isReadOnly { return (ExitCode.failure, "the database is read-only: \(e.message)") }
            if e.isBusy { return (ExitCode.failure, "the database is locked by another process; try again when it finishes (\(e.message))") }
            if e.isDiskFull { return (ExitCode.failure, "the disk is full; nothing was changed (\(e.message))") }
            return (ExitCode.failure, "\(e)")
        default: return (ExitCode.failure, "\(error)")
        }
    }

    static func printError(_ s: String) {
        FileHandle.standardError.write(Data((s.hasSuffix("\n") ? s : s + "\n").utf8))
    }
}

/// Errors from the libraries that know which exit code they mean.
protocol ExitCodeProviding { var exitCode: Int32 { get } }

/// Standard `--db` handling: the path given, or urna.sqlite here.
func databasePath(_ p: ParsedArguments) -> String { p.value("db") ?? "urna.sqlite" }

/// Opens an existing Urna file, with exit code 66 when it is missing.
func openExistingStore(_ path: String, readOnly: Bool = false) throws -> Store {
    guard FileManager.default.fileExists(atPath: path) else {
        throw CLIError(ExitCode.missingInput, "\(path) does not exist: give --db PATH, or create it with `urna init` or `urna import`")
    }
    return try Store.openExisting(path: path, readOnly: readOnly)
}
