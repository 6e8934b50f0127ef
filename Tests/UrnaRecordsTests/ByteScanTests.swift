import Testing

@testable import UrnaRecords

/// The word-at-a-time byte scans (UTF-8 inside a Latin-1 file, Windows-1252 bytes) must answer exactly what
/// the plain byte-by-byte rules answer, wherever the bytes sit relative to an eight-byte word.
@Suite struct ByteScanTests {
    /// `TextEncoding.firstUTF8Character`'s rule, one byte at a time.
    private func plainFirstUTF8Character(_ b: [UInt8]) -> (Int, Int)? {
        func cont(_ c: UInt8) -> Bool { c >= 0x80 && c <= 0xBF }
        var i = 0
        while i + 1 < b.count {
            let x = b[i]
            if x == 0xC2 || x == 0xC3 {
                let after = i + 2 < b.count ? b[i + 2] : 0
                if cont(b[i + 1]) && b[i + 1] != 0xA0 && !cont(after) { return (i, 2) }
            } else if x >= 0xE0 && x <= 0xEF, i + 2 < b.count {
                let after = i + 3 < b.count ? b[i + 3] : 0
                if cont(b[i + 1]) && cont(b[i + 2]) && !cont(after) { return (i, 3) }
            } else if x >= 0xF0 && x <= 0xF4, i + 3 < b.count {
                let after = i + 4 < b.count ? b[i + 4] : 0
                if cont(b[i + 1]) && cont(b[i + 2]) && cont(b[i + 3]) && !cont(after) { return (i, 4) }
            }
            i += 1
        }
        return nil
    }

    /// Rows of ASCII with up to three snippets from `pool` written at random offsets (cut at the row's end),
    /// lengths 0 to 40 (a deterministic generator).
    private func rows(_ pool: [[UInt8]]) -> [[UInt8]] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        var out: [[UInt8]] = []
        for length in 0...40 {
            for _ in 0..<60 {
                var row = (0..<length).map { _ in UInt8(0x20 + next() % 0x5E) }
                for _ in 0..<Int(next() % 4) where length > 0 {
                    let at = Int(next() % UInt64(length))
                    for (k, b) in pool[Int(next() % UInt64(pool.count))].enumerated() where at + k < length {
                        row[at + k] = b
                    }
                }
                out.append(row)
            }
        }
        return out
    }

    @Test func utf8InsideLatin1IsFoundAtTheSameByteAsByteByByte() {
        let pool: [[UInt8]] = [
            [0xC3, 0xA7], [0xC2, 0xA0], [0xC3, 0xA0], [0xC3, 0xA7, 0xA7], [0xE2, 0x80, 0x94], [0xE2, 0x80],
            [0xF0, 0x9F, 0x98, 0x80], [0xC3], [0xA7], [0xC0, 0x80], [0xFF], [0xE7],
        ]
        var found = 0
        for row in rows(pool) {
            let fast = row.withUnsafeBufferPointer { TextEncoding.firstUTF8Character(in: $0) }
            let plain = plainFirstUTF8Character(row)
            #expect(fast?.offset == plain?.0 && fast?.length == plain?.1, "\(row)")
            if plain != nil { found += 1 }
        }
        #expect(found > 100)  // the rows do hold UTF-8 characters, at many offsets
    }

    @Test func windows1252BytesAreFoundWhereverTheySit() {
        let pool: [[UInt8]] = [[0x80], [0x9F], [0x93], [0xA0], [0xC0], [0xE0], [0x7F], [0x60], [0x40], [0xFF]]
        var found = 0
        for row in rows(pool) {
            let fast = row.withUnsafeBufferPointer { CSVReader.holdsC1Bytes($0) }
            let plain = row.contains { $0 >= 0x80 && $0 <= 0x9F }
            #expect(fast == plain, "\(row)")
            if plain { found += 1 }
        }
        #expect(found > 100)
    }
}
