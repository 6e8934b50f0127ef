import CLibXML2

/// libxml2's global state, set up once per process before the first reader.
private let libxml2Initialized: Void = xmlInitParser()

/// Reads an XML candidate dump as a stream of the same `Record`s the CSV reader yields.
///
/// Shape: a root (`<candidatos>`, or anything) whose `<candidato>` children become `.candidate` records,
/// whose `<bem>` children (alone, or inside a root-level `<bens>`) become `.asset` records and whose
/// `<coligacao>` children (alone, or inside a root-level `<coligacoes>`, as `urna export` writes them)
/// become `.coalition` records, one party of one coalition each, like a consulta_coligacao row. Each child
/// element of a record that holds only text is a column named like the TSE column; attributes of
/// `<candidato>`/`<bem>`/`<coligacao>` are columns too. An empty or missing element means nil; text is passed through
/// untouched (null markers are the mapper's business). A `<bem>` inside a `<candidato>` (directly or in
/// `<bens>`) is yielded after its candidato and inherits CD_ELEICAO, ANO_ELEICAO, DS_ELEICAO, SQ_CANDIDATO, SG_UF and
/// SG_UE from it when it has no value of its own. Any other element is ignored and counted in
/// `unknownElementCounts`, as is a column whose name is in no TSE layout (it is still kept as a column).
///
/// Refused outright (`XMLReadError`, thrown by `next()`): XML that is not well-formed, any `<!DOCTYPE`
/// (so no entity is ever expanded or fetched), UTF-16/UCS-4/EBCDIC text, nesting deeper than 256, a start tag
/// with more than 1,000 attributes or longer than 16 MiB (`XMLTagLimit`).
/// The encoding declaration is obeyed (UTF-8 by default; ISO-8859-1 is converted to UTF-8 before libxml2
/// sees it, which is faster than libxml2's own conversion and parses the same). A record whose column
/// repeats with another value is yielded as a `.reject`. Memory stays flat: the input goes to libxml2's
/// push parser a chunk at a time, its SAX2 callbacks build records directly (no tree), and only one
/// candidato's bens are held at a time (at most 10,000; past that the candidato is rejected). Records
/// completed before a well-formedness error are still yielded, then `next()` throws.
///
/// A record's location is the line of its start tag (exact at any size, unlike libxml2's 16-bit node
/// lines). Its `rawBytes` are not the file's bytes (libxml2 does not say where a node starts) but the
/// record re-serialised as compact UTF-8 XML, one element per column under the name the file used, e.g.
/// `<candidato><CD_ELEICAO>297</CD_ELEICAO><NM_EMAIL/></candidato>`, cut at 64 KiB.
///
/// ```swift
/// let reader = try XMLRecordReader(path: "dump.xml", canonicalName: TSELayouts.canonicalName)
/// while let item = try reader.next() {
///     if case .record(let r) = item { print(r.kind, r["SQ_CANDIDATO"] ?? "-", r.location) }
/// }
/// ```
public final class XMLRecordReader {
    /// The file name used in locations and errors.
    public let name: String
    /// Size of the input in bytes (0 when the source did not say).
    public let fileSize: Int64

    /// Bytes handed to libxml2 at a time.
    static let chunkSize = 64 * 1024

    private let source: ByteSource
    private let context: xmlParserCtxtPtr
    /// The walk lives at a fixed address: libxml2's callbacks reach it through a raw pointer, and mutate
    /// it in place without exclusivity checks.
    private let walk: UnsafeMutablePointer<XMLDocumentWalk>
    private let chunk: UnsafeMutableRawBufferPointer
    /// Where a chunk of a document declared ISO-8859-1 is converted to UTF-8 before libxml2 sees it
    /// (`XMLLatin1Input`); nil for any other input, which libxml2 decodes itself.
    private var utf8Chunk: UnsafeMutablePointer<UInt8>?
    private var finished = false
    /// Refuses a start tag with too many attributes or bytes before libxml2 sees it.
    private var tagLimit = XMLTagLimit()

    /// Bytes handed to libxml2 so far (it is at most one chunk ahead of the records), for progress.
    public private(set) var bytesRead: Int64 = 0

    /// Names of ignored elements and of columns outside every TSE layout, with how often each occurred.
    public var unknownElementCounts: [String: Int] { walk.pointee.assembler.unknownElementCounts }

    /// Opens an XML file; I/O problems throw `RecordFileError`, XML problems come from `next()`.
    ///
    /// `canonicalName` maps a column name as spelled in the file to its modern TSE name.
    /// `name` is what locations show: by default the file name without its directory, as for CSV.
    public convenience init(
        path: String, name: String? = nil, canonicalName: @escaping (String) -> String = { $0 }
    ) throws {
        let source = try FileByteSource(path: path)
        let shown = name ?? String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        try self.init(source: source, name: shown, size: source.size, canonicalName: canonicalName)
    }

