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
/// record's `rawBytes`. A record's column texts go straight from libxml2's buffers into one UTF-8 byte
/// array (no string per column), which becomes the record's `EncodedFields`. A value type, so the
/// per-node work runs without dynamic exclusivity checks.
struct XMLRecordAssembler {
    /// Columns a `<bem>` nested in a `<candidato>` takes from it when it has no value of its own.
    static let inheritedColumns = ["CD_ELEICAO", "ANO_ELEICAO", "DS_ELEICAO", "SQ_CANDIDATO", "SG_UF", "SG_UE"]
    /// Past this, a column's text is dropped and its record rejected (libxml2's own cap on one text node).
    static let maximumValueBytes = 10_000_000
    /// Past this, extra columns are dropped and the record rejected.
    static let maximumColumnsPerRecord = 10_000
    /// Past this, a record's further text is dropped and the record rejected (its fields' offsets are
    /// 31-bit).
    static let maximumRecordBytes = 1 << 30
    /// Past this, a candidato's further `<bem>`s are dropped and the candidato and its bens rejected:
    /// they are held in memory until `</candidato>`.
    static let maximumNestedAssets = 10_000
    /// `rawBytes` is cut at this size, as for CSV rows.
    static let maximumRawBytes = 65_536

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
    /// Room reserved in a new draft: as much as the last one of its level used, up to these caps (one
    /// huge record must not make every later one reserve as much).
    private static let reservedColumnsCap = 256
    private static let reservedTextCap = 16_384
    private var lastColumnCount = 16
    private var lastTextCount = 256
    private var lastNestedColumnCount = 8
    private var lastNestedTextCount = 128
    /// The column table of the last top-level record, kept for the next one (it is not part of the record).
    private var spareColumns: [Column] = []

