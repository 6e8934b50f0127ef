/// Why an XML file cannot be read; the caller refuses the whole file. (I/O failures are `RecordFileError`.)
///
/// `location` points at the problem (1-based line and column; column 0 when unknown), e.g.
/// `dump.xml:12:7: Opening and ending tag mismatch: NM_UE line 12 and candidato`.
public struct XMLReadError: Error, Sendable, CustomStringConvertible {
    /// The family of the problem, for callers that react differently.
    public enum Kind: String, Sendable {
        /// Not well-formed XML (libxml2's message), including nesting deeper than 256 levels.
        case malformed
        /// The file declares a DTD (`<!DOCTYPE`): refused outright, so no entity is ever expanded or fetched.
        case dtdNotAccepted
        /// UTF-16, UCS-4 or EBCDIC text, an encoding libxml2 does not know, or bytes that are not valid in
        /// the declared encoding (UTF-8 when none is declared).
        case unsupportedEncoding
    }

    public let kind: Kind
    public let location: SourceLocation
    public let message: String

    public init(kind: Kind, location: SourceLocation, message: String) {
        self.kind = kind
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}
