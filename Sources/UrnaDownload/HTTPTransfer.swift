import CCurl
import Foundation

/// One HTTP GET with libcurl into a file: optionally conditional (If-None-Match / If-Modified-Since) and
/// optionally resuming (Range with If-Range). The body is written only for a 200 or a 206 whose range starts
/// where the file ends; any other answer leaves the file as it was.
final class HTTPTransfer {
    /// How a request ended.
    struct Response {
        /// The final HTTP status (0 when no answer came).
        var status = 0
        var etag: String?
        var lastModified: String?
        /// Body bytes written to the file by this request.
        var bodyBytes: Int64 = 0
        /// libcurl's result: nil when the transfer completed.
        var failure: String?
        /// Whether the failure is the network's (not a refusal of ours, like a bad range).
        var networkFailure = false
        /// Whether the answer itself was refused (too large for the disk or for a zip urna can read): what
        /// arrived of it is useless and must not be kept for resuming.
        var answerRefused = false
        /// The URL a redirect pointed to when libcurl would not follow it (another scheme), else nil.
        var refusedRedirect: String?
        /// Whether a 206 continued another version of the file than the partial one (its validator was not the
        /// If-Range sent): nothing was appended, and the partial file is no prefix of what the server has.
        var staleRange = false
    }

    /// A validator sent as If-Range, and which header of the answer carries it: an unquoted ETag (`ETag: abc123`,
    /// sent by real servers) was once taken for a date, so every resume was refused as another version.
    enum Validator: Equatable {
        case etag(String)
        case lastModified(String)

        /// The text sent.
        var value: String {
            switch self {
            case .etag(let v), .lastModified(let v): return v
            }
        }

        /// The (lowercased) answer header to compare it with.
        var header: String {
            switch self {
            case .etag: return "etag"
            case .lastModified: return "last-modified"
            }
        }
    }

    /// What the caller sends.
    struct Request {
        var url: String
        var file: String
        /// Resume at this offset of `file` (0: write from the start).
        var resumeFrom: Int64 = 0
        /// The validator of the bytes already in `file` (ETag or Last-Modified), sent as If-Range.
        var ifRange: Validator?
        var ifNoneMatch: String?
        var ifModifiedSince: String?
        var userAgent = "urna"
        /// Most bytes the whole file may have: more is refused (an endless or lying answer).
        var maxBytes: Int64 = HTTPTransfer.maxFileBytes
        /// The transfer fails when fewer than `minimumSpeed` bytes a second arrive over `stallSeconds`.
        var minimumSpeed = 1024
        var stallSeconds = 60
    }

    /// The largest file a download may be: a zip over 4 GiB needs Zip64, which urna's zip reader cannot open,
    /// so more bytes than this are an endless or broken answer, never a file urna could use.
    static let maxFileBytes: Int64 = 0xFFFF_FFFF

