import Foundation
import UrnaRecords
import UrnaSchemas
import UrnaStore

/// The warnings of the record being mapped (one list, emptied for every record).
final class FieldWarnings {
    var list: [FieldWarning] = []
}

/// Reads one record's fields by position, turning TSE conventions into values, warnings or problems.
///
/// Optional fields never cost the row: a value that cannot be read (or is out of its domain, like a negative
/// number) becomes nil and a `FieldWarning`. Only the identifying fields (`requiredInteger`) throw.
struct FieldReader {
    let record: Record
    let columns: MapperColumnPositions
    let interner: FieldInterner
    /// The record's bytes (a CSV row's, or an XML record's column texts), lent for the time of one `map`
    /// call (nil for records built from strings).
    let row: EncodedRowView?
    let warnings: FieldWarnings
    /// How the file writes its slash dates (day or month first), as its values showed.
    var dateOrder: TSEDate.Order = .dayFirst
    /// The order of each date column whose own values showed one (`DateOrderSniffer.columnOrders`); the others
    /// follow `dateOrder`.
    var columnDateOrders: [String: TSEDate.Order] = [:]
    /// Whether some date of the file showed its order (false: `dateOrder` is TSE's, taken for want of any sign).
    var dateOrderShown = true
    /// Whether `dateOrder` was asked for by the person (`--date-order`) rather than shown by the file.
    var dateOrderAsked = false

    /// The order column `name`'s slash dates are read in.
    @inline(__always) func dateOrder(_ name: String) -> TSEDate.Order {
        columnDateOrders.isEmpty ? dateOrder : (columnDateOrders[name] ?? dateOrder)
    }

    /// A field's text as read (not cleaned); nil when the layout lacks the column.
    @inline(__always) func raw(_ c: MapperColumn) -> String? {
        guard let p = columns.position(c) else { return nil }
        return raw(at: p)
    }

    @inline(__always) func raw(at p: Int) -> String? {
        if let row, let bytes = row.field(p) { return row.encoding.decode(bytes) }
        return record.value(at: p)
    }

    @inline(__always) func text(_ c: MapperColumn) -> String? { remembered(c, .text) }

    @inline(__always) func code(_ c: MapperColumn) -> String? { remembered(c, .code) }

    /// Columns that repeat from row to row go through the interner; the others are decoded each time.
    @inline(__always) private func remembered(_ c: MapperColumn, _ reading: FieldInterner.Reading) -> String? {
        if c.repeatsAcrossRows, let p = columns.position(c), let row, let bytes = row.field(p) {
            return interner.value(c, reading, bytes: bytes, encoding: row.encoding)
        }
        return FieldInterner.read(reading, raw(c))
    }

    /// A whole number that is not negative, or nil (with a warning when the text is not one).
    func integer(_ c: MapperColumn) -> Int64? {
        // Most integer fields are plain digits: read them from the row's bytes without building a string.
        if let p = columns.position(c), let row, let bytes = row.field(p), let v = FieldReader.plainDigits(bytes) {
            return v
        }
        switch TSEField.integer(raw(c)) {
        case .null: return nil
        case .value(let v) where v >= 0: return v
        case .value:
            warn(c, "\(c.name) is negative, which no TSE number is: the field is left empty; correct it")
            return nil
        case .invalid:
            guard let p = columns.position(c) else { return nil }
            return readBack(at: p, name: c.name, "the field is left empty; correct it (or empty it if unknown)")
        }
    }

    /// A whole-number field's text that is not one: a spreadsheet's thousands grouping (`10.001.619.992`) is read
    /// back with a correction warning; anything else is nil with a warning whose reason ends with `fix`, or names
    /// a spreadsheet's scientific notation, which lost the number's last digits (seventh real-files trial).
    func readBack(at p: Int, name: String, _ fix: String) -> Int64? {
        let text = TSEField.text(raw(at: p)) ?? ""
        if let v = TSEField.groupedInteger(text) {
            warn(
                at: p, name: name,
                "\(name) '\(text)' is written with thousands separators, as a spreadsheet that opened the file writes "
                    + "it: read as \(v); import TSE's file itself, or save the column as plain numbers", nulled: false)
            return v
        }
        if TSEField.isScientific(text) {
            warn(at: p, name: name, Self.scientific(name, text) + "the field is left empty; " + Self.scientificFix)
        } else {
            warn(at: p, name: name, "\(name) is not a whole number: " + fix)
        }
        return nil
    }

