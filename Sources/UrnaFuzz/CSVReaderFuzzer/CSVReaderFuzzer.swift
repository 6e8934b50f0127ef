// libFuzzer target for `CSVReader` and TSE layout recognition (`TSERecordStream`).
// Built by Sources/UrnaFuzz/run-fuzzers.sh into the UrnaRecords module (it reaches internal API);
// not part of any SwiftPM target.
//
// Input: byte 0 = mode bits, byte 1 = largest chunk the source hands out at once, byte 2 = where the
// payload starts relative to the reader's first buffer (bit 4), rest = the file's bytes.
//   bits 0-1  encoding choice (auto, latin1, cp1252, utf8)
//   bit 2     NUL bytes kept instead of rejected
//   bit 3     small limits (64-byte fields, 512-byte rows, 32 fields) so every limit path is reachable
//   bit 4     a long filler row first, so the payload straddles the end of the reader's 64 KiB first
//             buffer (ignored with bit 5: the filler would be taken for the header)
//   bit 5     read through TSERecordStream (layout recognition) instead of the bare CSV reader
//   bit 6     ',' as the separator instead of ';'
//   bit 7     payload repeated towards 160 KiB (at most ~500 line ends in all), so a long row outgrows
//             the buffer and makes it grow, or hits the row limit and is skipped

/// The reader's first buffer: `TextEncoding.detectionWindow`, as `chunkSize` is kept below it.
private let firstBufferBytes = 64 * 1024
/// What the payload is repeated towards in the "outgrow the buffer" mode.
private let repeatedPayloadBytes = 160 * 1024

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSVReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    let chunk = Int(input.byte()) + 1
    let straddle = Int(input.byte()) * 32
    var payload = input.rest()
    // Counted once, on the fuzzer's own bytes: the copies and the filler below only multiply or add to it.
    var lineEnds = payload.reduce(0) { $0 + ($1 == 0x0A || $1 == 0x0D ? 1 : 0) }
    let encoding: TextEncodingChoice = [.auto, .latin1, .cp1252, .utf8][Int(mode & 3)]
    var options = CSVOptions()
    if mode & 4 != 0 { options.nulBytes = .keep }
    if mode & 8 != 0 {
        options.maxFieldBytes = 64
        options.maxRecordBytes = 512
        options.maxFieldCount = 32
    }
    if mode & 64 != 0 { options.separator = UInt8(ascii: ",") }
    options.chunkSize = 4096  // the smallest: the buffer starts at 64 KiB and grows in the reader's own steps
    if mode & 128 != 0 && !payload.isEmpty {
        let once = payload
        // Thousands of short rows would only slow the fuzzer down; long rows are what this mode is for.
        let copies = max(min(repeatedPayloadBytes / once.count, 500 / max(lineEnds, 1)), 1)
        for _ in 1..<copies { payload += once }
        lineEnds *= copies
    }
    if mode & 16 != 0 && mode & 32 == 0 {
        // One row, scanned eight bytes at a time: cheap (blank lines, one loop turn each, are not).
        let filler = max(firstBufferBytes - straddle - 1, 0)
        payload = [UInt8](repeating: UInt8(ascii: "x"), count: filler) + [0x0A] + payload
        lineEnds += 1
    }
    let source = MemoryByteSource(payload, maximumChunk: chunk)
    do {
        let reader = try CSVReader(source: source, name: "fuzz.csv", encoding: encoding, options: options)
        if mode & 32 != 0 {
            try readRecords(reader, lineEnds: lineEnds)
        } else {
            try readRows(reader, options: reader.options, lineEnds: lineEnds)
        }
    } catch is RecordFileError {
        // The reader refused the input with an error value: what hostile input should get.
    } catch {
        fuzzInvariant(false, "unexpected error type \(type(of: error)): \(error)")
    }
    return 0
}

private func readRows(_ reader: CSVReader, options: CSVOptions, lineEnds: Int) throws {
    var previousLine = 0
    while let result = try reader.next() {
        switch result {
        case .row(let row):
            let line = row.location.line
            fuzzInvariant(line > previousLine, "row line \(line) after line \(previousLine)")
            fuzzInvariant(line <= lineEnds + 1, "row line \(line) past the \(lineEnds) line ends of the input")
            fuzzInvariant(row.count >= 1 && row.count <= options.maxFieldCount, "row with \(row.count) fields")
            fuzzInvariant(row.rawBytes.count <= options.maxRecordBytes, "accepted row of \(row.rawBytes.count) bytes")
            for index in 0..<row.count {
                let length = row.withFieldBytes(at: index) { $0.count }
                fuzzInvariant(length <= options.maxFieldBytes, "accepted field of \(length) bytes")
                // The filler row's 64 KiB field would only slow the fuzzer down.
                if length <= 4096 {
                    let stored = row.withFieldBytes(at: index) { Array($0) }
                    checkDecoding(row[index], stored: stored, encoding: row.encoding, quote: options.quote)
                }
            }
            previousLine = line
        case .malformed(let bad):
            let location = bad.location
            fuzzInvariant(location.line > previousLine, "malformed line \(location.line) after \(previousLine)")
            fuzzInvariant(location.line <= lineEnds + 1, "malformed line \(location.line) past the input")
            fuzzInvariant(
                location.column >= 0 && location.column <= options.maxFieldCount + 1,
                "malformed column \(location.column)")
            fuzzInvariant(!bad.reason.isEmpty, "malformed row without a reason")
            previousLine = location.line
        }
    }
    fuzzInvariant(reader.currentLine <= lineEnds + 2, "reader ended on line \(reader.currentLine)")
}

/// A field's text must be its stored bytes decoded, with doubled quotes collapsed when the field had any.
private func checkDecoding(_ text: String, stored: [UInt8], encoding: TextEncoding, quote: UInt8) {
    guard encoding != .cp1252 else { return }  // its own table; latin1 and utf8 share the logic under test
    func decoded(_ bytes: [UInt8]) -> String {
        if encoding == .utf8 { return String(decoding: bytes, as: UTF8.self) }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
    if text == decoded(stored) { return }
    var collapsed: [UInt8] = []
    var i = 0
    while i < stored.count {
        collapsed.append(stored[i])
        i += stored[i] == quote && i + 1 < stored.count && stored[i + 1] == quote ? 2 : 1
    }
    fuzzInvariant(
        text == decoded(collapsed),
        "field decoded as \(text.debugDescription), bytes say \(decoded(stored).debugDescription)")
}

private func readRecords(_ reader: CSVReader, lineEnds: Int) throws {
    let stream = try TSERecordStream(csv: reader)
    var previousLine = 0
    while let item = try stream.next() {
        let location: SourceLocation
        switch item {
        case .record(let record):
            location = record.location
            fuzzInvariant(record.fieldCount == stream.layout.fieldCount, "record with \(record.fieldCount) fields")
            for name in record.columns.names { _ = record[name] }
        case .reject(let row):
            location = row.location
        }
        // Rows held back during recognition come out first, in file order, so lines always grow.
        fuzzInvariant(location.line > previousLine, "record line \(location.line) after \(previousLine)")
        fuzzInvariant(location.line <= lineEnds + 1, "record on line \(location.line) past the input")
        previousLine = location.line
    }
}
