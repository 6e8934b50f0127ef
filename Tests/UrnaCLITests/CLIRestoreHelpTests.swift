import Foundation
import Testing

/// Help examples name files of the families the tool knows: `restore`'s named `library.sqlite` in urna and in
/// every app (a shop app's help told its users to restore a library file).
@Suite struct CLIRestoreHelpTests {
    @Test func restoreExamplesNameTheToolsOwnFiles() throws {
        let urna = try CLIRunner.run(["restore", "--help"])
        #expect(urna.code == 0)
        #expect(!urna.stdout.contains("library"), "\(urna.stdout)")
        #expect(urna.stdout.contains("urna restore --db urna.sqlite"), "\(urna.stdout)")
        let app = try CLIAppFamilyTests.app(["restore", "--help"])
        #expect(app.stdout.contains("library-app restore --db library.sqlite"), "\(app.stdout)")
        let examples = app.stdout.components(separatedBy: "EXAMPLES:").last ?? ""
        #expect(!examples.contains("urna"), "\(examples)")
    }
}
