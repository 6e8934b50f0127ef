import Foundation
import Testing

/// The school app (issue 14's eighth trial: `UrnaCommandLine.main(families: [SchoolFamily.family], toolName:
/// "school-app", appVersion: "4.0")`): what its users see names the app and its own version.
@Suite(.serialized) struct CLISchoolAppTests {
    static var app: URL { CLIRunner.built("school-app") }

    static func run(_ args: [String], in dir: URL? = nil) throws -> CLIResult {
        try CLIRunner.runProcess(app, args, in: dir)
    }

    @Test("--version gives the app's own version (with the urna it is built on), never urna's alone")
    func versionIsTheApps() throws {
        let urna = try CLIRunner.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(urna.hasPrefix("urna "), "\(urna)")
        let r = try Self.run(["--version"])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout == "school-app 4.0 (\(urna))\n", "\(r.stdout)")
    }
}
