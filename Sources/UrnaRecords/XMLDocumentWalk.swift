import CLibXML2

/// The node-by-node walk behind `XMLRecordReader.next()`: follows which element is open (record, column,
/// ignored subtree...) and feeds the assembler. A value type, so the per-node work runs without dynamic
/// exclusivity checks.
struct XMLDocumentWalk {
    /// What an open element is to the reader.
    private enum Frame: UInt8 {
        case container, record, nestedBens, column, ignored
    }

    var assembler: XMLRecordAssembler
    private var frames: [Frame] = []
    private var ready: [RecordOrReject] = []
    private var readyHead = 0
    private var finished = false
    private var sawElement = false

    init(assembler: XMLRecordAssembler) {
        self.assembler = assembler
    }

    private static let elementNode = Int32(XML_READER_TYPE_ELEMENT.rawValue)
    private static let endElementNode = Int32(XML_READER_TYPE_END_ELEMENT.rawValue)
    private static let textNode = Int32(XML_READER_TYPE_TEXT.rawValue)
    private static let cdataNode = Int32(XML_READER_TYPE_CDATA.rawValue)
    private static let whitespaceNode = Int32(XML_READER_TYPE_WHITESPACE.rawValue)
    private static let significantWhitespaceNode = Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue)
    private static let doctypeNode = Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue)
    private static let entityReferenceNode = Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue)

    mutating func next(_ reader: OpaquePointer, _ bridge: XMLInputBridge, file: String) throws -> RecordOrReject? {
        while readyHead == ready.count {
            if finished { return nil }
            try readUntilRecord(reader, bridge, file: file)
        }
        let item = ready[readyHead]
        readyHead += 1
        if readyHead == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyHead = 0
        }
        return item
    }

    private mutating func readUntilRecord(_ reader: OpaquePointer, _ bridge: XMLInputBridge, file: String) throws {
        while readyHead == ready.count {
            let status = xmlTextReaderRead(reader)
            guard status == 1 else {
                if status == 0 && bridge.parserError == nil && bridge.scanner.failure == nil {
                    finished = true
                    return
                }
                throw stopError(bridge, file: file)
            }
            switch xmlTextReaderNodeType(reader) {
            case Self.elementNode:
                startElement(reader, bridge)
            case Self.endElementNode:
                if let frame = frames.popLast() { end(frame) }
            case Self.textNode, Self.cdataNode:
                if frames.last == .column, let text = xmlTextReaderConstValue(reader) {
                    assembler.appendText(text)
                } else if frames.last != .ignored, let name = xmlTextReaderConstName(reader) {
                    assembler.countIgnored(assembler.names.id(name))  // stray text between columns: "#text"
                }
            case Self.significantWhitespaceNode, Self.whitespaceNode:
                if frames.last == .column, let text = xmlTextReaderConstValue(reader) { assembler.appendText(text) }
            case Self.doctypeNode:
                // The scanner refuses `<!DOCTYPE` before libxml2 sees it; this only backs that up.
                throw positionedError(
                    reader, file, .dtdNotAccepted, "DTDs are not accepted: remove the <!DOCTYPE ...> declaration")
            case Self.entityReferenceNode:
                throw positionedError(
                    reader, file, .malformed,
                    "entity references other than &lt; &gt; &amp; &apos; &quot; are not accepted")
            default:
                break  // comments, processing instructions
            }
        }
        // libxml2 goes on after some errors (namespace ones): no record leaves before they are seen.
        if bridge.parserError != nil || bridge.scanner.failure != nil {
            throw bridge.readError(file: file, fallback: "libxml2 reported an error")
        }
    }

    /// Why libxml2 stopped, with clearer words for an input that holds no element at all.
    private func stopError(_ bridge: XMLInputBridge, file: String) -> Error {
        if let error = bridge.sourceError { return error }
        if !sawElement && bridge.scanner.failure == nil {
            if bridge.bytesRead == 0 { return RecordFileError.empty(file: file) }
            if let error = bridge.parserError, error.message == "Extra content at the end of the document" {
                return XMLReadError(
                    kind: .malformed, location: SourceLocation(file: file, line: error.line, column: error.column),
                    message: "the file holds no XML element (only white space, comments or declarations)")
            }
        }
        return bridge.readError(file: file, fallback: "libxml2 stopped reading the file")
    }

    private mutating func startElement(_ reader: OpaquePointer, _ bridge: XMLInputBridge) {
        sawElement = true
        guard let localName = xmlTextReaderConstLocalName(reader) else { return }
        let id = assembler.names.id(localName)
        let role = assembler.names.roles[Int(id)]
        // Every <candidato>/<bem>/<coligacao> start tag claims its line, even ignored ones, to stay in step with
        // the scanner.
        var line = 0
        if role == .candidato || role == .bem || role == .coligacao {
            line = bridge.scanner.claimRecordLine() ?? Int(xmlTextReaderGetParserLineNumber(reader))
        }
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
        if frame == .record && xmlTextReaderHasAttributes(reader) == 1 { readAttributes(reader) }
        if xmlTextReaderIsEmptyElement(reader) == 1 {
            end(frame)
        } else {
            frames.append(frame)
        }
    }

    private mutating func end(_ frame: Frame) {
        switch frame {
        case .record: assembler.endRecord(into: &ready)
        case .column: assembler.endColumn()
        case .container, .nestedBens, .ignored: break
        }
    }

    private mutating func readAttributes(_ reader: OpaquePointer) {
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            guard let name = xmlTextReaderConstLocalName(reader) else { continue }
            if xmlTextReaderIsNamespaceDecl(reader) == 1 { continue }
            let id = assembler.names.id(name)
            if xmlTextReaderConstNamespaceUri(reader) != nil {
                assembler.countIgnored(id)  // xsi:..., foreign metadata
                continue
            }
            assembler.addAttribute(id, value: xmlTextReaderConstValue(reader))
        }
        xmlTextReaderMoveToElement(reader)
    }

    private func positionedError(
        _ reader: OpaquePointer, _ file: String, _ kind: XMLReadError.Kind, _ message: String
    ) -> XMLReadError {
        let location = SourceLocation(
            file: file, line: Int(xmlTextReaderGetParserLineNumber(reader)),
            column: Int(xmlTextReaderGetParserColumnNumber(reader)))
        return XMLReadError(kind: kind, location: location, message: message)
    }
}
