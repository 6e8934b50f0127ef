import CLibXML2

/// What libxml2's SAX2 callbacks drive: follows which element is open (record, column, ignored subtree...),
/// feeds the assembler, queues finished records, and keeps the first error. A value type kept at a fixed
/// address by `XMLRecordReader`, so the per-node work runs without dynamic exclusivity checks.
struct XMLDocumentWalk {
    /// What an open element is to the reader.
    private enum Frame: UInt8 {
        case container, record, nestedBens, column, ignored
    }

    /// The last text-like node outside a column, to count stray text once per node as a tree would hold it.
    private enum Stray: UInt8 {
        case none, text, cdata
    }

    /// Why the document is refused, from libxml2 or from the walk itself (depth, a DTD).
    struct ParserError {
        let kind: XMLReadError.Kind
        let message: String
        let line: Int
        let column: Int
    }

    /// Elements nested deeper than this are refused (libxml2's own limit without XML_PARSE_HUGE, which its
    /// tree builder enforces and a SAX2 parser does not).
    static let maximumDepth = 256

    var assembler: XMLRecordAssembler
    /// Judges the first bytes before libxml2 sees any (UTF-16, UCS-4 and EBCDIC are refused).
    var start = XMLStartCheck()
    /// The parser, for positions and for stopping it.
    var context: xmlParserCtxtPtr?
    private var frames: [Frame] = []
    /// Set once the end of the input is handed to libxml2: its errors then are about how the file ends.
    var endOfInputGiven = false
    private var ready: [RecordOrReject] = []
    private var readyHead = 0
    private(set) var sawElement = false
    /// The first error (not warning); with `readyAtError`, how many queued records were complete before it.
    private(set) var parserError: ParserError?
    private var readyAtError = 0
    private var stray = Stray.none
    private var textNameId: Int32 = -1
    private var cdataNameId: Int32 = -1

    init(assembler: XMLRecordAssembler) {
        self.assembler = assembler
        frames.reserveCapacity(16)
    }

    // MARK: - Handing out records

