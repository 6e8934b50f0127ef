import Foundation
import UrnaStore

/// Where a file stands in its family's history.
public struct MigrationStatus: Sendable, Codable {
    public let path: String
    public let family: String
    public let fileVersion: Int
    public let latestVersion: Int
    public let knownVersions: [Int]
    /// Steps an upgrade to the latest version would run.
    public let pending: [PendingStep]
    /// The file is newer than every version this program knows (it will not be touched).
    public let isNewerThanKnown: Bool
    /// Why the file cannot be upgraded when it is older than the family's minimum supported version (a squashed
    /// history), with the family's advice; nil otherwise.
    public var olderThanSupported: String?
    /// Differences between the file's tables and its descriptor (empty when none).
    public let drift: [String]
    /// Steps already applied to the file, oldest first.
    public let history: [HistoryEntry]

    public let isCurrent: Bool

    init(
        path: String, family: String, fileVersion: Int, latestVersion: Int, knownVersions: [Int],
        pending: [PendingStep],
        isNewerThanKnown: Bool, drift: [String], history: [HistoryEntry]
    ) {
        self.path = path
        self.family = family
        self.fileVersion = fileVersion
        self.latestVersion = latestVersion
        self.knownVersions = knownVersions
        self.pending = pending
        self.isNewerThanKnown = isNewerThanKnown
        self.drift = drift
        self.history = history
        isCurrent = fileVersion == latestVersion
    }

    /// The status for people: version, pending steps, drift, history.
    public func renderText() -> String {
        var out = ["\(path): \(family) version \(fileVersion) (latest known: \(latestVersion))"]
        if let older = olderThanSupported {
            out.append("Not upgradable here: \(older)")
        } else if isNewerThanKnown {
            out.append("The file is newer than this program knows: use a newer version of the program that made it.")
        } else if isCurrent {
            out.append("Up to date: nothing to migrate.")
        } else {
            out.append("Pending steps (\(pending.count)):")
            for p in pending {
                out.append(
                    "  v\(p.from) → v\(p.to)" + (p.summary.isEmpty ? "" : ": \(p.summary)")
                        + (p.hasClosure ? " [closure]" : ""))
            }
        }
        if !drift.isEmpty {
            out.append("Drift (the file differs from the schema it records):")
            for d in drift { out.append("  - \(d)") }
        }
        if !history.isEmpty {
            out.append("History:")
            for h in history {
                let by = h.appVersion.map { " by \($0)" } ?? ""
                if h.outcome == "failed" {
                    out.append(
                        "  v\(h.fromVersion) → v\(h.toVersion) FAILED at \(h.appliedAt)\(by), \(h.durationMs) ms: \(h.message ?? "")"
                    )
                } else {
                    out.append(
                        "  v\(h.fromVersion) → v\(h.toVersion) at \(h.appliedAt)\(by), \(h.durationMs) ms, \(h.objectsTouched) object(s), descriptor \(h.descriptorChecksum)"
                    )
                }
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// The status as one JSON object (stable key order).
    public func renderJSON() -> String { JSONRendering.encode(self) }
}