    private var columnName: Int32 = -1
    /// Where the open column's text starts in its draft's `text` (it is appended there as it comes).
    private var columnStart = 0
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
        // The last record's column table, emptied, is reused.
        outer = Self.draft(kind, line: line, table: &spareColumns, columns: lastColumnCount, text: lastTextCount)
        outerSeen.reset()
        nestedAssets.removeAll(keepingCapacity: true)
        droppedNestedAssets = 0
    }

    /// Starts a `<bem>` inside the open `<candidato>`.
    mutating func beginNestedAsset(line: Int) {
        // Room for the keys it may inherit too.
        let columns = lastNestedColumnCount + Self.inheritedColumns.count
        var table: [Column] = []
        nested = Self.draft(.asset, line: line, table: &table, columns: columns, text: lastNestedTextCount + 64)
        nestedSeen.reset()
    }

    /// A new draft with room for a record like the last one of its level (`columns` columns holding
    /// `text` bytes) and some more, so that most records never grow their arrays. Its column table is
    /// `table`'s (taken, leaving it empty).
    private static func draft(_ kind: RecordKind, line: Int, table: inout [Column], columns: Int, text: Int) -> Draft {
        var draft = Draft(kind: kind, line: line)
        swap(&draft.columns, &table)
        draft.columns.reserveCapacity(columns + 8)
        draft.text.reserveCapacity(text + text / 4 + 32)
        return draft
    }

    /// Adds one attribute of the record element as a column (an empty value means no value).
    ///
    /// `value` is as libxml2's SAX2 parser hands it over: references resolved, except that without entity
    /// substitution every `&` of the value arrives as `&#38;` (the tree builder would undo that; so do we).
    mutating func addAttribute(_ id: Int32, value: UnsafeBufferPointer<xmlChar>?) {
        beginColumn(id)
        guard let value, let base = value.baseAddress, !value.isEmpty else { return endColumn() }
        guard memchr(base, 0x26, value.count) != nil else {
            appendText(base, value.count)
            return endColumn()
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
        decoded.withUnsafeBufferPointer { appendText($0.baseAddress!, $0.count) }
        endColumn()
    }

    /// Starts a child element that may be a column (it is one if it holds only text).
    mutating func beginColumn(_ id: Int32) {
        columnName = id
        columnSpoiled = false
        if nested != nil {
            columnStart = nested!.text.count
        } else if outer != nil {
            columnStart = outer!.text.count
        } else {
            columnSpoiled = true  // no record to hold it (cannot happen: columns are read inside records)
        }
    }

    /// Text (or CDATA) inside the open column element, in one or more pieces.
    mutating func appendText(_ pointer: UnsafePointer<xmlChar>, _ count: Int) {
        guard count > 0, !columnSpoiled else { return }
        let piece = UnsafeBufferPointer(start: pointer, count: count)
        let name = columnName
        if nested != nil {
            columnSpoiled = !Self.append(piece, to: &nested!, columnStart: columnStart, column: name, names: names)
        } else if outer != nil {
            columnSpoiled = !Self.append(piece, to: &outer!, columnStart: columnStart, column: name, names: names)
        }
    }

    /// Appends a piece of the open column's text to `draft`; false (the column's text dropped, the draft
    /// given a problem) when the column or the record would grow past its limit.
    private static func append(
        _ piece: UnsafeBufferPointer<xmlChar>, to draft: inout Draft, columnStart: Int, column: Int32,
        names: XMLNameTable
    ) -> Bool {
        if draft.text.count - columnStart + piece.count > maximumValueBytes {
            draft.problem =
                draft.problem ?? "<\(names.raw[Int(column)])> holds more than \(maximumValueBytes) bytes of text"
        } else if draft.text.count + piece.count > maximumRecordBytes {
            draft.problem = draft.problem ?? "one record holds more than \(maximumRecordBytes) bytes of text"
        } else {
            draft.text.append(contentsOf: piece)
            return true
        }
        draft.truncateText(to: columnStart)
        return false
    }

    /// The open column element has a child element: it is not a column; its content is ignored. When it bears a
    /// column's name (`<NM_CANDIDATO><b>JOAO</b></NM_CANDIDATO>`), its record is rejected: storing the row with
    /// that value missing would lose it without a word.
    mutating func spoilColumn() {
        guard !columnSpoiled else { return }
        columnSpoiled = true
        let reason: String? =
            names.known[Int(columnName)]
            ? "<\(names.raw[Int(columnName)])> holds an element inside its value (markup): its text cannot be read as one "
                + "field; remove the markup" : nil
        if nested != nil {
            nested!.truncateText(to: columnStart)
            if nested!.problem == nil { nested!.problem = reason }
        } else if outer != nil {
            outer!.truncateText(to: columnStart)
            if outer!.problem == nil { outer!.problem = reason }
        }
        count(columnName)
    }

    /// Closes the open column element: the text appended since it began is its value (none if empty).
    mutating func endColumn() {
        guard !columnSpoiled else { return }
        let id = columnName
        if !names.known[Int(id)] { count(id) }
        let canonical = names.canonical[Int(id)]
        if nested != nil {
            if let slot = Self.add(id, canonical, from: columnStart, to: &nested!, seen: &nestedSeen) {
                nested!.problem = nested!.problem ?? conflict(nested!.columns[slot].raw, id)
            }
        } else if outer != nil {
            if let slot = Self.add(id, canonical, from: columnStart, to: &outer!, seen: &outerSeen) {
                outer!.problem = outer!.problem ?? conflict(outer!.columns[slot].raw, id)
            }
        }
    }

    /// Why a record whose column came twice with different values (as `first`, then `second`) is rejected.
    private func conflict(_ first: Int32, _ second: Int32) -> String {
        let column = names.canonicalNames[Int(names.canonical[Int(second)])]
        let (firstName, secondName) = (names.raw[Int(first)], names.raw[Int(second)])
        return "column \(column) appears twice with different values (<\(firstName)> and <\(secondName)>)"
    }

    /// Closes the innermost open record; finished records are appended to `output` in document order.
    mutating func endRecord(into output: inout [RecordOrReject]) {
        if let asset = nested {
            nested = nil
            lastNestedColumnCount = min(asset.columnCount, Self.reservedColumnsCap)
            lastNestedTextCount = min(asset.text.count, Self.reservedTextCap)
            if nestedAssets.count < Self.maximumNestedAssets {
                nestedAssets.append(asset)
            } else {
                droppedNestedAssets += 1
            }
            return
        }
        guard var record = outer else { return }
        outer = nil
        lastColumnCount = min(record.columnCount, Self.reservedColumnsCap)
        lastTextCount = min(record.text.count, Self.reservedTextCap)
        if droppedNestedAssets > 0 {
            record.problem = record.problem ?? "more than \(Self.maximumNestedAssets) <bem> in one <candidato>"
        }
        output.append(finish(record))
        let inheritable = nestedAssets.isEmpty ? [] : inheritableValues(of: record)
        swap(&record.columns, &spareColumns)
        spareColumns.removeAll(keepingCapacity: true)
        guard !nestedAssets.isEmpty else { return }
        // Taken out of `nestedAssets`, so each draft is mutated in place (not copied on write).
        var assets: [Draft] = []
        swap(&assets, &nestedAssets)
        for k in assets.indices {
            Self.inherit(inheritable, into: &assets[k])
            if let problem = record.problem {
                assets[k].problem =
                    assets[k].problem ?? "its <candidato> (line \(record.line)) was rejected: \(problem)"
            }
            output.append(finish(assets[k]))
        }
        assets.removeAll(keepingCapacity: true)
        swap(&assets, &nestedAssets)
    }

    /// Makes the text appended to `draft` since `start` the value of column `id` (no value when empty).
    /// Returns the position of the column when it was there already with another value (the draft keeps
    /// the first one; the caller rejects the record).
    private static func add(
        _ id: Int32, _ canonical: Int32, from start: Int, to draft: inout Draft, seen: inout Seen
    ) -> Int? {
        let end = draft.text.count
        let c = Int(canonical)
        if let slot = seen.slot(of: c) {
            // The same column twice (or an old and a new name for it): fine when they agree.
            guard end > start else { return nil }
            guard let existing = draft.value(slot) else {
                draft.columns[slot].setText(start, end)
                return nil
            }
            let value = draft.text[start..<end]
            if existing.elementsEqual(value) {
                draft.truncateText(to: start)
            } else if String(decoding: existing, as: UTF8.self) == String(decoding: value, as: UTF8.self) {
                draft.columns[slot].setText(start, end)  // the same text in another normalisation: the later wins
            } else {
                draft.truncateText(to: start)
                return slot
            }
            return nil
        }
        guard draft.columnCount < Self.maximumColumnsPerRecord else {
            draft.problem = draft.problem ?? "more than \(Self.maximumColumnsPerRecord) columns in one record"
            draft.truncateText(to: start)
            return nil
        }
        seen.record(c, at: draft.columnCount)
        draft.columns.append(Column(canonical: canonical, raw: id, start: start, end: end))
        return nil
    }

    /// The candidato's values of the columns its bens inherit (those it has a value for), in inheriting order.
    private func inheritableValues(of candidate: Draft) -> [(c: Int32, value: ArraySlice<UInt8>)] {
        inheritedIds.compactMap { c in
            guard let from = candidate.columns.firstIndex(where: { $0.canonical == c }),
                let value = candidate.value(from)
            else {
                return nil
            }
            return (c, value)
        }
    }

    /// Fills the asset's missing keys from its candidato; inherited columns go last, named canonically.
    private static func inherit(_ inheritable: [(c: Int32, value: ArraySlice<UInt8>)], into asset: inout Draft) {
        for (c, value) in inheritable {
            if let own = asset.columns.firstIndex(where: { $0.canonical == c }) {
                if !asset.columns[own].hasValue { asset.setValue(own, value) }
            } else {
                asset.appendColumn(canonical: c, raw: -1 - c, value)
            }
        }
    }

    private mutating func finish(_ draft: Draft) -> RecordOrReject {
        let location = SourceLocation(file: file, line: draft.line)
        let shape = self.shape(of: draft)
        let fields = EncodedFields(bytes: draft.text, spans: draft.spans, encoding: .utf8, quote: 0)
        if let problem = draft.problem {
            return .reject(MalformedRow(location: location, reason: problem, rawBytes: shape.render(fields)))
        }
        let columns = columnIndex(of: draft)
        return .record(Record(kind: draft.kind, columns: columns, fields: fields, location: location, xml: shape))
    }

    private mutating func columnIndex(of draft: Draft) -> ColumnIndex {
        let kind = draft.kind
        if kind == .candidate, let (last, index) = lastCandidateIndex, draft.hasCanonicalIds(last) { return index }
        if kind != .candidate, let (last, index) = lastOtherIndex, draft.hasCanonicalIds(last) { return index }
        let signature = draft.canonicalIds
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
    private mutating func shape(of draft: Draft) -> XMLRecordShape {
        let kind = draft.kind
        if let last = lastShape, last.kind == kind, draft.hasRawIds(last.rawIds) { return last.shape }
        let rawIds = draft.rawIds
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
}
