import Foundation

/// A Decimal's sign, exponent and significand read from its bytes, for the per-value paths that only need
/// them (Foundation's decimal arithmetic and NSDecimalNumber cost a microsecond or so per value). The layout
/// is not public API: it is checked once, against values built through the public API, and when it is not
/// the one expected `parts` always answers nil and callers take their Decimal arithmetic path.
enum DecimalParts {
    /// Byte 0: the exponent (Int8); byte 1: the significand's length in 16-bit words (high nibble), 0x08 the
    /// sign, 0x04 compact; bytes 4..<20: eight 16-bit words of significand, least significant first.
    static let layoutKnown: Bool = {
        guard MemoryLayout<Decimal>.size == 20 else { return false }
        let samples: [(FloatingPointSign, Int, UInt64)] = [
            (.plus, -2, 1234), (.minus, -2, 1234), (.plus, 3, 1), (.minus, -7, 0xFFFF_FFFF_FFFF_FFFF),
            (.plus, 0, 0x1_0000), (.minus, 5, 0xABCD_EF01_2345), (.plus, 0, 0),
        ]
        for (sign, exponent, units) in samples {
            let d = Decimal(sign: sign, exponent: exponent, significand: Decimal(units))
            // Decimal may normalise (12340e-3 as 1234e-2): the bytes must give back the value itself.
            guard let p = read(d), p.exponent == d.exponent, p.negative == (d.sign == .minus && !d.isZero),
                Decimal(sign: p.negative ? .minus : .plus, exponent: p.exponent, significand: Decimal(p.magnitude)) == d
            else { return false }
        }
        return read(Decimal.nan) == nil && read(Decimal(string: "1e30")!)?.magnitude == 1
            && read(Decimal(UInt64.max) * 65_536) == nil
    }()

    /// ±magnitude × 10^exponent; nil for NaN, for significands wider than 64 bits, or when the layout is unknown.
    @inline(__always) static func parts(_ d: Decimal) -> (negative: Bool, exponent: Int, magnitude: UInt64)? {
        guard layoutKnown else { return nil }
        return read(d)
    }

    @inline(__always) private static func read(_ d: Decimal) -> (negative: Bool, exponent: Int, magnitude: UInt64)? {
        withUnsafeBytes(of: d) { b -> (negative: Bool, exponent: Int, magnitude: UInt64)? in
            let flags = b[1]
            let length = Int(flags >> 4)
            let negative = flags & 0x08 != 0
            // Length 0 is zero, or NaN when negative.
            if length == 0 { return negative ? nil : (false, 0, 0) }
            guard length <= 4 else { return nil }
            var m: UInt64 = 0
            for w in stride(from: length - 1, through: 0, by: -1) {
                m = m << 16 | UInt64(b.loadUnaligned(fromByteOffset: 4 + 2 * w, as: UInt16.self))
            }
            return (negative, Int(Int8(bitPattern: b[0])), m)
        }
    }

    /// `d × 10^scale` when it is a whole number that fits in an Int64 (nil: the caller's Decimal arithmetic
    /// decides, and says what is wrong).
    @inline(__always) static func scaledInteger(_ d: Decimal, scale: Int) -> Int64? {
        guard let p = parts(d) else { return nil }
        let shift = p.exponent + scale
        guard shift >= 0, shift <= 19 else { return nil }
        var m = p.magnitude
        for _ in 0..<shift {
            let (r, overflow) = m.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            m = r
        }
        if p.negative {
            guard m <= UInt64(Int64.max) + 1 else { return nil }
            return m == UInt64(Int64.max) + 1 ? Int64.min : -Int64(m)
        }
        guard m <= UInt64(Int64.max) else { return nil }
        return Int64(m)
    }
}
