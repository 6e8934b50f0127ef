import ClinicFamily
import Foundation
import UrnaCommandLine

// A clinic app's own executable: every urna command for its "clinic" family, under its own name.
// CLINIC_APP_SQUASHED=1 ships the history squashed into a v2 baseline.
let family =
    ProcessInfo.processInfo.environment["CLINIC_APP_SQUASHED"] == "1" ? ClinicFamily.squashed : ClinicFamily.family
UrnaCommandLine.main(families: [family], toolName: "clinic-app", appVersion: "1.0")
