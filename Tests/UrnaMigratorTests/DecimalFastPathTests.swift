import Foundation
import Testing

@testable import UrnaMigrator
@testable import UrnaStore

@Suite("Double -> decimal conversion: the fast path gives exactly what the Decimal path gives")
struct DecimalFastPathTests {
    /// The Decimal path alone (shortest text of the double, then scaled), as before the fast path.
    static func slow(_ r: Double, scale: Int) -> (SQLValue, Bool)? {
        guard let d = StoredValueConverter.decimal(.real(r), from: .double) else { return nil }
        return StoredValueConverter.scaled(d, scale: scale)
    }

    @Test("random cents, money-like values, awkward doubles and every scale 0...15 agree with the Decimal path")
    func agreesWithDecimalPath() {
        var rng = SystemRandomNumberGenerator()
        var values: [Double] = [
            0, -0.0, 0.1, 0.2, 0.1 + 0.2, 0.285, 1.005, 26_697_376.47, 69_752_863.96, -12_345_678_901_234.56,
            1e14, 1e15, 9.999_999_999_999_99e13, 123.456, 1.0 / 3.0, .pi, 5e-324, 1e-10, 4_503_599_627_370_496.5,
            1_125_899_906_842.62, 11_258_999_068_426.24,
        ]
        for _ in 0..<50_000 {
            values.append(Double(Int64.random(in: -10_000_000_000...10_000_000_000, using: &rng)) / 100)
            values.append(Double.random(in: -1e6...1e6, using: &rng))
            values.append(Double(Int64.random(in: -999_999...999_999, using: &rng)) / 1000)
        }
        var fast = 0
        for r in values {
            for scale in [0, 1, 2, 3, 4, 6, 10, 15] {
                guard let units = StoredValueConverter.exactUnits(r, scale: scale) else { continue }
                fast += 1
                let expected = Self.slow(r, scale: scale)
                #expect(expected?.0 == .integer(units) && expected?.1 == true, "\(r) at scale \(scale): \(units)")
            }
            // And through the converter: the same value and exactness as the Decimal path, fast or not.
            let got = StoredValueConverter.convert(.real(r), from: .double, to: .decimal(scale: 2))
            let want = Self.slow(r, scale: 2)
            #expect(got?.value == want?.0 && got?.exact == want?.1, "\(r)")
        }
        #expect(fast > 100_000, "the fast path was taken \(fast) times")
        // The rounding path (more digits than the scale) gives the Decimal path's units and exactness.
        values += [
            0.125, 0.135, 0.145, -0.125, -2.5, 2.5, 3.5, 1e-5, 1.5e-7, -1.5e-7, 1e-19, 9.9e-20, 1e20, 9.2e16, -9.2e16,
            92_233_720_368_547.75, -92_233_720_368_547.75, 1.2345678901234567e-3, 0.001, 12.341, 12.345, 12.355,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude, 5e-324,
        ]
        var rounded = 0
        for r in values {
            for scale in [0, 1, 2, 3, 4, 6, 10, 15, 18] {
                let got = StoredValueConverter.shortestUnits(r, scale: scale)
                let want = Self.slow(r, scale: scale)
                if let got {
                    if !got.1 { rounded += 1 }
                    #expect(
                        want?.0 == .integer(got.0) && want?.1 == got.1,
                        "\(r) at scale \(scale): \(got) vs \(String(describing: want))")
                } else {
                    // Declined only where the Decimal path also has no 64-bit answer.
                    #expect(want == nil, "\(r) at scale \(scale) declined, Decimal gives \(String(describing: want))")
                }
            }
        }
        #expect(rounded > 50_000, "the rounding branch was taken \(rounded) times")
        #expect(StoredValueConverter.shortestUnits(0.125, scale: 2)! == (12, false))
        #expect(StoredValueConverter.shortestUnits(0.135, scale: 2)! == (14, false))
        #expect(StoredValueConverter.shortestUnits(-2.5, scale: 0)! == (-2, false))
        #expect(StoredValueConverter.exactUnits(0.1 + 0.2, scale: 2) == nil)
        #expect(StoredValueConverter.exactUnits(26_697_376.47, scale: 2) == 2_669_737_647)
        #expect(
            StoredValueConverter.exactUnits(.nan, scale: 2) == nil
                && StoredValueConverter.exactUnits(.infinity, scale: 2) == nil)
    }

    @Test("the rounding shortcut (no text) gives the shortest text's units, inexact, or declines near a half")
    func inexactUnitsAgreeWithShortestText() {
        var rng = SystemRandomNumberGenerator()
        var values: [Double] = [
            0.125, 0.135, 0.145, -0.125, -2.5, 2.5, 12.341, 12.345, 12.355, 0.001, 1e-5, 1.5e-7, -1.5e-7, 1e-19,
            9.9e-21, 1e-20, 0.1 + 0.2, 1.005, 0.285, 1_099_511_627.775, -1_099_511_627.775, 10_995_116_277.76,
            4.999_999_999_999_999, 0.004_999_999_999_999_999, .pi, -.pi, 1.0 / 3.0, .nan, .infinity, 5e-324,
        ]
        for _ in 0..<40_000 {
            // The benchmark's prices (cents plus a tenth of a cent), halves of every unit, and anything.
            values.append(Double(Int64.random(in: 0...10_000, using: &rng)) / 100 + 0.001)
            values.append(Double(Int64.random(in: -9_999_999...9_999_999, using: &rng)) / 1000)
            values.append(Double(Int64.random(in: -99_999_999...99_999_999, using: &rng)) / 10_000)
            values.append(Double.random(in: -1e9...1e9, using: &rng))
            values.append(Double.random(in: -1...1, using: &rng) * pow(10, Double.random(in: -22...14, using: &rng)))
        }
        var taken = 0
        var declined = 0
        for r in values {
            for scale in [0, 1, 2, 3, 4, 6, 10, 15] {
                guard let units = StoredValueConverter.inexactUnits(r, scale: scale) else {
                    declined += 1
                    continue
                }
                taken += 1
                #expect(StoredValueConverter.exactUnits(r, scale: scale) == nil, "\(r) at scale \(scale) is exact")
                let want = StoredValueConverter.shortestUnits(r, scale: scale)
                #expect(
                    want?.0 == units && want?.1 == false,
                    "\(r) at scale \(scale): \(units) vs \(String(describing: want))")
            }
        }
        #expect(taken > 500_000, "the shortcut was taken \(taken) times")
        #expect(declined > 10_000, "the shortcut declined \(declined) times")
        // Exactly at a half the text decides (half-even), and so do values too close to tell.
        #expect(StoredValueConverter.inexactUnits(0.125, scale: 2) == nil)
        #expect(StoredValueConverter.inexactUnits(12.345, scale: 2) == nil)
        #expect(StoredValueConverter.inexactUnits(12.341, scale: 2) == 1234)
        #expect(StoredValueConverter.inexactUnits(-12.347, scale: 2) == -1235)
    }

    @Test("a Decimal's fields are read from its bytes on this platform, and agree with its public API")
    func decimalPartsAgreeWithPublicAPI() {
        #expect(DecimalParts.layoutKnown)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let units = UInt64.random(in: 0...UInt64.max, using: &rng) >> UInt64.random(in: 0...63, using: &rng)
            let sign: FloatingPointSign = Bool.random(using: &rng) ? .minus : .plus
            let d = Decimal(sign: sign, exponent: Int.random(in: -30...30, using: &rng), significand: Decimal(units))
            guard let p = DecimalParts.parts(d) else {
                Issue.record("\(d) not read")
                continue
            }
            let back = Decimal(
                sign: p.negative ? .minus : .plus, exponent: p.exponent, significand: Decimal(p.magnitude))
            #expect(back == d && p.exponent == d.exponent, "\(d): \(p)")
        }
        #expect(DecimalParts.parts(.nan) == nil)
        #expect(DecimalParts.parts(Decimal(UInt64.max) * 65_536 + 1) == nil)
        #expect(DecimalParts.scaledInteger(Decimal(string: "12.34")!, scale: 2) == 1234)
        #expect(DecimalParts.scaledInteger(Decimal(string: "12.345")!, scale: 2) == nil)
        #expect(DecimalParts.scaledInteger(Decimal(string: "-92233720368547758.08")!, scale: 2) == Int64.min)
        #expect(DecimalParts.scaledInteger(Decimal(string: "92233720368547758.08")!, scale: 2) == nil)
    }

    /// `ValueCodec.scaledInteger` as it was before its shortcuts (a whole product is not rounded again, one bound
    /// compared by the sign): the reference the shortcuts must match.
    static func scaledReference(_ d: Decimal, scale: Int) -> Int64? {
        var v = d
        var r = Decimal()
        _ = NSDecimalMultiplyByPowerOf10(&r, &v, Int16(scale), .plain)
        var rounded = Decimal()
        var rr = r
        NSDecimalRound(&rounded, &rr, 0, .plain)
        guard rounded == r else { return nil }
        guard rounded <= Decimal(Int64.max), rounded >= Decimal(Int64.min) else { return nil }
        return NSDecimalNumber(decimal: rounded).int64Value
    }

    @Test("scaledInteger's shortcuts give what the full Decimal arithmetic gives, bounds and fractions included")
    func scaledIntegerAgreesWithReference() {
        var rng = SystemRandomNumberGenerator()
        var values: [Decimal] = [
            0, Decimal(Int64.max), Decimal(Int64.min), Decimal(Int64.max) + 1, Decimal(Int64.min) - 1, .nan,
            Decimal(sign: .plus, exponent: -2, significand: 1234),
        ]
        for text in [
            "92233720368547758.07", "92233720368547758.08", "-92233720368547758.08", "-92233720368547758.09", "12.345",
            "5E+3", "1E+30", "-0.005", "-0",
        ] {
            values.append(Decimal(string: text)!)
        }
        for _ in 0..<20_000 {
            let units = Int64.random(in: Int64.min...Int64.max, using: &rng) >> Int64.random(in: 0...62, using: &rng)
            values.append(
                Decimal(
                    sign: units < 0 ? .minus : .plus, exponent: Int.random(in: -20...20, using: &rng),
                    significand: Decimal(units.magnitude)))
        }
        for d in values {
            for scale in [0, 1, 2, 3, 6, 10] {
                let got = try? ValueCodec.scaledInteger(d, scale: scale, type: "T", property: "p")
                #expect(got == Self.scaledReference(d, scale: scale), "\(d) at scale \(scale)")
            }
        }
    }
}