    private static let globalInit: Bool = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK }()

    /// Performs the request; `progress(received, total)` is called as bytes arrive (total may be 0 when unknown),
    /// counting the bytes the file already held.
    /// The schemes a redirect may go to: a download begun over https stays on https (a redirect to plain http
    /// would hand the rest of the transfer to anyone on the path); one begun over http may move up to https.
    static func redirectProtocols(for url: String) -> String {
        url.lowercased().hasPrefix("https://") ? "https" : "http,https"
    }

    static func perform(_ request: Request, progress: ((Int64, Int64) -> Void)?) -> Response {
        guard globalInit, let curl = curl_easy_init() else {
            return Response(failure: "libcurl could not start", networkFailure: false)
        }
        defer { curl_easy_cleanup(curl) }
        let context = TransferContext(request: request, progress: progress)
        let unmanaged = Unmanaged.passRetained(context)
        defer { unmanaged.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        for header in [
            request.ifNoneMatch.map { "If-None-Match: \($0)" },
            request.ifModifiedSince.map { "If-Modified-Since: \($0)" },
            request.resumeFrom > 0 ? request.ifRange.map { "If-Range: \($0.value)" } : nil,
        ].compactMap({ $0 }) {
            headers = curl_slist_append(headers, header)
        }
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            _ = urna_curl_setopt_string(curl, CURLOPT_URL, request.url)
            _ = urna_curl_setopt_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = urna_curl_setopt_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, Self.redirectProtocols(for: request.url))
            _ = urna_curl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, 1)
            _ = urna_curl_setopt_long(curl, CURLOPT_MAXREDIRS, 5)
            _ = urna_curl_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
            _ = urna_curl_setopt_long(curl, CURLOPT_CONNECTTIMEOUT, 30)
            // A stalled transfer (under 1 KiB/s for a minute) fails and is resumed: a server dripping a byte a
            // second kept a limit of 1 byte/s from ever tripping.
            _ = urna_curl_setopt_long(curl, CURLOPT_LOW_SPEED_LIMIT, request.minimumSpeed)
            _ = urna_curl_setopt_long(curl, CURLOPT_LOW_SPEED_TIME, request.stallSeconds)
            _ = urna_curl_setopt_string(curl, CURLOPT_USERAGENT, request.userAgent)
            _ = urna_curl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            if let headers { _ = urna_curl_setopt_list(curl, CURLOPT_HTTPHEADER, headers) }
            if request.resumeFrom > 0 { _ = urna_curl_setopt_string(curl, CURLOPT_RANGE, "\(request.resumeFrom)-") }
            _ = urna_curl_setopt_write_function(curl, transferWrite)
            _ = urna_curl_setopt_pointer(curl, CURLOPT_WRITEDATA, unmanaged.toOpaque())
            _ = urna_curl_setopt_header_function(curl, transferHeader)
            _ = urna_curl_setopt_pointer(curl, CURLOPT_HEADERDATA, unmanaged.toOpaque())
            _ = urna_curl_setopt_long(curl, CURLOPT_NOPROGRESS, 0)
            _ = urna_curl_setopt_progress_function(curl, transferProgress)
            _ = urna_curl_setopt_pointer(curl, CURLOPT_XFERINFODATA, unmanaged.toOpaque())
            return curl_easy_perform(curl)
        }
        context.close()
        var response = Response()
        var status = 0
        _ = urna_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
        response.status = status
        response.etag = context.headers["etag"]
        response.lastModified = context.headers["last-modified"]
        response.bodyBytes = context.written
        response.staleRange = context.staleRange
        if let localError = context.localError {
            response.failure = localError
            response.answerRefused = context.answerRefused
        } else if code == CURLE_UNSUPPORTED_PROTOCOL, status / 100 == 3 {
            // A redirect to file://, ftp:// or the like: the server's doing, not the network's.
            let target = context.headers["location"] ?? "another scheme"
            response.refusedRedirect = target
            let allowed =
                Self.redirectProtocols(for: request.url) == "https"
                ? "only https from an https address" : "only http and https"
            response.failure = "the server redirected to \(target), which urna does not follow (\(allowed))"
        } else if code != CURLE_OK {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            response.failure = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            response.networkFailure = true
        }
        return response
    }
}

/// What libcurl's callbacks share: the answer's headers and the open output file.
final class TransferContext {
    let request: HTTPTransfer.Request
    let progress: ((Int64, Int64) -> Void)?
    var status = 0
    var headers: [String: String] = [:]
    var written: Int64 = 0
    var localError: String?
    /// Whether `localError` refuses the answer itself (see `Response.answerRefused`).
    var answerRefused = false
    /// See `Response.staleRange`.
    var staleRange = false
    private var output: Int32 = -1
    private var decided = false
    private var writing = false

    init(request: HTTPTransfer.Request, progress: ((Int64, Int64) -> Void)?) {
        self.request = request
        self.progress = progress
    }

    /// Receives one header line; returns false to stop the transfer.
    func header(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty, !decided, status == 200 || status == 206 {
            // The end of a usable answer's headers: its length is judged now, not when (or if) a body comes.
            return decideOnce()
        }
        if trimmed.hasPrefix("HTTP/") {
            // A new response (after a redirect or a 100 Continue): forget the previous one's headers.
            headers = [:]
            let parts = trimmed.split(separator: " ")
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            return true
        }
        guard let colon = trimmed.firstIndex(of: ":") else { return true }
        let name = trimmed[..<colon].lowercased()
        headers[name] = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return true
    }

    /// Decides once what to do with the answer (write it or drop it); false when it is refused.
    private func decideOnce() -> Bool {
        guard !decided else { return localError == nil }
        decided = true
        do { try decide() } catch {
            localError = "\(error)"
            answerRefused = (error as? TransferRefusal)?.answerRefused ?? false
            return false
        }
        return true
    }

