import Foundation
import UrnaPaths
import UrnaRecords

/// Fetches zip files over HTTP(S) into a folder, the way a slow or flaky connection needs:
///
/// - cached: beside each file a hidden `.NAME.download` records its URL, ETag and Last-Modified; the next
///   fetch is a conditional request, and a 304 leaves the file alone (nothing is transferred);
/// - resumable: bytes arrive in a hidden `.NAME.partial`; a dropped connection is resumed with an HTTP Range
///   (guarded by If-Range, so a file that changed upstream starts over), within the run and on the next one;
/// - verified: a file is kept only when it opens as a zip archive; one that does not is deleted and fetched
///   once more from scratch;
/// - proxies come from the environment (`http_proxy`, `https_proxy`, `no_proxy`), as libcurl reads them.
///
/// ```swift
/// let result = try Downloader().fetch("https://cdn.tse.jus.br/estatistica/sead/odsele/consulta_cand/consulta_cand_2018.zip",
///                                     to: "data/consulta_cand_2018.zip")
/// ```
public final class Downloader {
    /// What a fetch did.
    public enum Outcome: Sendable, Equatable {
        /// The whole file came (`bytes` of body).
        case fetched(bytes: Int64)
        /// The file was completed from a partial one that held `from` bytes.
        case resumed(from: Int64, bytes: Int64)
        /// The server said the file has not changed (HTTP 304): nothing was transferred.
        case notModified
    }

    /// Reports while bytes arrive: the file's name, bytes so far and the total (0 when unknown).
    public typealias Progress = (String, Int64, Int64) -> Void
    /// Reports what happened along the way (a resumed drop, a damaged file deleted): one line each.
    public typealias Notice = (String) -> Void

    let progress: Progress?
    let notice: Notice?
    let userAgent: String
    /// How many times one fetch resumes after the connection drops before giving up (until the next run).
    public var maxResumes = 5

    public init(userAgent: String = "urna", progress: Progress? = nil, notice: Notice? = nil) {
        self.userAgent = userAgent
        self.progress = progress
        self.notice = notice
    }

    /// Fetches `url` into `path` (replaced whole at the end, never left half-written). Another fetch of `path`
    /// (in this or another process) is waited for; `lock`, when given, is the caller's own `DownloadLock` on
    /// `path`, held across more than the fetch (the extraction of members); a lock on another path is refused.
    public func fetch(_ url: String, to path: String, holding lock: DownloadLock? = nil) throws -> Outcome {
        if let lock, lock.path != Self.sidecar(of: path, suffix: "lock") {
            throw DownloadError.localFile(
                path: path,
                reason: "the lock given to the download is \(lock.path), not this file's: nothing was fetched")
        }
        let own = lock == nil ? try DownloadLock(for: path, notice: notice) : nil
        defer { own?.release() }
        let name = (path as NSString).lastPathComponent
        let cachePath = Self.sidecar(of: path, suffix: "download")
        let partial = Self.sidecar(of: path, suffix: "partial")
        let partialCache = Self.sidecar(of: path, suffix: "partial.download")
        var conditional: CacheRecord?
        // Only a file is ever replaced or deleted here: a folder with the zip's name (the user's own, say the zip
        // unpacked into it) was deleted with everything in it as "does not open as a zip".
        if let other = Self.notAFile(path) {
            throw DownloadError.localFile(
                path: path,
                reason:
                    "\(other) has the name of the zip: urna never deletes it; move it away or give --dir another folder"
            )
        }
        if FileManager.default.fileExists(atPath: path) {
            if let problem = Self.zipProblem(path) {
                notice?("\(name) does not open as a zip (\(problem)): deleted, fetching it again")
                try? FileManager.default.removeItem(atPath: path)
                try? FileManager.default.removeItem(atPath: cachePath)
            } else if let record = CacheRecord.read(cachePath), record.url == url {
                conditional = record
            }
        }
        // The partial file is urna's own: a symbolic link planted at its name had the resumed bytes written into
        // the file it pointed to (and a folder there would have been deleted as a stale partial file).
        for own in [partial, partialCache] {
            if let what = PartialFile.notOwnFile(own) {
                throw DownloadError.localFile(path: own, reason: PartialFile.refusal(what))
            }
        }
        var resumes = 0
        var freshStarts = 0
        var resumedFrom: Int64?
        while true {
            var request = HTTPTransfer.Request(url: url, file: partial, userAgent: userAgent)
            request.ifNoneMatch = conditional?.etag
            request.ifModifiedSince = conditional?.etag == nil ? conditional?.lastModified : nil
            let held = Self.size(of: partial)
            if held > 0, let record = CacheRecord.read(partialCache), record.url == url,
                let validator = record.etag.map(HTTPTransfer.Validator.etag)
                    ?? record.lastModified.map(HTTPTransfer.Validator.lastModified)
            {
                request.resumeFrom = held
                request.ifRange = validator
            } else {
                try? FileManager.default.removeItem(atPath: partial)
            }
            let response = HTTPTransfer.perform(request) { [progress] received, total in
                progress?(name, received, total)
            }
            if response.staleRange {
                // The partial file is not a prefix of the server's version: start over once, as for a 416.
                try? FileManager.default.removeItem(atPath: partial)
                try? FileManager.default.removeItem(atPath: partialCache)
                freshStarts += 1
                guard freshStarts < 2 else {
                    throw DownloadError.refusedAnswer(url: url, reason: (response.failure ?? "") + ", twice")
                }
                notice?("\(name): \(response.failure ?? "the file changed on the server"); fetching it again")
                resumedFrom = nil
                continue
            }
            if response.status == 206, resumedFrom == nil { resumedFrom = request.resumeFrom }
            if response.status == 200 { resumedFrom = nil }
            if response.status == 200 || response.status == 206 {
                // Whatever arrived is resumable with these validators, even if the transfer broke.
                try? CacheRecord(url: url, etag: response.etag, lastModified: response.lastModified)
                    .write(partialCache)
            }
            if response.refusedRedirect != nil, let failure = response.failure {
                throw DownloadError.refusedAnswer(url: url, reason: failure + "; check --base-url")
            }
            if response.answerRefused, let failure = response.failure {
                // Nothing of an endless answer, or of one the disk could not hold, is kept to resume.
                try? FileManager.default.removeItem(atPath: partial)
                try? FileManager.default.removeItem(atPath: partialCache)
                throw DownloadError.refusedAnswer(url: url, reason: failure + "; nothing of it was kept")
            }
            if let failure = response.failure {
                guard response.networkFailure else { throw DownloadError.localFile(path: partial, reason: failure) }
                let now = Self.size(of: partial)
                if (response.status == 200 || response.status == 206) && now > 0 && resumes < maxResumes {
                    resumes += 1
                    notice?("\(name): the connection dropped at \(Self.mib(now)) (\(failure)); resuming")
                    continue
                }
                throw DownloadError.network(url: url, reason: failure)
            }
            switch response.status {
            case 304:
                return .notModified
            case 404, 410:
                throw DownloadError.notFound(url: url, status: response.status)
            case 416:
                // The partial file is not a prefix of what the server has: start over once.
                try? FileManager.default.removeItem(atPath: partial)
                try? FileManager.default.removeItem(atPath: partialCache)
                freshStarts += 1
                guard freshStarts < 2 else { throw DownloadError.httpStatus(url: url, status: 416) }
                continue
            case 200, 206:
                if !FileManager.default.fileExists(atPath: partial) {
                    _ = FileManager.default.createFile(atPath: partial, contents: nil)
                }
                if var problem = Self.zipProblem(partial) {
                    if let page = Self.htmlPage(partial) { problem = page }
                    try? FileManager.default.removeItem(atPath: partial)
                    try? FileManager.default.removeItem(atPath: partialCache)
                    freshStarts += 1
                    guard freshStarts < 2 else { throw DownloadError.notAZip(url: url, reason: problem) }
                    notice?("\(name) arrived but does not open as a zip (\(problem)): deleted, fetching it again")
                    conditional = nil
                    continue
                }
                // rename(2) replaces a file at once (never a folder), so the name always holds a whole zip.
                if let other = Self.notAFile(path) {
                    throw DownloadError.localFile(
                        path: path, reason: "\(other) has the name of the zip: urna never deletes it; move it away")
                }
                guard rename(partial, path) == 0 else {
                    throw DownloadError.localFile(path: path, reason: String(cString: strerror(errno)))
                }
                try? FileManager.default.removeItem(atPath: partialCache)
                try? CacheRecord(url: url, etag: response.etag, lastModified: response.lastModified).write(cachePath)
                let total = Self.size(of: path)
                return resumedFrom.map { .resumed(from: $0, bytes: total - $0) } ?? .fetched(bytes: total)
            default:
                throw DownloadError.httpStatus(url: url, status: response.status)
            }
        }
    }

