import Foundation
import NewsroomFamily
import UrnaCommandLine

// A newsroom's own executable: every urna command for its "newsroom" family, under its own name.
// NEWSROOM_APP_SQUASHED=1 ships the history squashed into a v3 baseline. `newsroom-app seed --db FILE --version N`
// is the app's own command: a new file at version N filled with its demo stories (and its search index).
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "seed" {
    // seed --db FILE --version N [--origin M]: M is the version whose app wrote the data (default N), giving the
    // file a user's data from version M must become at N.
    var options: [String: String] = [:]
    for pair in stride(from: 1, to: arguments.count - 1, by: 2) { options[arguments[pair]] = arguments[pair + 1] }
    guard let path = options["--db"], let version = options["--version"].flatMap(Int.init),
        NewsroomFamily.versions.indices.contains(version), arguments.count % 2 == 1
    else {
        FileHandle.standardError.write(Data("usage: newsroom-app seed --db FILE --version N [--origin M]\n".utf8))
        exit(64)
    }
    do {
        try NewsroomFamily.fill(at: path, version: version, origin: options["--origin"].flatMap(Int.init))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("newsroom-app: seed: \(error)\n".utf8))
        exit(1)
    }
}
let family =
    ProcessInfo.processInfo.environment["NEWSROOM_APP_SQUASHED"] == "1"
    ? NewsroomFamily.squashed : NewsroomFamily.family
UrnaCommandLine.main(families: [family], toolName: "newsroom-app", appVersion: "6.0")
