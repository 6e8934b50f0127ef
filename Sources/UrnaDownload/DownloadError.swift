/// A download that did not produce a usable file; each case says what to do about it.
public enum DownloadError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The server has no such file (HTTP 404 or 410).
    case notFound(url: String, status: Int)
    /// Another HTTP status the download cannot use.
    case httpStatus(url: String, status: Int)
    /// The network failed: no route, no name resolution, refused, timed out, dropped too often.
    case network(url: String, reason: String)
    /// What arrived is not a zip archive that opens, even after fetching it again.
    case notAZip(url: String, reason: String)
    /// A local file could not be written or moved.
    case localFile(path: String, reason: String)
    /// The server's answer was refused: larger than any zip urna can read, larger than the disk can take, or
    /// a redirect to a scheme urna does not follow. Nothing of it was kept.
    case refusedAnswer(url: String, reason: String)

    /// The exit status a command line should use: 66 when the file does not exist upstream, 1 otherwise.
    public var exitCode: Int32 {
        switch self {
        case .notFound: 66
        case .notAZip: 65
        default: 1
        }
    }

    public var description: String {
        switch self {
        case .notFound(let url, let status):
            return "\(url) does not exist on the server (HTTP \(status)): TSE may not publish this file for that "
                + "year; check the year and --kinds (or --base-url)"
        case .httpStatus(let url, let status):
            return "\(url) answered HTTP \(status); nothing was saved: try again later"
        case .network(let url, let reason):
            return "cannot download \(url): \(reason). Check the connection (are you online?); proxies are "
                + "taken from http_proxy/https_proxy/no_proxy. Whatever part of the file arrived is kept and resumed next time"
        case .notAZip(let url, let reason):
            return "\(url) did not arrive as a zip that opens (\(reason)), twice; it was deleted: try again later"
        case .localFile(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .refusedAnswer(let url, let reason):
            return "cannot download \(url): \(reason)"
        }
    }
}