    /// The start of a reason for a field in a spreadsheet's scientific notation.
    static func scientific(_ name: String, _ text: String) -> String {
        "\(name) '\(text)' is in a spreadsheet's scientific notation, which has lost the number's last digits: "
    }

    /// What to do about a field in scientific notation.
    static let scientificFix = "import TSE's file itself, or format the column as text in the spreadsheet before saving"

    /// The value of 1 to 18 ASCII digits and nothing else (cannot overflow); nil for anything else,
    /// which then takes `TSEField.integer`'s full path (blanks, signs, null markers, errors).
    static func plainDigits(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count > 0, bytes.count <= 18 else { return nil }
        var v: Int64 = 0
        for b in bytes {
            let d = b &- 0x30
            guard d <= 9 else { return nil }
            v = v &* 10 &+ Int64(d)
        }
        return v
    }

    /// An identifying whole number: a row without it (or with a negative one) cannot be imported.
    func requiredInteger(_ c: MapperColumn, what: String) throws -> Int64 {
        guard columns.has(c) else {
            throw problem(c, "\(c.name) is missing from this layout: it holds \(what), which identifies the row")
        }
        if let p = columns.position(c), let row, let bytes = row.field(p), let v = FieldReader.plainDigits(bytes) {
            return v
        }
        switch TSEField.integer(raw(c)) {
        case .null:
            throw problem(c, "\(c.name) is empty: it holds \(what), which identifies the row; fill it in")
        case .value(let v) where v >= 0: return v
        case .value:
            throw problem(c, "\(c.name) is negative: it holds \(what), which identifies the row; correct it")
        case .invalid:
            let text = TSEField.text(raw(c)) ?? ""
            if let p = columns.position(c), TSEField.groupedInteger(text) != nil {
                return readBack(at: p, name: c.name, "")!
            }
            if TSEField.isScientific(text) {
                throw problem(
                    c,
                    Self.scientific(c.name, text) + "it holds \(what), which identifies the row; " + Self.scientificFix)
            }
            throw problem(c, "\(c.name) is not a whole number: it holds \(what), which identifies the row; correct it")
        }
    }

    func date(_ c: MapperColumn, referenceYear: Int?) -> String? {
        switch TSEDate.parse(raw(c), referenceYear: referenceYear, order: dateOrder(c.name)) {
        case .null: return nil
        case .date(let d): return d
        case .invalid:
            warnDate(c)
            return nil
        }
    }

    /// DT_NASCIMENTO, nulled with a warning when it falls after its election's year (out of its domain).
    func birthdate(electionYear: Int) -> String? {
        guard let d = date(.DT_NASCIMENTO, referenceYear: electionYear) else { return nil }
        guard let year = Int(d.prefix(4)), year <= electionYear else {
            warn(.DT_NASCIMENTO, "DT_NASCIMENTO is after the election year: the field is left empty; correct it")
            return nil
        }
        return d
    }

    /// An amount in cents that is not negative, or nil (with a warning when the text is not one).
    func money(_ c: MapperColumn) -> Int64? {
        switch Reais.parseCents(raw(c)) {
        case .null: return nil
        case .cents(let v) where v >= 0: return v
        case .cents:
            warn(c, "\(c.name) is a negative amount: the field is left empty; correct it")
            return nil
        case .invalid:
            warn(
                c,
                "\(c.name) is not an amount in reais (like 1270629.01 or 3669,04): the field is left empty; correct it")
            return nil
        }
    }

    /// Where CD_COR_RACA, a code TSE writes with two digits, sits among `ElectionsV4.sourceColumns`.
    static let raceCodeIndex = ElectionsV4.sourceColumns.firstIndex { $0.name == "CD_COR_RACA" } ?? -1

