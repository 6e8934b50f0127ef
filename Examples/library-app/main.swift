import Foundation
import LibraryFamily
import UrnaCommandLine

// An app's own executable: every urna command for the app's "library" family, under the app's own name.
// LIBRARY_APP_V5=typo|case|required|removed-type adds a mistaken v5 (for the tests of loss refusals).
// LIBRARY_APP_SQUASHED=1 ships the history squashed into a v3 baseline (older files are refused with advice).
let environment = ProcessInfo.processInfo.environment
let family =
    environment["LIBRARY_APP_SQUASHED"] == "1"
    ? LibraryFamily.squashed
    : environment["LIBRARY_APP_V5"].flatMap(LibraryFamily.Mistake.init(rawValue:)).map { LibraryFamily.with($0) }
        ?? LibraryFamily.family
UrnaCommandLine.main(families: [family])
