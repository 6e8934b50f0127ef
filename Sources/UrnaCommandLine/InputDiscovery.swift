import Foundation
import UrnaImport
import UrnaRecords

/// Turns `urna import`'s arguments into the files to read: folders are read recursively in a fixed order
/// (paths sorted, so two runs read the same files the same way; the elections schema's identity rules make
/// the order irrelevant to the result), and files that are not TSE data are skipped with one warning each.
///
/// What is skipped: anything that is plainly something else by its first bytes or its name (a PDF, an
/// SQLite database or its -wal/-shm/-journal, an image, a read-me, an office document, a zip without a
/// .csv/.txt member), and hidden files and folders (`.name`: caches, `urna download`'s partial files).
/// Inside a folder, a file that merely fails recognition (a CSV of something else) is skipped too; named
/// explicitly, it still stops the run (exit 65), since the user meant it to be read.
enum InputDiscovery {
    struct Skipped: Equatable {
        let path: String
        let reason: String
        /// One line: a file named with a line feed in it (`x\nwarning: nothing else was skipped.pdf`) no longer
        /// prints a forged line of its own.
        var warning: String { "warning: skipped \(TerminalSafe.line(path)): \(reason)" }
    }

    enum Verdict: Equatable {
        case data
        /// Plainly not TSE data, by its bytes or its name.
        case foreign(String)
        /// Looks like data but no TSE layout recognises it.
        case unrecognized(String)
    }