    /// The `ElectionsV4.sourceColumns` values of this row, typed (`.null` where absent or unreadable).
    func sourceValues(referenceYear: Int) -> [SQLValue] {
        let specs = ElectionsV4.sourceColumns
        guard columns.hasSourceColumns else { return [SQLValue](repeating: .null, count: specs.count) }
        var out: [SQLValue] = []
        out.reserveCapacity(specs.count)
        for (i, spec) in specs.enumerated() {
            let p = columns.sourcePositions[i]
            guard p >= 0 else {
                out.append(.null)
                continue
            }
            switch spec.type {
            case .integer:
                if let row, let bytes = row.field(p), let v = FieldReader.plainDigits(bytes) {
                    out.append(.integer(v))
                    continue
                }
                switch TSEField.integer(raw(at: p)) {
                case .null: out.append(.null)
                case .value(let v) where v >= 0: out.append(.integer(v))
                case .value:
                    warn(
                        at: p, name: spec.name,
                        "\(spec.name) is not a whole number of 0 or more: the field is left empty")
                    out.append(.null)
                case .invalid:
                    let v = readBack(at: p, name: spec.name, "the field is left empty")
                    out.append(v.map(SQLValue.integer) ?? .null)
                }
            case .text:
                let reading: FieldInterner.Reading = columns.sourceIsCode[i] ? .code : .text
                let text: String?
                if let row, let bytes = row.field(p) {
                    text = interner.sourceValue(i, reading, bytes: bytes, encoding: row.encoding)
                } else {
                    text = FieldInterner.read(reading, raw(at: p))
                }
                if i == Self.raceCodeIndex, let code = text, code.utf8.count == 1 {
                    out.append(.text(ElectionMapper.raceCode(code, at: p, self)))
                    continue
                }
                out.append(text.map(SQLValue.text) ?? .null)
            case .date:
                switch TSEDate.parse(raw(at: p), referenceYear: referenceYear, order: dateOrder(spec.name)) {
                case .null: out.append(.null)
                case .date(let d): out.append(.text(d))
                case .invalid:
                    if let reason = orderReason(at: p, name: spec.name) {
                        warn(at: p, name: spec.name, reason + "the field is left empty")
                        out.append(.null)
                        continue
                    }
                    warn(at: p, name: spec.name, "\(spec.name) is not a date (dd/MM/yyyy): the field is left empty")
                    out.append(.null)
                }
            }
        }
        return out
    }

    func warnDate(_ c: MapperColumn) {
        if let p = columns.position(c), let reason = orderReason(at: p, name: c.name) {
            warn(at: p, name: c.name, reason + "the field is left empty; " + orderFix(at: p, name: c.name))
            return
        }
        warn(
            c,
            "\(c.name) is not a date (expected dd/MM/yyyy, ddMMyyyy, dd/MM/yyyy HH:mm:ss, yyyy-MM-dd or 22-MAR-52): the field is "
                + "left empty; correct it, or empty it if unknown")
    }

    /// The fix for a date `orderReason` explains: against an asked order it lies in the option (writing it as
    /// dd/MM/yyyy, which it may already be, would be refused again); otherwise in how the date is written.
    func orderFix(at p: Int, name: String) -> String {
        switch (dateOrder(name), TSEDate.orderEvidence(raw(at: p))) {
        case (.monthFirst, .dayFirst?) where dateOrderAsked:
            return "import it without --date-order month-first (or with --date-order day-first), or write it as "
                + "yyyy-MM-dd"
        case (.dayFirst, .monthFirst?) where dateOrderAsked:
            return "import it without --date-order day-first (or with --date-order month-first), or write it as "
                + "yyyy-MM-dd"
        default:
            return "write it as dd/MM/yyyy or yyyy-MM-dd"
        }
    }

