import Foundation

/// Builds the import benchmark's workload from real TSE files, as TSE ships them (Latin-1, `;`, quoted):
/// the 2018 national consulta_cand file copied under new election codes and descriptions (so every copy is a distinct
/// set of candidacies, vice pairs included) up to `candidates` rows, and the 2018 MG bem_candidato file
/// copied, with election codes and order numbers moved so every asset belongs to one generated candidacy,
/// up to `assets` rows.
enum ImportWorkload {
    struct Files {
        let candidates: String
        let assets: String
        let candidateRows: Int
        let assetRows: Int
    }

    static func build(in dir: URL, candidates: Int, assets: Int, candidateSource: [UInt8], assetSource: [UInt8]) throws
        -> Files
    {
        let cand = lines(candidateSource)
        let bens = lines(assetSource)
        guard cand.count > 1, bens.count > 1 else { throw BenchError("the sample files are empty") }
        let candHeader = fields(cand[0])
        let bensHeader = fields(bens[0])
        guard let candElection = candHeader.firstIndex(of: "CD_ELEICAO"),
            let candDescription = candHeader.firstIndex(of: "DS_ELEICAO"),
            let bensElection = bensHeader.firstIndex(of: "CD_ELEICAO"),
            let bensDescription = bensHeader.firstIndex(of: "DS_ELEICAO"),
            let bensOrder = bensHeader.firstIndex(of: "NR_ORDEM_CANDIDATO")
        else { throw BenchError("the sample files lack CD_ELEICAO / DS_ELEICAO / NR_ORDEM_CANDIDATO") }
        let candPath = dir.appendingPathComponent("consulta_cand_workload.csv").path
        let bensPath = dir.appendingPathComponent("bem_candidato_workload.csv").path
        let candRows = cand.count - 1
        let copies = (candidates + candRows - 1) / candRows
        var out = Data()
        out.append(contentsOf: cand[0] + [10])
        var written = 0
        copyLoop: for copy in 0..<copies {
            for line in cand.dropFirst() {
                if written == candidates { break copyLoop }
                // An election is year + round + description (elections v4), so each copy is named apart too.
                var l = rewrite(line, field: candElection) { $0 + 1000 * Int64(copy) }
                if copy > 0 { l = append(" COPY \(copy)", to: l, field: candDescription) }
                out.append(contentsOf: l + [10])
                written += 1
            }
        }
        try out.write(to: URL(fileURLWithPath: candPath))
        out = Data()
        out.append(contentsOf: bens[0] + [10])
        var assetsWritten = 0
        var round = 0
        // Goods go only to copies written whole, so every good has its candidacy.
        let wholeCopies = max(1, written / candRows)
        while assetsWritten < assets {
            let electionCopy = round % wholeCopies
            let orderShift = Int64(round / wholeCopies) * 100_000
            for line in bens.dropFirst() {
                if assetsWritten == assets { break }
                var l = rewrite(line, field: bensElection) { $0 + 1000 * Int64(electionCopy) }
                if electionCopy > 0 { l = append(" COPY \(electionCopy)", to: l, field: bensDescription) }
                l = rewrite(l, field: bensOrder) { $0 + orderShift }
                out.append(contentsOf: l + [10])
                assetsWritten += 1
            }
            round += 1
            if out.count > 64 << 20 {
                try append(out, to: bensPath, first: round == 1 && assetsWritten <= bens.count)
                out = Data()
            }
        }
        try append(out, to: bensPath, first: !FileManager.default.fileExists(atPath: bensPath))
        return Files(candidates: candPath, assets: bensPath, candidateRows: written, assetRows: assetsWritten)
    }

    static func append(_ data: Data, to path: String, first: Bool) throws {
        if first || !FileManager.default.fileExists(atPath: path) {
            try data.write(to: URL(fileURLWithPath: path))
            return
        }
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try h.seekToEnd()
        try h.write(contentsOf: data)
        try h.close()
    }

    /// Lines without their terminators (LF or CRLF).
    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var start = 0
        for i in 0..<bytes.count where bytes[i] == 10 {
            var end = i
            if end > start && bytes[end - 1] == 13 { end -= 1 }
            if end > start { out.append(Array(bytes[start..<end])) }
            start = i + 1
        }
        if start < bytes.count { out.append(Array(bytes[start...])) }
        return out
    }

    /// Header names of a fully quoted `;` line.
    static func fields(_ line: [UInt8]) -> [String] {
        String(decoding: line, as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    }

    /// The bytes of one field (0-based) of a `;` line, inside its quotes.
    static func fieldRange(_ line: [UInt8], field: Int) -> Range<Int>? {
        var index = 0
        var i = 0
        var start = -1
        var end = -1
        var inQuotes = false
        while i < line.count {
            let b = line[i]
            if b == 34 { inQuotes.toggle() }
            if b == 59 && !inQuotes {
                index += 1
                if index == field + 1 {
                    end = i
                    break
                }
            }
            if index == field && start < 0 && b != 59 { start = i }
            i += 1
        }
        if end < 0 { end = line.count }
        guard start >= 0 else { return nil }
        var s = start
        var e = end
        if line[s] == 34 {
            s += 1
            e -= 1
        }
        return s <= e ? s..<e : nil
    }

    /// Replaces the numeric value of one quoted field (0-based) with `transform(value)`.
    static func rewrite(_ line: [UInt8], field: Int, _ transform: (Int64) -> Int64) -> [UInt8] {
        guard let r = fieldRange(line, field: field), let v = Int64(String(decoding: line[r], as: UTF8.self)) else {
            return line
        }
        return Array(line[..<r.lowerBound]) + Array(String(transform(v)).utf8) + Array(line[r.upperBound...])
    }

    /// Appends ASCII `suffix` to one field's text (its bytes are kept as they are, Latin-1 included).
    static func append(_ suffix: String, to line: [UInt8], field: Int) -> [UInt8] {
        guard let r = fieldRange(line, field: field) else { return line }
        return Array(line[..<r.upperBound]) + Array(suffix.utf8) + Array(line[r.upperBound...])
    }
}