    /// Reads XML from any byte source (a zip member, memory); `name` appears in locations and errors.
    public init(
        source: ByteSource, name: String, size: Int64 = 0, canonicalName: @escaping (String) -> String = { $0 }
    ) throws {
        _ = libxml2Initialized
        // Errors libxml2 raises outside the parser's own handler (its encoding converters: "encoding error :
        // input conversion failed ...") would go to stderr through its default channel. The parser reports
        // the same failure through the SAX handler, which becomes an Urna error with a location, so these are
        // dropped. The setting is per thread in libxml2: made before every push, on the thread that parses.
        self.name = name
        self.fileSize = size
        self.source = source
        walk = .allocate(capacity: 1)
        walk.initialize(to: XMLDocumentWalk(assembler: XMLRecordAssembler(file: name, canonicalName: canonicalName)))
        var handler = XMLDocumentWalk.saxHandler()
        // No first bytes: the parser detects the encoding once four bytes have been pushed.
        guard let created = xmlCreatePushParserCtxt(&handler, UnsafeMutableRawPointer(walk), nil, 0, name) else {
            walk.deinitialize(count: 1)
            walk.deallocate()
            throw XMLReadError(
                kind: .malformed, location: SourceLocation(file: name, line: 0),
                message: "libxml2 could not start reading the file")
        }
        context = created
        // NONET: never touch the network. Not NOENT, DTDLOAD, DTDATTR or HUGE: no entity substitution, no
        // external DTD, libxml2's limits on names and text sizes stay on (the walk enforces the depth limit).
        _ = xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
        walk.pointee.context = context
        chunk = .allocate(byteCount: Self.chunkSize, alignment: 16)
    }

    deinit {
        xmlFreeParserCtxt(context)
        walk.deinitialize(count: 1)
        walk.deallocate()
        chunk.deallocate()
        utf8Chunk?.deallocate()
    }

    /// The next record or rejected record in document order; nil at the end of the document.
    ///
    /// Throws `XMLReadError` (or the source's error) when the file must be refused; records already
    /// yielded came from a file that turned out bad, so the caller should discard them.
    public func next() throws -> RecordOrReject? {
        while true {
            if let item = walk.pointee.take() { return item }
            if let error = walk.pointee.failure(file: name, bytesRead: bytesRead) { throw error }
            if finished { return nil }
            try push()
        }
    }

    /// Hands the next chunk of input (or the end of it) to libxml2, once its first bytes have been checked.
    private func push() throws {
        xmlSetStructuredErrorFunc(nil) { _, _ in }
        urna_xml_silence_generic_errors()
        let n = try source.read(into: chunk)
        if n == 0 {
            finished = true
            if !walk.pointee.start.isDecided {
                guard walk.pointee.start.decide() else { return }
                parse(walk.pointee.start.head)
            }
            walk.pointee.endOfInputGiven = true
            let status = xmlParseChunk(context, nil, 0, 1)
            if status != 0 { reportStop(status) }
            walk.pointee.finish()
            return
        }
        bytesRead += Int64(n)
        var bytes = UnsafeRawBufferPointer(rebasing: chunk[0..<n])
        if !walk.pointee.start.isDecided {
            // Nothing reaches libxml2 before the first four bytes are judged.
            let taken = walk.pointee.start.take(from: bytes)
            bytes = UnsafeRawBufferPointer(rebasing: bytes[taken...])
            if walk.pointee.start.head.count < 4 { return }
            guard walk.pointee.start.decide() else { return }
            convertIfLatin1(walk.pointee.start.head + bytes.prefix(XMLLatin1Input.declarationWindow))
            parse(walk.pointee.start.head)
        }
        parse(bytes)
    }

    /// Before the first byte reaches libxml2: when `start` declares ISO-8859-1, the input is converted
    /// to UTF-8 here from now on and libxml2 is told to ignore the declaration.
    private func convertIfLatin1(_ start: [UInt8]) {
        guard start.withUnsafeBytes({ XMLLatin1Input.isDeclared(in: $0) }) else { return }
        utf8Chunk = .allocate(capacity: XMLLatin1Input.capacity(for: Self.chunkSize))
        _ = xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_IGNORE_ENC.rawValue))
    }

    private func parse(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Hands bytes of the input (at most `chunkSize`) to libxml2, as UTF-8 when they are converted here.
    /// A start tag past `XMLTagLimit`'s limits never reaches libxml2: the bytes before its `<` do (so an
    /// earlier error and the records before it come first), then the document is refused.
    private func parse(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        var input = bytes
        if let utf8Chunk {
            input = UnsafeRawBufferPointer(start: utf8Chunk, count: XMLLatin1Input.transcode(bytes, into: utf8Chunk))
        }
        let refusal = tagLimit.scan(input)
        if let refusal { input = UnsafeRawBufferPointer(rebasing: input[..<refusal.cut]) }
        if let base = input.baseAddress, !input.isEmpty {
            let status = xmlParseChunk(context, base.assumingMemoryBound(to: CChar.self), Int32(input.count), 0)
            if status != 0 { reportStop(status) }
        }
        if let refusal { walk.pointee.refuseTag(refusal) }
    }

    /// libxml2 can stop without a structured error (its converter for the declared encoding meets bytes it
    /// cannot convert): without this the rest of the file would be dropped silently. The walk keeps the
    /// first error only, so one the handler already reported stays the one shown.
    private func reportStop(_ status: Int32) {
        var error = xmlError()
        error.level = XML_ERR_FATAL
        error.code = status
        error.line = xmlSAX2GetLineNumber(context)
        error.int2 = xmlSAX2GetColumnNumber(context)
        let text =
            status == Int32(XML_ERR_INVALID_ENCODING.rawValue)
            ? "the bytes cannot be read in the encoding the XML declaration names: declare the file's real "
                + "encoding, e.g. <?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>, or convert it to UTF-8"
            : "libxml2 stopped reading the file (error \(status))"
        text.withCString { message in
            error.message = UnsafeMutablePointer(mutating: message)
            walk.pointee.report(error)
        }
    }
}
