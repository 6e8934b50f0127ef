import Foundation
import SchoolFamily
import UrnaCommandLine

// A school's own executable: every urna command for its "school" family, under its own name.
// SCHOOL_APP_SQUASHED=1 ships the history squashed into a v2 baseline; SCHOOL_APP_V5=typo|case|required adds a
// mistaken v5 (for the tests of loss refusals). `school-app seed --db FILE --version N` is the app's own command:
// a new file at version N holding its demo teachers, students, courses and grades, with its own tables.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "seed" {
    var options: [String: String] = [:]
    for pair in stride(from: 1, to: arguments.count - 1, by: 2) { options[arguments[pair]] = arguments[pair + 1] }
    guard let path = options["--db"], let version = options["--version"].flatMap(Int.init),
        SchoolFamily.versions.indices.contains(version), arguments.count % 2 == 1
    else {
        FileHandle.standardError.write(Data("usage: school-app seed --db FILE --version N\n".utf8))
        exit(64)
    }
    do {
        try SchoolFamily.fill(at: path, version: version)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("school-app: seed: \(error)\n".utf8))
        exit(1)
    }
}
let environment = ProcessInfo.processInfo.environment
let family =
    environment["SCHOOL_APP_SQUASHED"] == "1"
    ? SchoolFamily.squashed
    : environment["SCHOOL_APP_V5"].flatMap(SchoolFamily.Mistake.init(rawValue:)).map { SchoolFamily.with($0) }
        ?? SchoolFamily.family
UrnaCommandLine.main(families: [family], toolName: "school-app", appVersion: "4.0")
