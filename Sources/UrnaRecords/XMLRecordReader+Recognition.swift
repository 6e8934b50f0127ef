extension XMLRecordReader {
    /// Whether a file's first bytes look like XML: after an optional UTF-8 byte order mark and white space
    /// comes `<` followed by `?`, `!` or a name. For telling XML dumps from CSV by content.
    ///
    /// ```swift
    /// XMLRecordReader.looksLikeXML(firstBytes: Array("<?xml version=\"1.0\"?>".utf8))  // true
    /// XMLRecordReader.looksLikeXML(firstBytes: Array("\"DT_GERACAO\";".utf8))         // false
    /// ```
    public static func looksLikeXML(firstBytes: [UInt8]) -> Bool {
        var i = firstBytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < firstBytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(firstBytes[i]) { i += 1 }
        guard i + 1 < firstBytes.count, firstBytes[i] == 0x3C else { return false }
        let next = firstBytes[i + 1]
        let isNameStart =
            (next >= 0x41 && next <= 0x5A) || (next >= 0x61 && next <= 0x7A) || next == 0x5F || next == 0x3A
            || next >= 0x80
        return next == 0x3F || next == 0x21 || isNameStart
    }
}