    /// The files to import and the ones skipped, in the order given (each folder's files sorted by path).
    static func expand(_ inputs: [String]) -> (files: [String], skipped: [Skipped]) {
        var files: [String] = []
        var skipped: [Skipped] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
                files.append(input)  // the importer says it is missing (exit 66)
                continue
            }
            if isDirectory.boolValue {
                let (found, links) = filesInFolder(input)
                skipped += links
                for path in found {
                    // Never opened: reading a FIFO waits for a writer, /dev/zero never ends.
                    if let what = notARegularFile(path) {
                        skipped.append(Skipped(path: path, reason: "\(what), not a file"))
                        continue
                    }
                    switch verdict(path) {
                    case .data: files.append(path)
                    case .foreign(let why), .unrecognized(let why): skipped.append(Skipped(path: path, reason: why))
                    }
                }
            } else if case .foreign(let why) = verdict(input) {
                skipped.append(Skipped(path: input, reason: why))
            } else {
                files.append(input)
            }
        }
        return (files, skipped)
    }

    /// Regular files under `folder`, recursively, hidden entries left out, sorted by path; and the links to folders
    /// that were not followed: one leading out of `folder` (`etc -> /etc`) or back into a folder already read (a
    /// loop, `sub/loop -> ..`), each named in a warning.
    static func filesInFolder(_ folder: String) -> (files: [String], links: [Skipped]) {
        var out: [String] = []
        var links: [Skipped] = []
        let root = OutputPaths.realPath(folder) ?? OutputPaths.absolute(folder)
        var visited: Set<String> = [root]
        // Each folder with its real path: a folder that is not a link is its parent's real path plus its name, so
        // only links are resolved (realpath on every folder made a folder nested 2,000 deep take minutes).
        var stack = [(folder, root)]
        while let (dir, dirReal) = stack.popLast() {
            // A folder that cannot be listed (a path past PATH_MAX, 4,096 bytes, nested 2,100 deep; no permission)
            // is named: its files were left out without a word.
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
                links.append(
                    Skipped(
                        path: dir,
                        reason: "a folder that cannot be read (\(Self.why(dir))): its files were not imported"))
                continue
            }
            for name in names where !name.hasPrefix(".") {
                let path = (dir as NSString).appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    var st = stat()
                    let reason =
                        lstat(path, &st) == 0
                        ? "a link to \((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"), which does not exist"
                        : "cannot be read (\(Self.why(path)))"
                    links.append(Skipped(path: path, reason: reason))
                    continue
                }
                guard isDirectory.boolValue else {
                    out.append(path)
                    continue
                }
                var st = stat()
                let isLink = lstat(path, &st) != 0 || st.st_mode & S_IFMT == S_IFLNK
                let real =
                    isLink
                    ? (OutputPaths.realPath(path) ?? OutputPaths.absolute(path))
                    : (dirReal as NSString).appendingPathComponent(name)
                if real != root && !real.hasPrefix(root.hasSuffix("/") ? root : root + "/") {
                    links.append(Skipped(path: path, reason: "a link to \(real), outside \(folder) (not followed)"))
                } else if !visited.insert(real).inserted {
                    links.append(
                        Skipped(
                            path: path, reason: "leads to \(real), already read through another path (not read twice)"))
                } else {
                    stack.append((path, real))
                }
            }
        }
        return (out.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }, links)
    }

    /// Why `path` cannot be reached, in the system's words (`File name too long`).
    static func why(_ path: String) -> String {
        guard let d = opendir(path) else { return String(cString: strerror(errno)) }
        closedir(d)
        return "it could not be listed"
    }

    /// What `path` leads to (following symlinks) when that is not a regular file: a FIFO, a device, a socket.
    static func notARegularFile(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFIFO: return "a FIFO"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    static let foreignExtensions: [String: String] = [
        "pdf": "a PDF", "sqlite": "an SQLite database", "sqlite3": "an SQLite database", "db": "a database file",
        "md": "a text document", "html": "a web page", "htm": "a web page", "doc": "an office document",
        "docx": "an office document", "xls": "a spreadsheet", "xlsx": "a spreadsheet", "ods": "a spreadsheet",
        "odt": "an office document", "json": "a JSON file", "png": "an image", "jpg": "an image", "jpeg": "an image",
        "gif": "an image", "bak": "a backup file",
    ]

    /// What `path` is, from its first bytes, its name and, last, the TSE recognisers.
    static func verdict(_ path: String) -> Verdict {
        let name = (path as NSString).lastPathComponent
        let lower = name.lowercased()
        let head = firstBytes(path, 16)
        if head.starts(with: Array("%PDF".utf8)) { return .foreign("a PDF, not TSE data") }
        if head.starts(with: Array("SQLite format 3\0".utf8)) { return .foreign("an SQLite database, not TSE data") }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) || head.starts(with: [0xFF, 0xD8, 0xFF])
            || head.starts(with: Array("GIF8".utf8))
        {
            return .foreign("an image, not TSE data")
        }
        for suffix in ["-wal", "-shm", "-journal"] where lower.hasSuffix(suffix) {
            return .foreign("SQLite's \(suffix.dropFirst()) file, not TSE data")
        }
        if lower.hasPrefix("leiame") || lower.hasPrefix("readme") { return .foreign("a read-me, not TSE data") }
        if let ext = lower.split(separator: ".").last.map(String.init), lower.contains("."),
            let what = foreignExtensions[ext]
        {
            return .foreign("\(what) (.\(ext)), not TSE data")
        }
        if lower.hasSuffix(".rejects.csv") { return .foreign("an urna rejects file, not TSE data") }
        do {
            if XMLRecordReader.looksLikeXML(firstBytes: firstBytes(path, 512)) {
                _ = try XMLRecordReader(path: path, canonicalName: TSELayouts.canonicalName)
            } else {
                _ = try TSEFileReader(path: path)
            }
            return .data
        } catch let error as RecordFileError {
            switch error {
            case .io: return .data  // the importer reports it with its exit code
            case .zip(_, let reason) where reason.contains("no data member"):
                // A zipped XML dump is said to be one (it is data, read once extracted).
                if let xml = reason.range(of: " but XML") {
                    return .foreign("a zip of XML" + reason[xml.upperBound...])
                }
                return .foreign("a zip without TSE data (no .csv or .txt member)")
            case .unrecognized(_, let reason, _)
            where reason.hasPrefix("its header looks like a") || reason.hasPrefix("its header names"):
                // TSE data that is damaged (a required column missing or misspelt, one named twice): read, so the
                // importer stops the run on it with its whole message, rather than skipped with a warning.
                return .data
            case .otherTSEFile(_, let family, let reason):
                return .unrecognized("TSE's \(family) file, which urna does not import: \(reason)")
            default: return .unrecognized(Self.firstSentence(error))
            }
        } catch {
            return .unrecognized(Self.firstSentence(error))
        }
    }

    /// A recogniser's message cut to its first sentence, for a one-line warning.
    static func firstSentence(_ error: Error) -> String {
        let text = "\(error)"
        let cut = text.range(of: ". ").map { String(text[..<$0.lowerBound]) } ?? text
        return "no TSE layout recognises it (\(cut))"
    }

    static func firstBytes(_ path: String, _ count: Int) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: count)) ?? Data())
    }
}

extension ImportCommand {
    /// The import's files from its arguments: folders expanded, foreign files skipped with a warning on stderr.
    /// Also returns the files skipped (each already said in a warning on stderr).
    static func discoverInputsAndSkipped(_ arguments: [String]) throws -> (
        files: [String], skipped: [InputDiscovery.Skipped]
    ) {
        let (files, skipped) = InputDiscovery.expand(arguments)
        for s in skipped { CLI.printError(s.warning) }
        guard !files.isEmpty else {
            throw CLIError(
                ExitCode.missingInput,
                "no TSE data to import in \(arguments.joined(separator: ", "))"
                    + (skipped.isEmpty
                        ? " (no files)" : " (\(skipped.count) file\(skipped.count == 1 ? "" : "s") skipped)")
                    + ": give consulta_cand / bem_candidato / consulta_coligacao files, their zips, or a folder of them"
            )
        }
        return (files, skipped)
    }
}