    /// Why the slash date at `p` is no date in this file's order, when its order is the reason: a date that could
    /// be read either way in a file whose dates do not tell, or one written in the other order than the file's.
    func orderReason(at p: Int, name: String) -> String? {
        guard let evidence = TSEDate.orderEvidence(raw(at: p)) else { return nil }
        let text = TSEField.text(raw(at: p)) ?? ""
        let own = columnDateOrders[name] != nil
        let others = own ? "\(name)'s other dates" : "this file's other dates"
        switch (dateOrder(name), evidence) {
        case (.dayFirst, .monthFirst) where dateOrderAsked:
            return "\(name) '\(text)' is written month first (M/d/yyyy), but the import was asked to read dates day "
                + "first (--date-order day-first): "
        case (.monthFirst, .dayFirst) where dateOrderAsked:
            return "\(name) '\(text)' is written day first (d/M/yyyy), but the import was asked to read dates month "
                + "first (--date-order month-first): "
        case (.undecided, .ambiguous):
            return "\(name) '\(text)' could be day/month or month/day, and this file's dates do not tell which "
                + "(it holds both orders, or no date that shows its order): "
        case (.dayFirst, .monthFirst) where !own && !dateOrderShown:
            // The file was read day first for want of any sign (its first rows' dates each read either way):
            // said as such, since the dates read before this one may have been month first.
            return "\(name) '\(text)' is written month first (M/d/yyyy), but no date in the rows looked at first "
                + "(\(DateOrderSniffer.window) or more) showed an order, so the file was read day first as TSE writes "
                + "it: if the file is month first, its earlier dates that read either way are wrong; save its dates "
                + "as yyyy-MM-dd and import it again: "
        case (.dayFirst, .monthFirst):
            return "\(name) '\(text)' is written month first (M/d/yyyy), but \(others) are day first: "
        case (.monthFirst, .dayFirst):
            return "\(name) '\(text)' is written day first (d/M/yyyy), but \(others) are month first "
                + "(M/d/yyyy, as a spreadsheet in a US locale saves them): "
        default:
            return nil
        }
    }

    /// Warns when the time column `c` holds text that is no time of day (its date was read without it): a time
    /// left out without a word is a value lost.
    func checkTime(_ c: MapperColumn, _ consequence: String) {
        guard let raw = raw(c) else { return }
        var cleaned = TSEField.clean(raw)
        if cleaned.isEmpty || TSEField.isTextNullMarker(cleaned) || TSEField.isNumericNullMarker(cleaned) { return }
        guard cleaned.withUTF8(TSEDate.timeOfDay) == nil else { return }
        warn(c, "\(c.name) is not a time of day (HH:mm:ss): \(consequence); correct it")
    }

    /// Whether column `c` holds a value (not empty and no null marker), readable or not.
    func holdsValue(_ c: MapperColumn) -> Bool { TSEField.code(raw(c)) != nil }

    /// Warns for each of `companions` that holds a value while `key`, which names what they belong to (a party, a
    /// coalition, a good type, an update's date), gave nothing: they are left empty with it. Before, only the key's
    /// own warning was written (or none, for an empty key), and SG_PARTIDO and NM_PARTIDO, a coalition's kind, name and
    /// composition, a good type's text or an update time went without a word (tenth real-files trial). A record
    /// without `key` at all (an XML record may leave out any element; a CSV header without it is refused) costs
    /// them the same way, and says so: before, they were dropped without a word (seventh session's review).
    func warnLostWith(_ key: MapperColumn, _ companions: [MapperColumn], _ owner: String) {
        let missing = !columns.has(key)
        let why =
            missing
            ? "is missing (the record has no \(key.name) field)" : holdsValue(key) ? "could not be read" : "is empty"
        let fix = missing ? "add \(key.name)" : "correct \(key.name)"
        for c in companions where holdsValue(c) {
            warn(
                c,
                "\(c.name) is left empty: it belongs to \(owner), which \(key.name) names, and \(key.name) \(why); "
                    + fix)
        }
    }

    /// Records that column `c` was nulled, with its original text.
    func warn(_ c: MapperColumn, _ reason: String) {
        guard let p = columns.position(c) else { return }
        warn(at: p, name: c.name, reason)
    }

    func warn(at position: Int, name: String, _ reason: String, nulled: Bool = true) {
        var location = record.location
        location.column = position + 1
        warnings.list.append(
            FieldWarning(location: location, reason: reason, original: raw(at: position) ?? "", nulled: nulled))
    }

    /// Records that column `c` was read in its TSE form rather than as written (the value is kept, corrected).
    func noteCorrected(_ c: MapperColumn, _ reason: String) {
        guard let p = columns.position(c) else { return }
        warn(at: p, name: c.name, reason, nulled: false)
    }

    func problem(_ c: MapperColumn, _ reason: String) -> MappingProblem {
        var location = record.location
        location.column = columns.fieldNumber(c)
        return MappingProblem(location: location, reason: reason)
    }
}
