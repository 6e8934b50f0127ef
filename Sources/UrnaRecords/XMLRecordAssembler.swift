import CLibXML2

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns the columns the XML reader finds into `Record`s: names each element once, detects repeated
/// columns, lets nested `<bem>`s inherit their candidacy's keys, shares one `ColumnIndex` per column set,
/// and renders each record's `rawBytes`.
///
/// Element names arrive as libxml2's interned `const xmlChar *`; they are looked up by address (checked
/// with `strcmp`), so a String is made once per distinct name, never per element.
final class XMLRecordAssembler {
    /// What an element name means to the reader.
    enum Role: UInt8 {
        case candidatos, candidato, bens, bem, other
    }

    /// Columns a `<bem>` nested in a `<candidato>` takes from it when it has no value of its own.
    static let inheritedColumns = ["CD_ELEICAO", "ANO_ELEICAO", "SQ_CANDIDATO", "SG_UF", "SG_UE"]
    /// Past this, a value is cut short and its record rejected (libxml2's own cap on one text node).
    static let maximumValueBytes = 10_000_000
    /// Past this, extra columns are dropped and the record rejected.
    static let maximumColumnsPerRecord = 10_000
    /// Past this, a candidato's further `<bem>`s are dropped and the candidato and its bens rejected:
    /// they are held in memory until `</candidato>`.
    static let maximumNestedAssets = 100_000
    /// `rawBytes` is cut at this size, as for CSV rows.
    static let maximumRawBytes = 65_536

    private struct Name {
        let raw: String
        let rawUTF8: [UInt8]
        let canonical: Int32
        let role: Role
        let known: Bool
        let cString: UnsafeMutablePointer<CChar>
    }

    private struct Draft {
        var kind: RecordKind
        var line: Int
        var canonicalIds: [Int32] = []
        var rawIds: [Int32] = []
        var values: [String?] = []
        var problem: String?
    }

    /// Which canonical columns the current draft of one nesting level already has, and where.
    private struct Seen {
        var serial: UInt32 = 0
        var stamps: [UInt32] = []
        var slots: [Int32] = []

        mutating func reset(canonicalCount: Int) {
            serial &+= 1
            if serial == 0 {
                stamps = []
                serial = 1
            }
            if stamps.count < canonicalCount {
                stamps += repeatElement(0, count: canonicalCount - stamps.count)
                slots += repeatElement(0, count: canonicalCount - slots.count)
            }
        }
    }

    private let file: String
    private let canonicalName: (String) -> String
    private var names: [Name] = []
    private var namesByText: [String: Int32] = [:]
    private var namesByAddress: [UInt: Int32] = [:]
    private var cacheAddresses = [UInt](repeating: 0, count: 1024)
    private var cacheIds = [Int32](repeating: -1, count: 1024)
    private var canonicalNames: [String] = []
    private var canonicalIds: [String: Int32] = [:]
    private var inheritedIds: [Int32] = []
    private var unknownCounts: [Int] = []

    private var outer: Draft?
    private var nested: Draft?
    private var outerSeen = Seen()
    private var nestedSeen = Seen()
    private var nestedAssets: [Draft] = []
    private var droppedNestedAssets = 0

    private var columnName: Int32 = -1
    private var columnText: String?
    private var columnBytes = 0
    private var columnSpoiled = false

    private var indexes: [[Int32]: ColumnIndex] = [:]
    private var lastCandidateIndex: ([Int32], ColumnIndex)?
    private var lastAssetIndex: ([Int32], ColumnIndex)?
    private var rendering: [UInt8] = []

    init(file: String, canonicalName: @escaping (String) -> String) {
        self.file = file
        self.canonicalName = canonicalName
        inheritedIds = Self.inheritedColumns.map { canonicalId(for: $0) }
    }

    deinit {
        for name in names { free(name.cString) }
    }

    // MARK: - Names

    /// The id of an element or attribute name; `pointer` is libxml2's NUL-terminated UTF-8 name.
    @inline(__always) func nameId(_ pointer: UnsafePointer<xmlChar>) -> Int32 {
        let address = UInt(bitPattern: pointer)
        let slot = Int((address >> 3) & 1023)
        let cached = cacheIds[slot]
        if cacheAddresses[slot] == address && cached >= 0 && matches(cached, pointer) { return cached }
        let id = slowNameId(pointer, address: address)
        cacheAddresses[slot] = address
        cacheIds[slot] = id
        return id
    }

    @inline(__always) func role(_ id: Int32) -> Role { names[Int(id)].role }

