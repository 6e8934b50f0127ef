/// How the records of one kind and one column set are re-serialised as their `rawBytes`: compact UTF-8
/// XML, one child element per column under the name the file used (attributes become elements too;
/// inherited columns use their canonical name), e.g. `<candidato><CD_ELEICAO>297</CD_ELEICAO><NM_EMAIL/></candidato>`.
/// Not the file's own bytes: libxml2 does not say where a node starts. Cut at
/// `XMLRecordAssembler.maximumRawBytes`. Shared by those records and rendered only when asked for (a
/// reject, a held asset), so a record that loads costs nothing here.
final class XMLRecordShape: Sendable {
    let kind: RecordKind
    /// The column names, NUL-free UTF-8, in column order.
    let names: [[UInt8]]

    init(kind: RecordKind, names: [[UInt8]]) {
        self.kind = kind
        self.names = names
    }

    /// The rawBytes of a record of this shape whose column texts are `fields` (one field per column).
    func render(_ fields: EncodedFields) -> [UInt8] {
        let columns = min(fields.count, names.count)
        var capacity = 32
        for i in 0..<columns {
            let (start, end, _) = fields.span(i)
            capacity += 2 * names[i].count + 5 + 5 * (end - start)
        }
        capacity = min(capacity, XMLRecordAssembler.maximumRawBytes + 64)
        let (open, close): (StaticString, StaticString) =
            switch kind {
            case .candidate: ("<candidato>", "</candidato>")
            case .asset: ("<bem>", "</bem>")
            case .coalition: ("<coligacao>", "</coligacao>")
            }
        return [UInt8](unsafeUninitializedCapacity: capacity) { out, count in
            var w = Writer(out: out)
            w.put(open)
            for i in 0..<columns {
                names[i].withUnsafeBufferPointer { name in
                    w.put(0x3C)
                    w.put(name)
                    if fields.isAbsent(i) {
                        w.put(0x2F)
                        w.put(0x3E)
                    } else {
                        w.put(0x3E)
                        fields.withFieldBytes(at: i) { w.putEscaped($0) }
                        w.put(0x3C)
                        w.put(0x2F)
                        w.put(name)
                        w.put(0x3E)
                    }
                }
                if w.full { break }
            }
            w.put(close)
            count = w.count
        }
    }

    /// Writes into a fixed buffer, silently stopping at its end.
    private struct Writer {
        let out: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        var full: Bool { count >= XMLRecordAssembler.maximumRawBytes }

        @inline(__always) mutating func put(_ byte: UInt8) {
            guard count < out.count else { return }
            out[count] = byte
            count += 1
        }

        mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let base = bytes.baseAddress else { return }
            put(base, bytes.count)
        }

        mutating func put(_ bytes: UnsafePointer<UInt8>, _ length: Int) {
            let n = min(length, out.count - count)
            guard n > 0 else { return }
            (out.baseAddress! + count).update(from: bytes, count: n)
            count += n
        }

        mutating func put(_ text: StaticString) {
            put(text.utf8Start, text.utf8CodeUnitCount)
        }

        mutating func putEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let base = bytes.baseAddress else { return }
            var plainFrom = 0
            for k in 0..<bytes.count {
                let byte = bytes[k]
                guard byte == 0x26 || byte == 0x3C || byte == 0x3E else { continue }
                put(base + plainFrom, k - plainFrom)
                put(byte == 0x26 ? "&amp;" : byte == 0x3C ? "&lt;" : "&gt;")
                plainFrom = k + 1
            }
            put(base + plainFrom, bytes.count - plainFrom)
        }
    }
}
