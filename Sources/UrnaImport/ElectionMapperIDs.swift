import Foundation

/// The identifiers `ElectionMapper` writes, built byte by byte (two per row, so their cost shows).
extension ElectionMapper {
    /// Whether two strings have the same UTF-8 bytes (String's `==` also equates canonically equivalent texts,
    /// whose ids would differ).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                x.count == y.count
                    && (x.count == 0 || x.baseAddress == y.baseAddress
                        || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
    }

    /// `"\(parent)/\(child)"`.
    static func childID(_ parent: String, _ child: String) -> String { parent + "/" + child }

    /// `"\(parent)/\(number)"` (a candidacy's id from its election's, an asset's from its candidacy's),
    /// written in one allocation: interpolation costs several calls and a growing buffer, for two ids a row.
    static func childID(_ parent: String, _ number: Int64) -> String {
        var parent = parent
        return parent.withUTF8 { prefix in
            String(unsafeUninitializedCapacity: prefix.count + 21) { out in
                var n = prefix.count
                if let base = prefix.baseAddress { out.baseAddress!.update(from: base, count: n) }
                out[n] = UInt8(ascii: "/")
                n += 1
                if number < 0 {
                    out[n] = UInt8(ascii: "-")
                    n += 1
                }
                // Digits of the magnitude, written backwards after a count of them.
                var magnitude = number.magnitude
                var digits = 1
                var rest = magnitude / 10
                while rest > 0 {
                    digits += 1
                    rest /= 10
                }
                for k in stride(from: n + digits - 1, through: n, by: -1) {
                    out[k] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                }
                return n + digits
            }
        }
    }
}
