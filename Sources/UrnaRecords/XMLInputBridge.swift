import CLibXML2

/// What libxml2 calls back into: it pulls bytes from a `ByteSource` through the `XMLMarkupScanner`,
/// and keeps the first error libxml2 reports. Owned by `XMLRecordReader`; libxml2 holds it unretained.
final class XMLInputBridge {
    struct ParserError {
        let message: String
        let line: Int
        let column: Int
        let isEncodingProblem: Bool
    }

    private let source: ByteSource
    var scanner = XMLMarkupScanner()
    private(set) var bytesRead: Int64 = 0
    /// What the source threw; rethrown as is.
    private(set) var sourceError: Error?
    /// The first error (not warning) libxml2 reported.
    private(set) var parserError: ParserError?

    init(source: ByteSource) {
        self.source = source
    }

    /// libxml2's read callback: bytes read, 0 at the end, -1 to stop (the reason is kept here).
    func fill(_ buffer: UnsafeMutablePointer<CChar>, _ length: Int) -> Int32 {
        guard sourceError == nil, scanner.failure == nil else { return -1 }
        guard length > 0 else { return 0 }
        do {
            let n = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
            if n == 0 { return scanner.finish() ? 0 : -1 }
            bytesRead += Int64(n)
            return scanner.scan(UnsafeRawBufferPointer(start: buffer, count: n)) ? Int32(n) : -1
        } catch {
            sourceError = error
            return -1
        }
    }

    /// libxml2's structured error callback.
    func report(_ error: xmlError) {
        guard parserError == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = error.message.map { String(cString: $0) } ?? "libxml2 error \(error.code)"
        while message.last?.isWhitespace == true { message.removeLast() }
        if message.hasPrefix("Excessive depth in document") {
            // libxml2 suggests XML_PARSE_HUGE, which the user cannot set (and we do not, on purpose).
            message = "elements are nested deeper than 256 levels; candidate dumps need 4"
        }
        let encodingCodes = [
            XML_ERR_UNSUPPORTED_ENCODING, XML_ERR_INVALID_ENCODING, XML_I18N_CONV_FAILED, XML_I18N_NO_HANDLER,
        ]
        var isEncodingProblem = encodingCodes.contains { Int32($0.rawValue) == error.code }
        if message.hasPrefix("Input is not proper UTF-8") {
            isEncodingProblem = true
            message =
                "the text is not UTF-8: declare the file's encoding, e.g. "
                + "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"
        }
        parserError = ParserError(
            message: message, line: Int(error.line), column: Int(error.int2),
            isEncodingProblem: isEncodingProblem)
    }

    /// Why reading stopped: the scanner's refusal first (libxml2 only saw a failed read), then libxml2's error.
    func readError(file: String, fallback: String) -> XMLReadError {
        if let refused = scanner.failure {
            return XMLReadError(
                kind: refused.kind, location: SourceLocation(file: file, line: refused.line, column: refused.column),
                message: refused.message)
        }
        if let error = parserError {
            return XMLReadError(
                kind: error.isEncodingProblem ? .unsupportedEncoding : .malformed,
                location: SourceLocation(file: file, line: error.line, column: error.column), message: error.message)
        }
        return XMLReadError(kind: .malformed, location: SourceLocation(file: file, line: 0), message: fallback)
    }
}
