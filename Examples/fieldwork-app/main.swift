import FieldworkFamily
import Foundation
import UrnaCommandLine

// A field-research app's own executable: every urna command for its "fieldwork" family, under its own name.
// FIELDWORK_APP_SQUASHED=1 ships the history squashed into a v3 baseline.
let family =
    ProcessInfo.processInfo.environment["FIELDWORK_APP_SQUASHED"] == "1"
    ? FieldworkFamily.squashed : FieldworkFamily.family
UrnaCommandLine.main(families: [family], toolName: "fieldwork-app", appVersion: "2.1")
