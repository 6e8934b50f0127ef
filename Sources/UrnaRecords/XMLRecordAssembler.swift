import CLibXML2

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns the columns the XML reader finds into `Record`s: detects repeated columns, lets nested
/// `<bem>`s inherit their candidacy's keys, shares one `ColumnIndex` per column set and renders each
/// record's `rawBytes`. A value type, so the per-node work runs without dynamic exclusivity checks.
struct XMLRecordAssembler {
    /// Columns a `<bem>` nested in a `<candidato>` takes from it when it has no value of its own.
    static let inheritedColumns = ["CD_ELEICAO", "ANO_ELEICAO", "SQ_CANDIDATO", "SG_UF", "SG_UE"]
    /// Past this, a column's text is dropped and its record rejected (libxml2's own cap on one text node).
    static let maximumValueBytes = 10_000_000
    /// Past this, extra columns are dropped and the record rejected.
    static let maximumColumnsPerRecord = 10_000
    /// Past this, a candidato's further `<bem>`s are dropped and the candidato and its bens rejected:
    /// they are held in memory until `</candidato>`.
    static let maximumNestedAssets = 10_000
    /// `rawBytes` is cut at this size, as for CSV rows.
    static let maximumRawBytes = 65_536

    private struct Draft {
        var kind: RecordKind
        var line: Int
        var canonicalIds: [Int32] = []
        /// The name each column had in the file; negative `-1 - c` for a column inherited as canonical `c`.
        var rawIds: [Int32] = []
        var values: [String?] = []
        var problem: String?
    }

    /// Which canonical columns the current draft of one nesting level already has, and where.
    private struct Seen {
        var serial: UInt32 = 0
        var stamps: [UInt32] = []
        var slots: [Int32] = []

        mutating func reset() {
            serial &+= 1
            if serial == 0 {
                stamps = []
                slots = []
                serial = 1
            }
        }

        /// The column's position when the current draft has it (growing the tables for new names).
        mutating func slot(of c: Int) -> Int? {
            if stamps.count <= c {
                stamps += repeatElement(0, count: c + 1 - stamps.count)
                slots += repeatElement(0, count: c + 1 - slots.count)
            }
            return stamps[c] == serial ? Int(slots[c]) : nil
        }

        mutating func record(_ c: Int, at position: Int) {
            stamps[c] = serial
            slots[c] = Int32(position)
        }
    }

    private let file: String
    var names: XMLNameTable
    private var inheritedIds: [Int32] = []
    private var unknownCounts: [Int] = []

    private var outer: Draft?
    private var nested: Draft?
    private var outerSeen = Seen()
    private var nestedSeen = Seen()
    private var nestedAssets: [Draft] = []
    private var droppedNestedAssets = 0
    private var lastColumnCount = 16

    private var columnName: Int32 = -1
    /// The open column's text so far (UTF-8), made a String once, when the column closes.
    private var columnText: [UInt8] = []
    private var columnSpoiled = false

    private struct ShapeKey: Hashable {
        let kind: RecordKind
        let rawIds: [Int32]
    }
    private var shapes: [ShapeKey: XMLRecordShape] = [:]
    private var lastShape: (kind: RecordKind, rawIds: [Int32], shape: XMLRecordShape)?

    private var indexes: [[Int32]: ColumnIndex] = [:]
    private var lastCandidateIndex: ([Int32], ColumnIndex)?
    /// The last asset or coalition column set (they come in runs of their own).
    private var lastOtherIndex: ([Int32], ColumnIndex)?

    init(file: String, canonicalName: @escaping (String) -> String) {
        self.file = file
        names = XMLNameTable(canonicalName: canonicalName)
        inheritedIds = Self.inheritedColumns.map { names.canonicalId(for: $0) }
    }

    // MARK: - Names

