import UrnaStore

extension ImportSummary {
    /// A small table for people: one line per type, then rejects.
    ///
    /// ```
    /// type        inserted   updated unchanged
    /// Election           1         0         0
    /// ...
    /// rejected: 0
    /// ```
    public func renderText() -> String {
        func cell(_ s: String, _ width: Int) -> String {
            s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
        }
        var lines = [
            "type" + String(repeating: " ", count: 6) + cell("inserted", 10) + cell("updated", 10)
                + cell("unchanged", 10)
        ]
        for t in Self.types {
            lines.append(
                t + String(repeating: " ", count: max(1, 10 - t.count)) + cell(String(inserted[t, default: 0]), 10)
                    + cell(String(updated[t, default: 0]), 10) + cell(String(unchanged[t, default: 0]), 10))
        }
        lines.append(
            "rows: \(rows.inserted) inserted, \(rows.updated) updated, \(rows.unchanged) unchanged, "
                + "\(rows.superseded) superseded, \(rows.conflicts) conflicts, \(rows.legend) legend, \(rejected) rejected"
        )
        if fieldsNulled > 0 { lines.append("fields nulled: \(fieldsNulled) (warnings in the rejects file)") }
        if fieldsCorrected > 0 {
            lines.append(
                "fields corrected: \(fieldsCorrected) (a spreadsheet's dropped zeros or thousands separators read back; "
                    + "warnings in the rejects file)")
        }
        for w in warnings { lines.append("warning: \(TerminalSafe.line(w))") }
        var tail = "rejected: \(rejected)"
        if let rejectsFile {
            // The file also holds conflicts and field warnings: say so when they are all it holds.
            let also = rows.conflicts > 0 || fieldsNulled > 0 || fieldsCorrected > 0
            tail +=
                rejected == 0 && also
                ? " (conflicts and warnings: see \(TerminalSafe.text(rejectsFile)))"
                : " (see \(TerminalSafe.text(rejectsFile)))"
        }
        lines.append(tail)
        if headsWithVice > 0 { lines.append("heads of ticket with a vice: \(headsWithVice)") }
        let seconds = (elapsedSeconds * 100).rounded() / 100
        let rate = elapsedSeconds > 0 ? Int((Double(rowsRead) / elapsedSeconds).rounded()) : 0
        lines.append(
            "\(rowsRead) rows from \(files.count) file\(files.count == 1 ? "" : "s") in \(seconds) s (\(rate) rows/s)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Exactly one JSON object: `{"inserted": {TYPE: N}, "updated": {...}, "unchanged": {...},
    /// "rejected": N, "rejectsFile": PATH or null, ...}` plus "files", "headsWithVice", "heldAssets"
    /// and "elapsedSeconds". Keys in a fixed order, on one line, without a final newline (`print` adds it).
    public func renderJSON() -> String {
        func counts(_ d: [String: Int]) -> String {
            "{" + Self.types.map { "\(jsonString($0)): \(d[$0, default: 0])" }.joined(separator: ", ") + "}"
        }
        let files = self.files.map {
            "{\"path\": \(jsonString($0.path)), \"layout\": \(jsonString($0.layout)), \"rows\": \($0.rows), "
                + "\"rejected\": \($0.rejected)}"
        }
        let seconds = (elapsedSeconds * 1000).rounded() / 1000
        return
            "{\"inserted\": \(counts(inserted)), \"updated\": \(counts(updated)), \"unchanged\": \(counts(unchanged)), "
            + "\"rejected\": \(rejected), \"rejectsFile\": \(rejectsFile.map(jsonString) ?? "null"), "
            + "\"files\": [\(files.joined(separator: ", "))], \"headsWithVice\": \(headsWithVice), "
            + "\"heldAssets\": \(heldAssets), \"rows\": {\"inserted\": \(rows.inserted), \"updated\": \(rows.updated), "
            + "\"unchanged\": \(rows.unchanged), \"superseded\": \(rows.superseded), \"conflicts\": \(rows.conflicts), "
            + "\"legend\": \(rows.legend)}, \"fieldsNulled\": \(fieldsNulled), \"fieldsCorrected\": \(fieldsCorrected), "
            + "\"warnings\": [\(warnings.map(jsonString).joined(separator: ", "))], \"elapsedSeconds\": \(seconds)}"
    }
}

/// A JSON string literal (quotes, backslashes and control characters escaped).
func jsonString(_ s: String) -> String { JSONString.quote(s) }