    /// What is at `path` (following a symlink) when it is there and is not a regular file: "a folder", "a FIFO",
    /// "something other than a file"; nil when it is a file or nothing is there.
    public static func notAFile(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return kind(ofMode: st.st_mode)
    }

    /// What a file of `mode` is when it is not a regular file ("a folder", "a FIFO", "something other than a
    /// file"), for a message; nil for a regular file.
    static func kind(ofMode mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        default: return "something other than a file"
        }
    }

    /// Why the file at `path` is not a usable zip, or nil when it opens.
    public static func zipProblem(_ path: String) -> String? {
        do {
            let archive = try ZipArchive(path: path)
            return archive.entries.isEmpty ? "the archive is empty" : nil
        } catch {
            return "\(error)"
        }
    }

    /// What to say when the file at `path` is an HTML page (a server's error or "moved" page sent with
    /// status 200), else nil: "no end-of-central-directory record" said nothing of what had come.
    static func htmlPage(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 512)) ?? Data(), as: UTF8.self)
        let text = head.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.lowercased()
        guard
            text.hasPrefix("<!doctype html") || text.hasPrefix("<html") || text.hasPrefix("<head")
                || text.hasPrefix("<body") || text.hasPrefix("<?xml") && text.contains("<html")
        else { return nil }
        return "the server sent an HTML page, not a zip (an error or \"moved\" page answered with status 200); "
            + "check --base-url, or open the address in a browser"
    }

    /// `.NAME.suffix` in the same folder as `path`.
    static func sidecar(of path: String, suffix: String) -> String {
        let folder = PathText.folder(of: path)
        let name = "." + (path as NSString).lastPathComponent + "." + suffix
        return folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
    }

    static func size(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
    }

    static func mib(_ bytes: Int64) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
}

/// What the cache remembers of a downloaded file.
struct CacheRecord: Codable, Equatable {
    var url: String
    var etag: String?
    var lastModified: String?

    static func read(_ path: String) -> CacheRecord? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(CacheRecord.self, from: data)
    }

    func write(_ path: String) throws {
        try JSONEncoder().encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