    /// Unknown names seen so far (elements and attributes) and how many times each was met.
    var unknownElementCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for (id, count) in unknownCounts.enumerated() where count > 0 { counts[names[id].raw, default: 0] += count }
        return counts
    }

    /// Counts an element whose content is ignored (unknown structure, or a column with child elements).
    func countIgnored(_ id: Int32) {
        unknownCounts[Int(id)] += 1
    }

    private func matches(_ id: Int32, _ pointer: UnsafePointer<xmlChar>) -> Bool {
        let stored = UnsafeRawPointer(names[Int(id)].cString)
        return stored == UnsafeRawPointer(pointer) || strcmp(names[Int(id)].cString, cString(pointer)) == 0
    }

    private func slowNameId(_ pointer: UnsafePointer<xmlChar>, address: UInt) -> Int32 {
        if let id = namesByAddress[address], matches(id, pointer) { return id }
        let raw = String(cString: pointer)
        if let id = namesByText[raw] {
            namesByAddress[address] = id
            return id
        }
        let id = Int32(names.count)
        let role: Role
        switch raw {
        case "candidatos": role = .candidatos
        case "candidato": role = .candidato
        case "bens": role = .bens
        case "bem": role = .bem
        default: role = .other
        }
        let canonical = canonicalName(raw)
        let known = role != .other || XMLKnownColumnNames.all.contains(raw) || XMLKnownColumnNames.all.contains(canonical)
        names.append(
            Name(raw: raw, rawUTF8: Array(raw.utf8), canonical: canonicalId(for: canonical), role: role, known: known,
                 cString: strdup(cString(pointer))))
        unknownCounts.append(0)
        namesByText[raw] = id
        namesByAddress[address] = id
        return id
    }

    private func canonicalId(for name: String) -> Int32 {
        if let id = canonicalIds[name] { return id }
        let id = Int32(canonicalNames.count)
        canonicalNames.append(name)
        canonicalIds[name] = id
        return id
    }

    @inline(__always) private func cString(_ pointer: UnsafePointer<xmlChar>) -> UnsafePointer<CChar> {
        UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self)
    }

    // MARK: - Records

    /// True while a `<candidato>` is open (its `<bens>`/`<bem>` children are its assets).
    var isInCandidate: Bool { outer?.kind == .candidate && nested == nil }

    /// Starts a record at the top level (a candidato, or a standalone bem).
    func beginRecord(kind: RecordKind, line: Int) {
        outer = Draft(kind: kind, line: line)
        outer!.canonicalIds.reserveCapacity(lastCandidateIndex?.0.count ?? 16)
        outer!.values.reserveCapacity(lastCandidateIndex?.0.count ?? 16)
        outerSeen.reset(canonicalCount: canonicalNames.count)
        nestedAssets.removeAll(keepingCapacity: true)
        droppedNestedAssets = 0
    }

    /// Starts a `<bem>` inside the open `<candidato>`.
    func beginNestedAsset(line: Int) {
        nested = Draft(kind: .asset, line: line)
        nestedSeen.reset(canonicalCount: canonicalNames.count)
    }

    /// Adds one attribute of the record element as a column (`value` nil or empty means no value).
    func addAttribute(name: UnsafePointer<xmlChar>, value: UnsafePointer<xmlChar>?) {
        let id = nameId(name)
        var text: String?
        if let value, value.pointee != 0 { text = makeString(value, count: strlen(cString(value))) }
        addColumn(id, text)
    }

    /// Starts a child element that may be a column (it is one if it holds only text).
    func beginColumn(_ id: Int32) {
        columnName = id
        columnText = nil
        columnBytes = 0
        columnSpoiled = false
    }

    /// Text (or CDATA) inside the open column element.
    func appendText(_ pointer: UnsafePointer<xmlChar>) {
        let count = strlen(cString(pointer))
        guard count > 0, !columnSpoiled else { return }
        if columnBytes + count > Self.maximumValueBytes {
            markProblem("<\(names[Int(columnName)].raw)> holds more than \(Self.maximumValueBytes) bytes of text")
            return
        }
        columnBytes += count
        let piece = makeString(pointer, count: count)
        if columnText == nil { columnText = piece } else { columnText! += piece }
    }

    /// The open column element has a child element: it is not a column; its content is ignored.
    func spoilColumn() {
        guard !columnSpoiled else { return }
        columnSpoiled = true
        unknownCounts[Int(columnName)] += 1
    }

    /// Closes the open column element.
    func endColumn() {
        guard !columnSpoiled else { return }
        addColumn(columnName, columnText)
        columnText = nil
    }

    /// Closes the innermost open record; finished records are appended to `output` in document order.
    func endRecord(into output: inout [RecordOrReject]) {
        if let asset = nested {
            nested = nil
            if nestedAssets.count < Self.maximumNestedAssets {
                nestedAssets.append(asset)
            } else {
                droppedNestedAssets += 1
            }
            return
        }
        guard var record = outer else { return }
        outer = nil
        if droppedNestedAssets > 0 {
            record.problem = record.problem ?? "more than \(Self.maximumNestedAssets) <bem> in one <candidato>"
        }
        output.append(finish(record))
        guard !nestedAssets.isEmpty else { return }
        for var asset in nestedAssets {
            inherit(into: &asset, from: record)
            if let problem = record.problem {
                asset.problem = asset.problem ?? "its <candidato> (line \(record.line)) was rejected: \(problem)"
            }
            output.append(finish(asset))
        }
        nestedAssets.removeAll(keepingCapacity: true)
    }

    private func addColumn(_ id: Int32, _ value: String?) {
        let name = names[Int(id)]
        if !name.known { unknownCounts[Int(id)] += 1 }
        if nested != nil {
            add(name, id, value, to: &nested!, seen: &nestedSeen)
        } else if outer != nil {
            add(name, id, value, to: &outer!, seen: &outerSeen)
        }
    }

    private func add(_ name: Name, _ id: Int32, _ value: String?, to draft: inout Draft, seen: inout Seen) {
        let c = Int(name.canonical)
        if seen.stamps.count <= c {
            seen.stamps += repeatElement(0, count: c + 1 - seen.stamps.count)
            seen.slots += repeatElement(0, count: c + 1 - seen.slots.count)
        }
        if seen.stamps[c] == seen.serial {
            // The same column twice (or an old and a new name for it): fine when they agree.
            let slot = Int(seen.slots[c])
            guard let value else { return }
            if let existing = draft.values[slot], existing != value {
                draft.problem = draft.problem
                    ?? "column \(canonicalNames[c]) appears twice with different values (<\(names[Int(draft.rawIds[slot])].raw)> and <\(name.raw)>)"
            } else {
                draft.values[slot] = value
            }
            return
        }
        guard draft.values.count < Self.maximumColumnsPerRecord else {
            draft.problem = draft.problem ?? "more than \(Self.maximumColumnsPerRecord) columns in one record"
            return
        }
        seen.stamps[c] = seen.serial
        seen.slots[c] = Int32(draft.values.count)
        draft.canonicalIds.append(name.canonical)
        draft.rawIds.append(id)
        draft.values.append(value)
    }

    private func markProblem(_ problem: String) {
        if nested != nil {
            nested!.problem = nested!.problem ?? problem
        } else if outer != nil {
            outer!.problem = outer!.problem ?? problem
        }
        columnSpoiled = true
    }

    /// Fills the asset's missing keys from its candidato; inherited columns go last, named canonically.
    private func inherit(into asset: inout Draft, from candidate: Draft) {
        for c in inheritedIds {
            guard let from = candidate.canonicalIds.firstIndex(of: c), let value = candidate.values[from] else { continue }
            if let own = asset.canonicalIds.firstIndex(of: c) {
                if asset.values[own] == nil { asset.values[own] = value }
            } else {
                asset.canonicalIds.append(c)
                asset.rawIds.append(-1 - c)  // negative: a canonical name, not a raw one
                asset.values.append(value)
            }
        }
    }

    private func finish(_ draft: Draft) -> RecordOrReject {
        let location = SourceLocation(file: file, line: draft.line)
        let raw = render(draft)
        if let problem = draft.problem {
            return .reject(MalformedRow(location: location, reason: problem, rawBytes: raw))
        }
        return .record(
            Record(kind: draft.kind, columns: columnIndex(draft.canonicalIds, draft.kind), values: draft.values,
                   location: location, rawBytes: raw))
    }

    private func columnIndex(_ signature: [Int32], _ kind: RecordKind) -> ColumnIndex {
        if kind == .candidate, let (last, index) = lastCandidateIndex, last == signature { return index }
        if kind == .asset, let (last, index) = lastAssetIndex, last == signature { return index }
        let index: ColumnIndex
        if let cached = indexes[signature] {
            index = cached
        } else {
            // A file whose every record has its own column set must not grow this without bound.
            if indexes.count >= 1024 { indexes.removeAll() }
            index = ColumnIndex(names: signature.map { canonicalNames[Int($0)] })
            indexes[signature] = index
        }
        if kind == .candidate { lastCandidateIndex = (signature, index) } else { lastAssetIndex = (signature, index) }
        return index
    }

    @inline(__always) private func makeString(_ pointer: UnsafePointer<xmlChar>, count: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}
