/// TSE dates and timestamps, parsed by bytes into the store's ISO text (`ISODate.format`'s exact form).
///
/// Four forms occur: `dd/MM/yyyy`, `dd/MM/yyyy HH:mm:ss`, `ddMMyyyy` (2004 originals: `26081957`), and the
/// Oracle style of the 2010 originals, `22-MAR-52` (English or Portuguese month abbreviations, any case).
/// `yyyy-MM-dd` (with an optional ` HH:mm:ss` or `THH:mm:ss`) is read too: a spreadsheet or database tool that
/// saves a TSE file again writes its dates so, and the form cannot be misread. A two-digit year is put in the
/// latest century that does not place it after `referenceYear` (the election year for a birth date),
/// so `52` read for the 2010 election is 1952 and `05` is 2005. A slash date is read day first unless `order` says
/// the file writes `M/d/yyyy` (a spreadsheet in a US locale) or that its order is unknown.
///
/// ```swift
/// TSEDate.parse("27/03/1967")                          // .date("1967-03-27T00:00:00.000Z")
/// TSEDate.parse("22-MAR-52", referenceYear: 2010)     // .date("1952-03-22T00:00:00.000Z")
/// TSEDate.parse("19/09/2018 10:12:53")                 // .date("2018-09-19T10:12:53.000Z")
/// ```
public enum TSEDate {
    /// Result of reading a date field.
    public enum Parsed: Equatable, Sendable {
        /// A null marker or no value.
        case null
        /// The date as the store keeps it (ISO-8601 UTC text with milliseconds).
        case date(String)
        /// Not a date in any known form.
        case invalid
    }

    /// Which of a slash date's first two numbers is the day (`3/7/1967`): TSE writes `dd/MM/yyyy`, a spreadsheet in
    /// a US locale `M/d/yyyy`. Decided per file from its values (`DateOrderSniffer`).
    public enum Order: Sendable, Equatable {
        /// `d/M/yyyy`, as TSE writes dates.
        case dayFirst
        /// `M/d/yyyy`, as a spreadsheet in a US locale saves them.
        case monthFirst
        /// The file's dates do not tell: a slash date whose first two numbers could each be the month
        /// (`3/7/1967`) is no date; one that shows its order (`3/27/1967`, `27/3/1967`) is read so.
        case undecided
    }

    /// Reads one date field (null markers included); `referenceYear` places two-digit years.
    public static func parse(_ raw: String?, referenceYear: Int? = nil, order: Order = .dayFirst) -> Parsed {
        guard let c = components(raw, referenceYear: referenceYear, order: order) else { return .null }
        guard let c = c else { return .invalid }
        return .date(iso(c))
    }

    /// A date and a separate time column (`DT_ULTIMA_ATUALIZACAO` + `HH_ULTIMA_ATUALIZACAO`); a missing or
    /// unreadable time leaves midnight.
    public static func parse(
        date raw: String?, time rawTime: String?, referenceYear: Int? = nil, order: Order = .dayFirst
    ) -> Parsed {
        guard let c = components(raw, referenceYear: referenceYear, order: order) else { return .null }
        guard var c = c else { return .invalid }
        if let rawTime {
            var time = TSEField.clean(rawTime)
            if let t = time.withUTF8(timeOfDay) { (c.hour, c.minute, c.second) = t }
        }
        return .date(iso(c))
    }

    /// Calendar fields of one date or timestamp.
    struct Components {
        var year, month, day: Int
        var hour = 0, minute = 0, second = 0
    }

    /// nil for a null marker; .some(nil) for text that is no date.
    private static func components(_ raw: String?, referenceYear: Int?, order: Order) -> Components?? {
        guard let raw else { return .none }
        var text = TSEField.clean(raw)
        if TSEField.isTextNullMarker(text) || TSEField.isNumericNullMarker(text) { return .none }
        return .some(
            text.withUTF8 { parseBytes($0, referenceYear: referenceYear ?? defaultReferenceYear, order: order) })
    }

    /// What a slash date (`a/b/yyyy`, with or without a time) tells of its file's order.
    public enum OrderEvidence: Sendable, Equatable {
        /// The first number is over 12 (`27/3/1967`): day first.
        case dayFirst
        /// The second number is over 12 (`3/27/1967`): month first.
        case monthFirst
        /// Both numbers are 12 or less and differ (`3/7/1967`): either order reads a date. `padded` when both are
        /// written with two digits, as TSE writes them.
        case ambiguous(padded: Bool)
    }

