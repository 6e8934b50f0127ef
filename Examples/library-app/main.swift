import Foundation
import LibraryFamily
import UrnaCommandLine

// An app's own executable: every urna command for the app's "library" family, under the app's own name.
// LIBRARY_APP_V5=typo|case|required|removed-type adds a mistaken v5 (for the tests of loss refusals).
let family =
    ProcessInfo.processInfo.environment["LIBRARY_APP_V5"].flatMap(LibraryFamily.Mistake.init(rawValue:))
    .map { LibraryFamily.with($0) } ?? LibraryFamily.family
UrnaCommandLine.main(families: [family])
