import Foundation
import HotelFamily
import UrnaCommandLine

// A small hotel's own executable: every urna command for its "hotel" family, under its own name.
// HOTEL_APP_SQUASHED=1 ships the history squashed into a v3 baseline. `hotel-app seed --db FILE --version N` is
// the app's own command: a new file at version N holding its demo guests, rooms and stays, with its own tables.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "seed" {
    var options: [String: String] = [:]
    for pair in stride(from: 1, to: arguments.count - 1, by: 2) { options[arguments[pair]] = arguments[pair + 1] }
    guard let path = options["--db"], let version = options["--version"].flatMap(Int.init),
        HotelFamily.versions.indices.contains(version), arguments.count % 2 == 1
    else {
        FileHandle.standardError.write(Data("usage: hotel-app seed --db FILE --version N\n".utf8))
        exit(64)
    }
    do {
        try HotelFamily.fill(at: path, version: version)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("hotel-app: seed: \(error)\n".utf8))
        exit(1)
    }
}
let family =
    ProcessInfo.processInfo.environment["HOTEL_APP_SQUASHED"] == "1" ? HotelFamily.squashed : HotelFamily.family
UrnaCommandLine.main(families: [family], toolName: "hotel-app", appVersion: "5.0")