    /// What `raw` tells of its file's date order; nil for anything but a slash date with two different numbers
    /// (`07/07/1967` reads the same either way).
    public static func orderEvidence(_ raw: String?) -> OrderEvidence? {
        guard let raw else { return nil }
        var text = raw
        return text.withUTF8 { b -> OrderEvidence? in
            var i = 0
            while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
            let firstStart = i
            guard let first = digits(b, &i, maxDigits: 2), i < b.count, b[i] == 0x2F else { return nil }
            let firstDigits = i - firstStart
            i += 1
            let secondStart = i
            guard let second = digits(b, &i, maxDigits: 2), i < b.count, b[i] == 0x2F else { return nil }
            let secondDigits = i - secondStart
            guard first >= 1, second >= 1, first <= 31, second <= 31, first != second else { return nil }
            if first > 12 { return second <= 12 ? .dayFirst : nil }
            if second > 12 { return .monthFirst }
            return .ambiguous(padded: firstDigits == 2 && secondDigits == 2)
        }
    }

    /// Used when no election year is known: two-digit years up to 2029 are 20xx.
    static let defaultReferenceYear = 2029

    static func parseBytes(
        _ b: UnsafeBufferPointer<UInt8>, referenceYear: Int, order: Order = .dayFirst
    ) -> Components? {
        if b.count == 8, b.allSatisfy({ $0 &- 0x30 <= 9 }) {
            // ddMMyyyy, as the 2004 originals write birth dates (26081957).
            func n(_ at: Int, _ length: Int) -> Int { (at..<(at + length)).reduce(0) { $0 * 10 + Int(b[$1] &- 0x30) } }
            let day = n(0, 2)
            let month = n(2, 2)
            let year = n(4, 4)
            guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), year > 0 else {
                return nil
            }
            return Components(year: year, month: month, day: day)
        }
        var i = 0
        var isoOrder = false
        if b.count >= 10, b[4] == 0x2D, b[7] == 0x2D, (0..<4).allSatisfy({ b[$0] &- 0x30 <= 9 }) {
            // yyyy-MM-dd (ISO 8601), as a spreadsheet or a database tool writes a date column it saves again.
            isoOrder = true
        }
        func number(maxDigits: Int) -> Int? { digits(b, &i, maxDigits: maxDigits) }
        if isoOrder {
            guard let year = number(maxDigits: 4), i == 4 else { return nil }
            i += 1
            guard let month = number(maxDigits: 2), i == 7 else { return nil }
            i += 1
            guard let day = number(maxDigits: 2), i == 10 else { return nil }
            return timeAndCheck(b, from: i, Components(year: year, month: month, day: day))
        }
        guard var day = number(maxDigits: 2), i < b.count else { return nil }
        let separator = b[i]
        i += 1
        var month: Int
        if separator == 0x2F {  // dd/MM/yyyy (or M/d/yyyy, as the file's order says)
            guard let m = number(maxDigits: 2), i < b.count, b[i] == 0x2F else { return nil }
            i += 1
            month = m
            switch order {
            case .dayFirst: break
            case .monthFirst: swap(&day, &month)
            case .undecided:
                if day <= 12 && month <= 12 && day != month { return nil }
                if month > 12 { swap(&day, &month) }
            }
        } else if separator == 0x2D {  // dd-MON-yy
            guard i + 3 < b.count, let m = monthNumber(b[i], b[i + 1], b[i + 2]), b[i + 3] == 0x2D else { return nil }
            i += 4
            month = m
        } else {
            return nil
        }
        let yearStart = i
        guard var year = number(maxDigits: 4) else { return nil }
        let yearDigits = i - yearStart
        if yearDigits == 2 {
            let century = referenceYear / 100 * 100
            year += century
            if year > referenceYear { year -= 100 }
        } else if yearDigits != 4 {
            return nil
        }
        return timeAndCheck(b, from: i, Components(year: year, month: month, day: day))
    }

    /// The value of 1 to `maxDigits` ASCII digits at `i` (moved past them); nil when there is none.
    private static func digits(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, maxDigits: Int) -> Int? {
        var v = 0
        var n = 0
        while i < b.count, n < maxDigits, b[i] &- 0x30 <= 9 {
            v = v * 10 + Int(b[i] &- 0x30)
            i += 1
            n += 1
        }
        return n == 0 ? nil : v
    }

    /// `c` with the time that follows its date at `from` (` HH:mm[:ss]` or `THH:mm[:ss]`, or nothing), if the
    /// text ends there and the day exists.
    private static func timeAndCheck(_ b: UnsafeBufferPointer<UInt8>, from start: Int, _ c: Components) -> Components? {
        var i = start
        func number(maxDigits: Int) -> Int? { digits(b, &i, maxDigits: maxDigits) }
        let (year, month, day) = (c.year, c.month, c.day)
        var hour = 0
        var minute = 0
        var second = 0
        if i < b.count {
            guard b[i] == 0x20 || b[i] == 0x54 else { return nil }
            i += 1
            guard let h = number(maxDigits: 2), i < b.count, b[i] == 0x3A else { return nil }
            i += 1
            guard let mi = number(maxDigits: 2) else { return nil }
            var s = 0
            if i < b.count && b[i] == 0x3A {
                i += 1
                guard let sv = number(maxDigits: 2) else { return nil }
                s = sv
            }
            guard h < 24, mi < 60, s < 60 else { return nil }
            hour = h
            minute = mi
            second = s
        }
        guard i == b.count, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else {
            return nil
        }
        return Components(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// `HH:mm:ss` or `HH:mm` as (hour, minute, second), also with a 12-hour clock's ` AM`/` PM` (`6:37:33 PM`, as a
    /// spreadsheet in a US locale saves a time); nil when it is not a time of day.
    static func timeOfDay(_ b: UnsafeBufferPointer<UInt8>) -> (Int, Int, Int)? {
        var end = b.count
        var meridiem: UInt8? = nil  // 'a' or 'p'
        if end >= 2, b[end - 1] | 0x20 == 0x6D, [0x61, 0x70].contains(b[end - 2] | 0x20) {
            meridiem = b[end - 2] | 0x20
            end -= 2
            if end > 0, b[end - 1] == 0x20 { end -= 1 }
        }
        var values = (0, 0, 0)
        var field = 0
        var digits = 0
        var value = 0
        for c in b[0..<end] {
            if c == 0x3A {
                guard digits > 0, field < 2 else { return nil }
                if field == 0 { values.0 = value } else { values.1 = value }
                field += 1
                digits = 0
                value = 0
            } else {
                let d = c &- 0x30
                guard d <= 9, digits < 2 else { return nil }
                value = value * 10 + Int(d)
                digits += 1
            }
        }
        guard digits > 0, field >= 1 else { return nil }
        if field == 1 { values.1 = value } else { values.2 = value }
        if let meridiem {
            guard (1...12).contains(values.0) else { return nil }
            values.0 = values.0 % 12 + (meridiem == 0x70 ? 12 : 0)
        }
        guard values.0 < 24, values.1 < 60, values.2 < 60 else { return nil }
        return values
    }

    static func iso(_ c: Components) -> String {
        iso(year: c.year, month: c.month, day: c.day, hour: c.hour, minute: c.minute, second: c.second)
    }

    /// The exact text `ISODate.format` writes for this UTC instant (years 0-9999).
    static func iso(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> String {
        String(unsafeUninitializedCapacity: 24) { out in
            func put(_ v: Int, _ at: Int, _ width: Int) {
                var v = v
                for k in stride(from: at + width - 1, through: at, by: -1) {
                    out[k] = UInt8(0x30 + v % 10)
                    v /= 10
                }
            }
            put(year, 0, 4)
            out[4] = 0x2D
            put(month, 5, 2)
            out[7] = 0x2D
            put(day, 8, 2)
            out[10] = 0x54
            put(hour, 11, 2)
            out[13] = 0x3A
            put(minute, 14, 2)
            out[16] = 0x3A
            put(second, 17, 2)
            out[19] = 0x2E
            out[20] = 0x30
            out[21] = 0x30
            out[22] = 0x30
            out[23] = 0x5A
            return 24
        }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// English (Oracle) and Portuguese three-letter month names, any letter case.
    static func monthNumber(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> Int? {
        let key = String(decoding: [a | 0x20, b | 0x20, c | 0x20], as: UTF8.self)
        return months[key]
    }

    private static let months: [String: Int] = [
        "jan": 1, "feb": 2, "fev": 2, "mar": 3, "apr": 4, "abr": 4, "may": 5, "mai": 5, "jun": 6, "jul": 7,
        "aug": 8, "ago": 8, "sep": 9, "set": 9, "oct": 10, "out": 10, "nov": 11, "dec": 12, "dez": 12,
    ]
}