    /// Receives body bytes; returns false to stop the transfer.
    func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard decideOnce() else { return false }
        guard writing, output >= 0 else { return true }  // a 304/404 body: read and dropped
        let base = status == 206 ? request.resumeFrom : 0
        // An endless answer (or one longer than it said): stopped at the first byte past what a zip can be.
        guard base + written + Int64(bytes.count) <= request.maxBytes else {
            localError =
                "the server sent more than \(Downloader.mib(request.maxBytes)) (an endless or broken answer): no zip "
                + "urna can open is that large"
            answerRefused = true
            return false
        }
        var offset = 0
        while offset < bytes.count {
            let n = write(output, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let code = errno
                if code == ENOSPC || code == EDQUOT {
                    localError =
                        "the disk holding \(PartialFile.folder(of: request.file)) filled up after "
                        + "\(Downloader.mib(base + written + Int64(offset))) had arrived; free space there (or give "
                        + "--dir a folder on another disk) and run again"
                    answerRefused = true
                } else {
                    localError = "writing it failed: \(String(cString: strerror(code)))"
                }
                return false
            }
            offset += n
        }
        written += Int64(bytes.count)
        return true
    }

    private func decide() throws {
        switch status {
        case 200, 206:
            let from: Int64
            if status == 206 {
                // Content-Range: bytes START-END/TOTAL must start where the file ends, or the file would be wrong.
                let range = headers["content-range"] ?? ""
                let start = range.split(whereSeparator: { $0 == " " || $0 == "-" }).dropFirst().first.flatMap {
                    Int64($0)
                }
                guard request.resumeFrom > 0, start == request.resumeFrom else {
                    throw TransferRefusal("the server sent a range (\(range)) that does not continue the partial file")
                }
                // A server that ignores If-Range sends the rest of its current version: appended to the partial
                // file's bytes of the old one, the zip held half of each (exit 0; its CRC-32 failed at import).
                if let validator = request.ifRange {
                    let sent = validator.value
                    if let now = headers[validator.header], now != sent {
                        staleRange = true
                        throw TransferRefusal(
                            "the server sent the rest of another version of the file (\(now), the partial file holds "
                                + "\(sent))")
                    }
                }
                from = request.resumeFrom
            } else {
                from = 0
            }
            // What the answer says it holds is checked before a byte is written: a length no zip urna can read
            // has, or one the disk cannot take (an endless answer filled the disk, leaving a hidden partial file).
            if let length = headers["content-length"].flatMap({ Int64($0) }), length >= 0 {
                try PartialFile.checkRoom(for: request.file, from: from, length: length, maxBytes: request.maxBytes)
            }
            output = try PartialFile.openForWriting(request.file, at: from)
            writing = true
        default:
            writing = false
        }
    }

    func reportProgress(total: Int64, received: Int64) {
        guard let progress, writing else { return }
        let base = status == 206 ? request.resumeFrom : 0
        progress(base + received, total > 0 ? base + total : 0)
    }

    func close() {
        guard output >= 0 else { return }
        _ = fsync(output)
        PartialFile.closeDescriptor(output)
        output = -1
    }
}

struct TransferRefusal: Error, CustomStringConvertible {
    let description: String
    /// Whether the answer itself is refused (what arrived of it is not kept for resuming).
    var answerRefused = false
    init(_ description: String, answerRefused: Bool = false) {
        self.description = description
        self.answerRefused = answerRefused
    }
}

private func transferWrite(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
)
    -> Int
{
    guard let data, let context else { return 0 }
    let c = Unmanaged<TransferContext>.fromOpaque(context).takeUnretainedValue()
    let n = size * count
    return c.body(UnsafeRawBufferPointer(start: data, count: n)) ? n : 0
}

private func transferHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
)
    -> Int
{
    guard let data, let context else { return 0 }
    let c = Unmanaged<TransferContext>.fromOpaque(context).takeUnretainedValue()
    let n = size * count
    return c.header(String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self)) ? n : 0
}

private func transferProgress(
    _ context: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloaded: curl_off_t, _: curl_off_t,
    _: curl_off_t
) -> Int32 {
    guard let context else { return 0 }
    Unmanaged<TransferContext>.fromOpaque(context).takeUnretainedValue()
        .reportProgress(total: Int64(downloadTotal), received: Int64(downloaded))
    return 0
}
