import Foundation
import UrnaStore

extension MigrationReport {
    /// The report for people: steps, schema changes, counts, closure activity, discarded data,
    /// samples, SQL, checks and failures.
    public func renderText() -> String {
        var out: [String] = []
        let verb = dryRun ? "Dry run" : "Migration"
        out.append(
            "\(verb) of \(path): \(family) v\(fromVersion) → v\(toVersion) (path \(versionPath.map { "v\($0)" }.joined(separator: " → ")))"
        )
        switch outcome {
        case .applied: out.append("Result: applied in one transaction, committed.")
        case .previewed where realRunLacksSpace:
            out.append(
                "Result: the steps would succeed, but the real run would be refused before it starts: the disk beside the "
                    + "file has \(SpaceNeed.megabytes(spaceAvailable ?? 0)) free and it needs about "
                    + "\(SpaceNeed.megabytes(spaceNeed?.totalBytes ?? 0)) (see Disk below); the file was not touched.")
        case .previewed: out.append("Result: the upgrade would succeed; the file was not touched.")
        case .failed:
            out.append(
                "Result: the upgrade would FAIL (\(failureCount) problem\(failureCount == 1 ? "" : "s")); the file was not touched."
            )
        }
        if let b = backupPath { out.append("Backup: \(b)") }
        if let k = earlierBackupKeptAt {
            out.append("The earlier backup at that name held other data: it was kept as \(k), not replaced")
        }
        for s in steps {
            out.append("")
            out.append("Step v\(s.fromVersion) → v\(s.toVersion)" + (s.summary.isEmpty ? "" : ": \(s.summary)"))
            out.append("  Schema changes:")
            out += s.diff.renderLines(indent: "    ")
            if s.completed {
                out.append("  Objects per type (before → after):")
                for name in Set(s.countsBefore.keys).union(s.countsAfter.keys).sorted() {
                    let b = s.countsBefore[name].map(String.init) ?? "-"
                    let a = s.countsAfter[name].map(String.init) ?? "-"
                    out.append("    \(name): \(b) → \(a)")
                }
            } else {
                // "6 → -" would read as every object removed: a step that stopped has no counts after it.
                out.append(
                    "  Objects per type (before; the step stopped before it finished, so there are no counts after "
                        + "it: its changes were rolled back):")
                for (name, b) in s.countsBefore.sorted(by: { $0.key < $1.key }) { out.append("    \(name): \(b)") }
            }
            if !s.activity.isEmpty {
                out.append("  Closure and copies:")
                for a in s.activity {
                    var parts: [String] = []
                    if a.enumerated > 0 { parts.append("\(a.enumerated) enumerated") }
                    if a.changed > 0 { parts.append("\(a.changed) changed") }
                    if a.created > 0 { parts.append("\(a.created) created") }
                    if a.deleted > 0 { parts.append("\(a.deleted) deleted") }
                    if a.copied > 0 { parts.append("\(a.copied) rows written") }
                    for (p, n) in a.lossyValues.sorted(by: { $0.key < $1.key }) {
                        parts.append("\(n) lossy \(p) value(s)")
                    }
                    out.append("    \(a.type): " + parts.joined(separator: ", "))
                }
            }
            let (read, discarded) = (s.droppedData.filter(\.readByClosure), s.droppedData.filter { !$0.readByClosure })
            for (title, group) in [
                ("  Data this step discards:", discarded),
                ("  Old data the closure read before it went (the closure decides what is kept):", read),
            ] where !group.isEmpty {
                out.append(title)
                for d in group {
                    if let p = d.property {
                        out.append("    \(d.type).\(p): \(d.values) non-nil value(s)")
                    } else {
                        out.append("    \(d.type): \(d.values) object(s) (type removed)")
                    }
                }
            }
            if !s.clearedLinks.isEmpty {
                out.append("  Links cleared because the objects they pointed at were deleted in this step:")
                for (name, n) in s.clearedLinks.sorted(by: { $0.key < $1.key }) {
                    out.append("    \(name): \(n) link(s)")
                }
            }
            if !s.samples.isEmpty {
                out.append("  Samples:")
                for sample in s.samples {
                    out.append("    \(sample.type)")
                    let n = max(sample.before.count, sample.after.count)
                    for i in 0..<n {
                        if i < sample.before.count { out.append("      before: " + Self.line(sample.before[i])) }
                        if i < sample.after.count { out.append("      after:  " + Self.line(sample.after[i])) }
                    }
                }
            }
            if !s.sql.isEmpty {
                out.append("  SQL:")
                for sql in s.sql {
                    out.append(
                        "    " + sql.replacingOccurrences(of: "\n", with: "\n    ") + (sql.hasPrefix("--") ? "" : ";"))
                }
            }
            out.append(String(format: "  Time: %.3f s, %d object(s) written", s.durationSeconds, s.objectsTouched))
        }
        if !checks.isEmpty {
            out.append("")
            out.append("Checks:")
            for c in checks {
                out.append("  \(c.passed ? "ok  " : "FAIL") \(c.name)" + (c.detail.isEmpty ? "" : ": \(c.detail)"))
            }
        }
        if failureCount > 0 {
            out.append("")
            out.append("Problems (\(failureCount)):")
            for f in failures { out.append("  - \(f)") }
            if failureCount > failures.count { out.append("  ... and \(failureCount - failures.count) more") }
        }
        out.append("")
        var total = String(format: "Total: %.3f s", durationSeconds)
        if let p = projectedSeconds {
            total += String(format: "; the real run should take about %.3f s (backup copy included)", p)
        }
        out.append(total)
        if let need = spaceNeed {
            var disk =
                "Disk: \(dryRun ? "the real run needs" : "the run needed") about "
                + "\(SpaceNeed.megabytes(need.totalBytes)) free beside the file (\(need))"
            if let g = measuredGrowthBytes { disk += "; measured growth \(SpaceNeed.megabytes(g))" }
            out.append(disk)
        }
        if let v = vacuum {
            let before = SpaceNeed.megabytes(v.bytesBefore)
            if let after = v.bytesAfter {
                out.append(
                    String(
                        format:
                            "VACUUM: \(before) → \(SpaceNeed.megabytes(after))\(dryRun ? " (on the copy)" : "") in %.3f s",
                        v.seconds))
            } else {
                out.append(
                    "VACUUM failed (\(v.error ?? "?")); the file stays \(before)"
                        + (dryRun ? "" : ", the upgrade is committed"))
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    static func line(_ s: ObjectSample) -> String {
        s.fields.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")
    }

    /// The report as one JSON object (stable key order).
    public func renderJSON() -> String { JSONRendering.encode(self) }
}
