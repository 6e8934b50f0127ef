import UrnaImport

/// The import's checks and bounds against hostile or careless input (issue 12): inputs that are not
/// files, a rejects path that names the database or an input, the rejects bounds, triggers.
enum ImportSafety {
    /// Reads `--max-rejects-rows`, `--max-rejects-bytes` and `--allow-triggers` into `options` and refuses
    /// inputs and a rejects path that cannot be used, before anything is opened.
    static func apply(_ p: ParsedArguments, to options: inout ImportOptions) throws {
        try InputChecks.checkInputs(p.positionals)
        try OutputPaths.refuse(
            options.effectiveRejectsPath, option: "--rejects", database: options.dbPath, inputs: p.positionals)
        if let rows = p.value("max-rejects-rows") {
            options.rejectsRowLimit = try bound(rows, option: "--max-rejects-rows").map { Int($0) }
        }
        if let bytes = p.value("max-rejects-bytes") {
            options.rejectsByteLimit = try bound(bytes, option: "--max-rejects-bytes", suffixes: true)
        }
        options.allowTriggers = p.has("allow-triggers")
    }

    /// A positive count, optionally with a K/M/G suffix (powers of 1024), or nil for `none`.
    static func bound(_ text: String, option: String, suffixes: Bool = false) throws -> Int64? {
        if text.lowercased() == "none" { return nil }
        var digits = Substring(text)
        var scale: Int64 = 1
        if suffixes, let last = text.uppercased().last, let s = ["K": Int64(1) << 10, "M": 1 << 20, "G": 1 << 30][last]
        {
            scale = s
            digits = digits.dropLast()
        }
        guard let n = Int64(digits), n > 0, n <= Int64.max / scale else {
            throw UsageError(
                "\(option) takes a positive number\(suffixes ? " (K, M or G suffix allowed)" : "") or 'none', not '\(text)'"
            )
        }
        return n * scale
    }
}
