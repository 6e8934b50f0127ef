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

    /// SG_UE in its TSE form: a municipality's code has 5 digits (`01074`), so an all-digit SG_UE of 1 to 4 digits
    /// is one whose leading zeros a spreadsheet dropped (a TSE file opened and saved again). Read back with its
    /// zeros, with a warning, so its rows meet the original file's; kept as written, each of them was a second
    /// candidacy and coalition beside the original's, without a word (sixth real-files trial).
    static func tseUnit(_ unit: String, _ r: FieldReader) -> String {
        guard let restored = zerosRestored(unit, width: 5, shortest: 0) else { return unit }
        r.noteCorrected(
            .SG_UE,
            "SG_UE '\(unit)' has lost its leading zeros (TSE writes a municipality's code with 5 digits; a spreadsheet "
                + "that opened the file drops them): read as '\(restored)', so its rows meet the original file's; "
                + "import TSE's file itself, or keep the column as text")
        return restored
    }

    /// A CPF (11 digits) or voter-ID number (12 digits) whose leading zeros a spreadsheet dropped, read back with
    /// them, with a warning: once SG_UE brings a spreadsheet's copy onto the original's candidacy (`tseUnit`), the
    /// shortened number would otherwise conflict with the original's and, being the greater text, replace it. Values
    /// of fewer than 5 digits are left as written (no number TSE writes has that many leading zeros).
    static func tseNumber(_ value: String?, width: Int, _ column: MapperColumn, _ r: FieldReader) -> String? {
        guard let value = tseDigits(value, column, r) else { return nil }
        guard let restored = zerosRestored(value, width: width, shortest: 5) else { return value }
        r.noteCorrected(
            column,
            "\(column.name) has lost its leading zeros (TSE writes it with \(width) digits; a spreadsheet that opened "
                + "the file drops them): read with them, so its rows meet the original file's; import TSE's file "
                + "itself, or keep the column as text")
        return restored
    }

    /// A number TSE writes as digits kept as text (NR_PROCESSO, NR_PROTOCOLO_CANDIDATURA, CPF, voter-ID number),
    /// nil with a warning when a spreadsheet saved it in scientific notation (`4,34801E+10`): its last digits are
    /// gone. Stored as written, it replaced the original file's number (the greater text wins a tie of one
    /// generation) and went into exports as a number no one has (seventh real-files trial).
    static func tseDigits(_ value: String?, _ column: MapperColumn, _ r: FieldReader) -> String? {
        guard let value, TSEField.isScientific(value) else { return value }
        r.warn(
            column, FieldReader.scientific(column.name, value) + "the field is left empty; " + FieldReader.scientificFix
        )
        return nil
    }

    /// NR_PROCESSO in its TSE form: from 2016 a CNJ number of 20 digits (`06003641820226010000`: 7 of sequence,
    /// 2 check digits, the year, 6 for the electoral courts, ...), the first a zero. A spreadsheet drops it; a
    /// 19-digit value that, given the zero back, shows its election's year and the 6 and whose check digits hold is
    /// read with it, with a warning: kept as written, it replaced the original file's number (the greater text wins
    /// a tie of one generation: 542 of 542 of 2022 AC, seventh real-files trial). A 20-digit value, as written or
    /// so restored, whose check digits fail has lost digits (a spreadsheet keeps 15 significant digits:
    /// `6003723920206010000` for `06003723920206010008`): nil with a warning, as scientific notation is. Other
    /// values (2014's 16 and 17 digits) are left as written.
    static func tseProcessNumber(_ value: String?, year: Int64, _ r: FieldReader) -> String? {
        guard let value = tseDigits(value, .NR_PROCESSO, r) else { return nil }
        if value.utf8.count == 20, value.utf8.allSatisfy({ $0 &- 0x30 <= 9 }) {
            return cnjCheckDigitsHold(Array(value.utf8)) ? value : processNumberLostDigits(value, r)
        }
        guard let restored = zerosRestored(value, width: 20, shortest: 19) else { return value }
        let digits = Array(restored.utf8)
        guard digits[13] == UInt8(ascii: "6"), String(decoding: digits[9..<13], as: UTF8.self) == String(year) else {
            return value
        }
        guard cnjCheckDigitsHold(digits) else { return processNumberLostDigits(value, r) }
        r.noteCorrected(
            .NR_PROCESSO,
            "NR_PROCESSO has lost its leading zero (TSE writes the process number with 20 digits; a spreadsheet that "
                + "opened the file drops it): read as '\(restored)', so its rows meet the original file's; import "
                + "TSE's file itself, or keep the column as text")
        return restored
    }

    /// Nil, with a warning: `value`, a process number of 19 or 20 digits, fails the CNJ check digits.
    private static func processNumberLostDigits(_ value: String, _ r: FieldReader) -> String? {
        r.warn(
            .NR_PROCESSO,
            "NR_PROCESSO '\(value)' fails the CNJ check digits, so digits were lost (a spreadsheet that opened the file "
                + "keeps 15 significant digits of a long number and writes zeros for the rest): the field is left "
                + "empty; " + FieldReader.scientificFix)
        return nil
    }

    /// Whether 20 ASCII digits are a CNJ number whose check digits hold (`NNNNNNN-DD.AAAA.J.TR.OOOO`, ISO 7064
    /// mod 97-10: DD = 98 - (NNNNNNN AAAA J TR OOOO 00 mod 97)). A number a spreadsheet kept to 15 significant
    /// digits (`6003723920206010000` for `06003723920206010008`) fails it. The remainder is taken digit by digit:
    /// the 20-digit number overflows Int64.
    static func cnjCheckDigitsHold(_ digits: [UInt8]) -> Bool {
        guard digits.count == 20, digits.allSatisfy({ $0 &- 0x30 <= 9 }) else { return false }
        var remainder = 0
        for d in digits[0..<7] + digits[9..<20] + [0x30, 0x30] { remainder = (remainder * 10 + Int(d - 0x30)) % 97 }
        return 98 - remainder == Int(digits[7] - 0x30) * 10 + Int(digits[8] - 0x30)
    }

    /// CD_COR_RACA in its TSE form: two digits (`03`); a spreadsheet's `3` is read back as `03`, with a warning,
    /// so a copy beside the original agrees with it (the copy's `3`, the greater text, replaced the original's).
    static func raceCode(_ code: String, at position: Int, _ r: FieldReader) -> String {
        guard let restored = zerosRestored(code, width: 2, shortest: 1) else { return code }
        r.warn(
            at: position, name: "CD_COR_RACA",
            "CD_COR_RACA '\(code)' has lost its leading zero (TSE writes it with 2 digits; a spreadsheet that opened "
                + "the file drops it): read as '\(restored)'; import TSE's file itself, or keep the column as text",
            nulled: false)
        return restored
    }

    /// `text` of `shortest` to `width - 1` digits, all of them, given the leading zeros that make it `width` digits;
    /// nil for any other text.
    private static func zerosRestored(_ text: String, width: Int, shortest: Int) -> String? {
        let digits = text.utf8
        guard digits.count >= shortest, digits.count < width, digits.allSatisfy({ $0 &- 0x30 <= 9 }) else {
            return nil
        }
        return String(repeating: "0", count: width - digits.count) + text
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
