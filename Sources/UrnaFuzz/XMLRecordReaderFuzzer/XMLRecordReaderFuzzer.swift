// libFuzzer target for `XMLRecordReader` (libxml2's SAX2 push parser driving our document walk and assembler).
// Built by Sources/UrnaFuzz/run-fuzzers.sh into the UrnaRecords module; not part of any SwiftPM target.
//
// Input: byte 0 = largest chunk the source hands out at once (so markup is cut at every place),
// byte 1 bit 0 = map column names to their TSE canonical names, rest = the XML file's bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMLRecordReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let chunk = Int(input.byte()) * 16 + 1
    let flags = input.byte()
    let payload = input.rest()
    let lineEnds = payload.reduce(0) { $0 + ($1 == 0x0A || $1 == 0x0D ? 1 : 0) }
    var canonicalName: (String) -> String = { $0 }
    if flags & 1 != 0 { canonicalName = TSELayouts.canonicalName }
    do {
        let reader = try XMLRecordReader(
            source: MemoryByteSource(payload, maximumChunk: chunk), name: "fuzz.xml", size: Int64(payload.count),
            canonicalName: canonicalName)
        var previousLine = 0
        var failed = false
        do {
            while let item = try reader.next() {
                let location: SourceLocation
                let raw: [UInt8]
                switch item {
                case .record(let record):
                    location = record.location
                    raw = record.rawBytes
                    fuzzInvariant(
                        record.fieldCount <= XMLRecordAssembler.maximumColumnsPerRecord
                            + XMLRecordAssembler.inheritedColumns.count,
                        "record with \(record.fieldCount) columns")
                    for name in record.columns.names { _ = record[name] }
                case .reject(let row):
                    location = row.location
                    raw = row.rawBytes
                    fuzzInvariant(!row.reason.isEmpty, "reject without a reason")
                }
                fuzzInvariant(location.line >= 1 && location.line <= lineEnds + 1, "record on line \(location.line)")
                // A candidato comes out before its nested bens, whose start tags follow its own.
                fuzzInvariant(location.line >= previousLine, "record line \(location.line) after \(previousLine)")
                fuzzInvariant(
                    raw.count <= XMLRecordAssembler.maximumRawBytes + 64, "rawBytes of \(raw.count) bytes")
                previousLine = location.line
            }
        } catch let error as XMLReadError {
            fuzzInvariant(
                error.location.line >= 0 && error.location.line <= lineEnds + 1,
                "error on line \(error.location.line): \(error)")
            fuzzInvariant(!error.message.isEmpty, "error without a message")
            failed = true
        } catch is RecordFileError {
            failed = true
        }
        _ = reader.unknownElementCounts
        // A caller that asks again after the end or after an error must get the same answer, not a crash.
        if failed {
            do {
                _ = try reader.next()
            } catch is XMLReadError {
            } catch is RecordFileError {}
        } else if try reader.next() != nil {
            fuzzInvariant(false, "a record after the end of the document")
        }
    } catch let error as XMLReadError {
        fuzzInvariant(!error.message.isEmpty, "error without a message")
    } catch is RecordFileError {
    } catch {
        fuzzInvariant(false, "unexpected error type \(type(of: error)): \(error)")
    }
    return 0
}