    /// Unknown names seen so far (elements and attributes) and how many times each was met.
    var unknownElementCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for (id, count) in unknownCounts.enumerated() where count > 0 { counts[names.raw[id], default: 0] += count }
        return counts
    }

    /// Counts an element whose content is ignored (unknown structure, or foreign metadata).
    mutating func countIgnored(_ id: Int32) {
        count(id)
    }

    @inline(__always) private mutating func count(_ id: Int32) {
        let i = Int(id)
        if unknownCounts.count <= i { unknownCounts += repeatElement(0, count: i + 1 - unknownCounts.count) }
        unknownCounts[i] += 1
    }

    // MARK: - Records

    /// True while a `<candidato>` is open and no `<bem>` inside it is (its `<bens>`/`<bem>` are its assets).
    var isInCandidate: Bool { outer?.kind == .candidate && nested == nil }

    /// Starts a record at the top level (a candidato, or a standalone bem).
    mutating func beginRecord(kind: RecordKind, line: Int) {
        var draft = Draft(kind: kind, line: line)
        draft.canonicalIds.reserveCapacity(lastColumnCount)
        draft.rawIds.reserveCapacity(lastColumnCount)
        draft.values.reserveCapacity(lastColumnCount)
        outer = draft
        outerSeen.reset()
        nestedAssets.removeAll(keepingCapacity: true)
        droppedNestedAssets = 0
    }

    /// Starts a `<bem>` inside the open `<candidato>`.
    mutating func beginNestedAsset(line: Int) {
        nested = Draft(kind: .asset, line: line)
        nestedSeen.reset()
    }

    /// Adds one attribute of the record element as a column (an empty value means no value).
    ///
    /// `value` is as libxml2's SAX2 parser hands it over: references resolved, except that without entity
    /// substitution every `&` of the value arrives as `&#38;` (the tree builder would undo that; so do we).
    mutating func addAttribute(_ id: Int32, value: UnsafeBufferPointer<xmlChar>?) {
        guard let value, let base = value.baseAddress, !value.isEmpty else { return addColumn(id, nil) }
        guard memchr(base, 0x26, value.count) != nil else {
            return addColumn(id, Self.makeString(base, count: value.count))
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(value.count)
        var k = 0
        let ampersand: [UInt8] = Array("&#38;".utf8)
        while k < value.count {
            if value[k] == 0x26, k + 5 <= value.count, ampersand.indices.allSatisfy({ value[k + $0] == ampersand[$0] })
            {
                decoded.append(0x26)
                k += 5
            } else {
                decoded.append(value[k])
                k += 1
            }
        }
        addColumn(id, String(decoding: decoded, as: UTF8.self))
    }

    /// Starts a child element that may be a column (it is one if it holds only text).
    mutating func beginColumn(_ id: Int32) {
        columnName = id
        if columnText.capacity > 1 << 16 {
            columnText = []  // do not keep a huge value's buffer for the rest of the file
        } else {
            columnText.removeAll(keepingCapacity: true)
        }
        columnSpoiled = false
    }

    /// Text (or CDATA) inside the open column element, in one or more pieces.
    mutating func appendText(_ pointer: UnsafePointer<xmlChar>, _ count: Int) {
        guard count > 0, !columnSpoiled else { return }
        if columnText.count + count > Self.maximumValueBytes {
            markProblem("<\(names.raw[Int(columnName)])> holds more than \(Self.maximumValueBytes) bytes of text")
            columnText = []
            return
        }
        columnText.append(contentsOf: UnsafeBufferPointer(start: pointer, count: count))
    }

    /// The open column element has a child element: it is not a column; its content is ignored.
    mutating func spoilColumn() {
        guard !columnSpoiled else { return }
        columnSpoiled = true
        count(columnName)
    }

    /// Closes the open column element.
    mutating func endColumn() {
        guard !columnSpoiled else { return }
        if columnText.isEmpty {
            addColumn(columnName, nil)
        } else {
            let text = columnText.withUnsafeBufferPointer { Self.makeString($0.baseAddress!, count: $0.count) }
            addColumn(columnName, text)
        }
    }

    /// Closes the innermost open record; finished records are appended to `output` in document order.
    mutating func endRecord(into output: inout [RecordOrReject]) {
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
        lastColumnCount = record.values.count
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

    private mutating func addColumn(_ id: Int32, _ value: String?) {
        if !names.known[Int(id)] { count(id) }
        if nested != nil {
            Self.add(id, value, to: &nested!, seen: &nestedSeen, names: names)
        } else if outer != nil {
            Self.add(id, value, to: &outer!, seen: &outerSeen, names: names)
        }
    }

    private static func add(_ id: Int32, _ value: String?, to draft: inout Draft, seen: inout Seen, names: XMLNameTable)
    {
        let canonical = names.canonical[Int(id)]
        let c = Int(canonical)
        if let slot = seen.slot(of: c) {
            // The same column twice (or an old and a new name for it): fine when they agree.
            guard let value else { return }
            if let existing = draft.values[slot], existing != value {
                let first = names.raw[Int(draft.rawIds[slot])]
                let second = names.raw[Int(id)]
                let column = names.canonicalNames[c]
                draft.problem =
                    draft.problem ?? "column \(column) appears twice with different values (<\(first)> and <\(second)>)"
            } else {
                draft.values[slot] = value
            }
            return
        }
        guard draft.values.count < Self.maximumColumnsPerRecord else {
            draft.problem = draft.problem ?? "more than \(Self.maximumColumnsPerRecord) columns in one record"
            return
        }
        seen.record(c, at: draft.values.count)
        draft.canonicalIds.append(canonical)
        draft.rawIds.append(id)
        draft.values.append(value)
    }

    private mutating func markProblem(_ problem: String) {
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
            guard let from = candidate.canonicalIds.firstIndex(of: c), let value = candidate.values[from] else {
                continue
            }
            if let own = asset.canonicalIds.firstIndex(of: c) {
                if asset.values[own] == nil { asset.values[own] = value }
            } else {
                asset.canonicalIds.append(c)
                asset.rawIds.append(-1 - c)
                asset.values.append(value)
            }
        }
    }

    private mutating func finish(_ draft: Draft) -> RecordOrReject {
        let location = SourceLocation(file: file, line: draft.line)
        let shape = self.shape(draft.rawIds, draft.kind)
        if let problem = draft.problem {
            return .reject(MalformedRow(location: location, reason: problem, rawBytes: shape.render(draft.values)))
        }
        let columns = columnIndex(draft.canonicalIds, draft.kind)
        return .record(Record(kind: draft.kind, columns: columns, values: draft.values, location: location, xml: shape))
    }

    private mutating func columnIndex(_ signature: [Int32], _ kind: RecordKind) -> ColumnIndex {
        if kind == .candidate, let (last, index) = lastCandidateIndex, last == signature { return index }
        if kind != .candidate, let (last, index) = lastOtherIndex, last == signature { return index }
        let index: ColumnIndex
        if let cached = indexes[signature] {
            index = cached
        } else {
            // A file whose records each have their own column set must not grow this without bound.
            if indexes.count >= 1024 { indexes.removeAll() }
            index = ColumnIndex(names: signature.map { names.canonicalNames[Int($0)] })
            indexes[signature] = index
        }
        if kind == .candidate { lastCandidateIndex = (signature, index) } else { lastOtherIndex = (signature, index) }
        return index
    }

    /// The shared `rawBytes` renderer of records of one kind whose columns had these names in the file.
    private mutating func shape(_ rawIds: [Int32], _ kind: RecordKind) -> XMLRecordShape {
        if let last = lastShape, last.kind == kind, last.rawIds == rawIds { return last.shape }
        let key = ShapeKey(kind: kind, rawIds: rawIds)
        let shape: XMLRecordShape
        if let cached = shapes[key] {
            shape = cached
        } else {
            if shapes.count >= 1024 { shapes.removeAll() }
            shape = XMLRecordShape(
                kind: kind,
                names: rawIds.map { id in
                    id >= 0 ? Array(names.raw[Int(id)].utf8) : Array(names.canonicalNames[Int(-1 - id)].utf8)
                })
            shapes[key] = shape
        }
        lastShape = (kind, rawIds, shape)
        return shape
    }

    @inline(__always) private static func makeString(_ pointer: UnsafePointer<xmlChar>, count: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}
