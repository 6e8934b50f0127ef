import Foundation

/// Dates as the store writes them: ISO-8601 UTC text with milliseconds, `2016-04-12T00:00:00.000Z`.
///
/// Hand-written (civil-from-days) because DateFormatter is far too slow for bulk loads; the text sorts
/// chronologically and SQLite's date functions read it.
public enum ISODate {
    /// Formats a date as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).
    public static func format(_ date: Date) -> String {
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let days = totalMillis >= 0 ? totalMillis / 86_400_000 : (totalMillis - 86_399_999) / 86_400_000
        let msOfDay = totalMillis - days * 86_400_000
        let (y, m, d) = civil(fromDays: days)
        let h = msOfDay / 3_600_000, mi = (msOfDay / 60_000) % 60, s = (msOfDay / 1000) % 60, ms = msOfDay % 1000
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func put(_ v: Int64, _ width: Int) {
            var digits = [UInt8](repeating: 48, count: width)
            var v = v
            for i in stride(from: width - 1, through: 0, by: -1) {
                digits[i] = UInt8(48 + v % 10)
                v /= 10
            }
            bytes += digits
        }
        if y < 0 { bytes.append(45) }
        put(abs(y), 4); bytes.append(45); put(m, 2); bytes.append(45); put(d, 2)
        bytes.append(84); put(h, 2); bytes.append(58); put(mi, 2); bytes.append(58); put(s, 2)
        bytes.append(46); put(ms, 3); bytes.append(90)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses what `format` writes, and also `YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS`, with or without
    /// fraction and `Z`; nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        func num(_ from: Int, _ len: Int) -> Int64? {
            guard from + len <= b.count else { return nil }
            var v: Int64 = 0
            for i in from..<(from + len) {
                let c = b[i]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard b.count >= 10, b[4] == 45, b[7] == 45, let y = num(0, 4), let m = num(5, 2), let d = num(8, 2),
            (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        var millis: Int64 = 0
        if b.count > 10 {
            guard b.count >= 19, b[10] == 84 || b[10] == 32, let h = num(11, 2), let mi = num(14, 2), let s = num(17, 2),
                h < 24, mi < 60, s < 61
            else { return nil }
            millis = ((h * 60 + mi) * 60 + s) * 1000
            var i = 19
            if i < b.count && b[i] == 46 {
                i += 1
                var scale: Int64 = 100
                while i < b.count, b[i] >= 48 && b[i] <= 57 {
                    millis += Int64(b[i] - 48) * scale
                    scale /= 10
                    i += 1
                }
            }
            if i < b.count && b[i] == 90 { i += 1 }
            guard i == b.count else { return nil }
        }
        let days = self.days(fromCivil: y, m, d)
        return Date(timeIntervalSince1970: Double(days * 86_400_000 + millis) / 1000)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    public static func days(fromCivil y: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y - 1 : y
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// A UTC date from calendar fields (no validation beyond arithmetic).
    public static func date(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Date {
        let days = days(fromCivil: Int64(year), Int64(month), Int64(day))
        return Date(timeIntervalSince1970: Double(days * 86_400 + Int64(hour * 3600 + minute * 60 + second)))
    }

    static func civil(fromDays z: Int64) -> (Int64, Int64, Int64) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