    /// The next finished record, if one is queued (only those completed before an error, once there is one).
    mutating func take() -> RecordOrReject? {
        let limit = parserError == nil ? ready.count : readyAtError
        guard readyHead < limit else { return nil }
        let item = ready[readyHead]
        readyHead += 1
        if readyHead == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyHead = 0
            readyAtError = 0
        }
        return item
    }

    /// Why reading must stop, once the queued records before the problem have been taken; nil while
    /// there is none.
    func failure(file: String, bytesRead: Int64) -> Error? {
        if let refused = start.failure {
            return XMLReadError(
                kind: refused.kind, location: SourceLocation(file: file, line: refused.line, column: refused.column),
                message: refused.message)
        }
        guard let error = parserError else { return nil }
        if !sawElement && bytesRead == 0 { return RecordFileError.empty(file: file) }
        if !sawElement && error.message == "Extra content at the end of the document" {
            return XMLReadError(
                kind: .malformed, location: SourceLocation(file: file, line: error.line, column: error.column),
                message: "the file holds no XML element (only white space, comments or declarations)")
        }
        return XMLReadError(
            kind: error.kind, location: SourceLocation(file: file, line: error.line, column: error.column),
            message: error.message)
    }

    /// Called after the end of the input was handed to libxml2: a document without any element is refused
    /// even if libxml2 did not say so.
    mutating func finish() {
        if parserError == nil && !sawElement {
            keep(
                ParserError(
                    kind: .malformed, message: "Extra content at the end of the document", line: currentLine,
                    column: 0))
        }
    }

    // MARK: - Elements

    mutating func startElement(
        _ localName: UnsafePointer<xmlChar>, attributeCount: Int, attributes: UnsafePointer<UnsafePointer<xmlChar>?>?
    ) {
        sawElement = true
        stray = .none
        if frames.count > Self.maximumDepth {
            // libxml2 would tell XML_PARSE_HUGE, which the user cannot set (and we do not, on purpose).
            refuse(.malformed, "elements are nested deeper than \(Self.maximumDepth) levels; candidate dumps need 4")
            return
        }
        let id = assembler.names.id(localName)
        if assembler.names.isOverflow(id) { return refuseManyNames() }
        let role = assembler.names.roles[Int(id)]
        var line = 0
        if role == .candidato || role == .bem || role == .coligacao { line = markupStart().line }
        let frame: Frame
        switch frames.last {
        case nil, .container:
            switch role {
            case .candidato:
                assembler.beginRecord(kind: .candidate, line: line)
                frame = .record
            case .bem:
                assembler.beginRecord(kind: .asset, line: line)
                frame = .record
            case .coligacao:
                assembler.beginRecord(kind: .coalition, line: line)
                frame = .record
            case .candidatos, .bens, .coligacoes:
                frame = .container
            case .other:
                assembler.countIgnored(id)
                frame = frames.isEmpty ? .container : .ignored  // an unexpected root still holds records
            }
        case .record:
            if assembler.isInCandidate && role == .bens {
                frame = .nestedBens
            } else if assembler.isInCandidate && role == .bem {
                assembler.beginNestedAsset(line: line)
                frame = .record
            } else if role == .other {
                assembler.beginColumn(id)
                frame = .column
            } else {
                assembler.countIgnored(id)
                frame = .ignored
            }
        case .nestedBens:
            if role == .bem {
                assembler.beginNestedAsset(line: line)
                frame = .record
            } else {
                assembler.countIgnored(id)
                frame = .ignored
            }
        case .column:
            assembler.spoilColumn()
            frame = .ignored
        case .ignored:
            frame = .ignored
        }
        frames.append(frame)
        if frame == .record, attributeCount > 0, let attributes { readAttributes(attributeCount, attributes) }
    }

    mutating func endElement() {
        stray = .none
        guard let frame = frames.popLast() else { return }
        switch frame {
        case .record: assembler.endRecord(into: &ready)
        case .column: assembler.endColumn()
        case .container, .nestedBens, .ignored: break
        }
    }

    /// SAX2's attributes: five pointers each (local name, prefix, namespace URI, value start, value end).
    private mutating func readAttributes(_ count: Int, _ attributes: UnsafePointer<UnsafePointer<xmlChar>?>) {
        for k in 0..<count {
            let a = attributes + 5 * k
            guard let name = a[0] else { continue }
            let id = assembler.names.id(name)
            if assembler.names.isOverflow(id) { return refuseManyNames() }
            if a[2] != nil {
                assembler.countIgnored(id)  // xsi:..., foreign metadata
                continue
            }
            guard let start = a[3], let end = a[4], end > start else {
                assembler.addAttribute(id, value: nil)
                continue
            }
            assembler.addAttribute(id, value: UnsafeBufferPointer(start: start, count: end - start))
        }
    }

    // MARK: - Text

    /// Character data (text, references, white space) in document order.
    mutating func characters(_ text: UnsafePointer<xmlChar>, _ count: Int) {
        // Stray white space between columns or records is not counted; other stray text is.
        textNode(text, count, kind: .text, countsBlank: false)
    }

    /// A CDATA section (possibly in pieces).
    mutating func cdata(_ text: UnsafePointer<xmlChar>, _ count: Int) {
        textNode(text, count, kind: .cdata, countsBlank: true)
    }

    /// Text inside a column goes into it; outside, it is counted once per node as "#text" or
    /// "#cdata-section", as a tree would hold it.
    private mutating func textNode(_ text: UnsafePointer<xmlChar>, _ count: Int, kind: Stray, countsBlank: Bool) {
        switch frames.last {
        case .column?:
            assembler.appendText(text, count)
        case .ignored?:
            break
        default:
            guard stray != kind, countsBlank || !Self.isBlank(text, count) else { return }
            stray = kind
            if kind == .text {
                if textNameId < 0 { textNameId = assembler.names.id(named: "#text") }
                assembler.countIgnored(textNameId)
            } else {
                if cdataNameId < 0 { cdataNameId = assembler.names.id(named: "#cdata-section") }
                assembler.countIgnored(cdataNameId)
            }
        }
    }

    /// A comment or processing instruction: it separates text nodes.
    mutating func otherNode() {
        stray = .none
    }

    @inline(__always) private static func isBlank(_ text: UnsafePointer<xmlChar>, _ count: Int) -> Bool {
        for k in 0..<count {
            let c = text[k]
            if c != 0x20 && c != 0x0A && c != 0x09 && c != 0x0D { return false }
        }
        return true
    }

    // MARK: - Errors

    /// libxml2's structured error callback: keeps the first error (warnings are not kept).
    mutating func report(_ error: xmlError) {
        guard error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = error.message.map { String(cString: $0) } ?? "libxml2 error \(error.code)"
        while message.last?.isWhitespace == true { message.removeLast() }
        let encodingCodes = [
            XML_ERR_UNSUPPORTED_ENCODING, XML_ERR_INVALID_ENCODING, XML_I18N_CONV_FAILED, XML_I18N_NO_HANDLER,
        ]
        var isEncodingProblem = encodingCodes.contains { Int32($0.rawValue) == error.code }
        if message.contains("Huge input lookup") || message.hasSuffix("length too long") {
            // libxml2's words for a name, attribute value or text run past its 10,000,000-byte limit
            // ("internal error: Huge input lookup"), which read as urna's own fault.
            message =
                "a value or name is longer than 10,000,000 bytes (libxml2's limit; TSE's values are a few hundred "
                + "bytes at most): the file is damaged or is not a candidate dump"
        } else if message.hasPrefix("Input is not proper UTF-8") {
            isEncodingProblem = true
            message =
                "the text is not UTF-8: declare the file's encoding, e.g. "
                + "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"
        }
        if endOfInputGiven && !frames.isEmpty && !isEncodingProblem {
            // libxml2 names the tag it stopped in; a file cut short (a download or copy that stopped) ends so,
            // and the message alone sent people looking for a typo (seventh real-files trial).
            message +=
                ": the file ends inside an element that is never closed; if it was cut short (a download or copy "
                + "that stopped), download or export it again"
        }
        keep(
            ParserError(
                kind: isEncodingProblem ? .unsupportedEncoding : .malformed, message: message, line: Int(error.line),
                column: Int(error.int2)))
    }

    /// Refuses a document with a DTD, at the `<!DOCTYPE` just read.
    mutating func refuseDoctype() {
        let at = markupStart(of: Array("!DOCTYPE".utf8))
        keep(
            ParserError(
                kind: .dtdNotAccepted,
                message: "DTDs are not accepted: remove the <!DOCTYPE ...> declaration (candidate dumps need none)",
                line: at.line, column: at.column))
        if let context { xmlStopParser(context) }
    }

    /// Where the markup the parser has just read began (its `<`, the last one before the parser's position,
    /// followed by `following`): line and column as libxml2 counts them (a line per LF byte).
    ///
    /// Called from the callback of a start tag or a DOCTYPE, when the parser stands at the tag's end: the
    /// push parser only reads a tag once all of it is in its buffer, and `<` cannot occur inside a tag
    /// (attribute values included), so the tag's `<` is still in the buffer and is the last one. The line
    /// is exact at any size (the parser's own line count is an `int`; a tree node's keeps 16 bits).
    private func markupStart(of following: [UInt8] = []) -> (line: Int, column: Int) {
        guard let input = context?.pointee.input, let base = input.pointee.base, let cur = input.pointee.cur,
            cur > base
        else { return (currentLine, 0) }
        let line = Int(input.pointee.line)
        var p = cur
        var lineFeeds = 0
        while p > base {
            p -= 1
            let byte = p.pointee
            if byte == 0x0A {
                lineFeeds += 1
            } else if byte == 0x3C && Self.starts(p + 1, upTo: cur, with: following) {
                // The column: bytes since the line feed before it, or back from the parser's column.
                var q = p
                while q > base && q[-1] != 0x0A { q -= 1 }
                let column =
                    q > base || lineFeeds > 0 ? p - q + 1 : max(Int(input.pointee.col) - (cur - p), 1)
                return (line - lineFeeds, column)
            }
        }
        return (line, Int(input.pointee.col))  // not in the buffer (cannot happen for a tag): where the parser is
    }

    private static func starts(_ p: UnsafePointer<xmlChar>, upTo end: UnsafePointer<xmlChar>, with prefix: [UInt8])
        -> Bool
    {
        guard end - p >= prefix.count else { return false }
        for k in prefix.indices where p[k] != prefix[k] { return false }
        return true
    }

    /// Refuses the document at a start tag `XMLTagLimit` found too big, and stops the parser.
    mutating func refuseTag(_ tag: XMLTagLimit.Refusal) {
        keep(ParserError(kind: .malformed, message: tag.message, line: tag.line, column: tag.column))
        if let context { xmlStopParser(context) }
    }

    /// Stops at the first name past `XMLNameTable.maximumDistinctNames`: libxml2 interns every name in a dictionary
    /// whose lookups slow down as it grows (800,000 names in one record took 54 s), and no candidate dump has them.
    private mutating func refuseManyNames() {
        refuse(
            .malformed,
            "the file uses more than \(XMLNameTable.maximumDistinctNames) distinct element and attribute names "
                + "(candidate dumps use about 100): it is not a candidate dump")
    }

    /// Refuses the document at the parser's current position and stops the parser.
    mutating func refuse(_ kind: XMLReadError.Kind, _ message: String) {
        var column = 0
        if let input = context?.pointee.input { column = Int(input.pointee.col) }
        keep(ParserError(kind: kind, message: message, line: currentLine, column: column))
        if let context { xmlStopParser(context) }
    }

    private mutating func keep(_ error: ParserError) {
        guard parserError == nil else { return }
        parserError = error
        readyAtError = ready.count
    }

    private var currentLine: Int {
        guard let input = context?.pointee.input else { return 0 }
        return Int(input.pointee.line)
    }

    // MARK: - libxml2 callbacks

    /// The SAX2 handler: every callback reaches the walk through the parser's user data.
    static func saxHandler() -> xmlSAXHandler {
        var h = xmlSAXHandler()
        h.initialized = UInt32(XML_SAX2_MAGIC)
        h.startElementNs = { walk, localName, _, _, _, _, attributeCount, _, attributes in
            guard let walk, let localName else { return }
            walk.assumingMemoryBound(to: XMLDocumentWalk.self).pointee.startElement(
                localName, attributeCount: Int(attributeCount), attributes: UnsafePointer(attributes))
        }
        h.endElementNs = { walk, _, _, _ in
            walk?.assumingMemoryBound(to: XMLDocumentWalk.self).pointee.endElement()
        }
        let characters: charactersSAXFunc = { walk, text, count in
            guard let walk, let text, count > 0 else { return }
            walk.assumingMemoryBound(to: XMLDocumentWalk.self).pointee.characters(text, Int(count))
        }
        h.characters = characters
        // The same function, so libxml2 never has to decide which white space is ignorable.
        h.ignorableWhitespace = characters
        h.cdataBlock = { walk, text, count in
            guard let walk, let text else { return }
            walk.assumingMemoryBound(to: XMLDocumentWalk.self).pointee.cdata(text, Int(count))
        }
        h.comment = { walk, _ in walk?.assumingMemoryBound(to: XMLDocumentWalk.self).pointee.otherNode() }
        h.processingInstruction = { walk, _, _ in
            walk?.assumingMemoryBound(to: XMLDocumentWalk.self).pointee.otherNode()
        }
        // libxml2 calls this once it has read `<!DOCTYPE name [external id]`, before any declaration of an
        // internal subset and before it could load an external one: the parser stops there, so no entity is
        // ever declared, expanded or fetched.
        h.internalSubset = { walk, _, _, _ in
            walk?.assumingMemoryBound(to: XMLDocumentWalk.self).pointee.refuseDoctype()
        }
        h.serror = { walk, error in
            guard let walk, let error else { return }
            walk.assumingMemoryBound(to: XMLDocumentWalk.self).pointee.report(error.pointee)
        }
        return h
    }
}
