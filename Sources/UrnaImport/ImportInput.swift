import UrnaRecords

/// One input file, opened and recognised: a TSE CSV/TXT (or a zip of them) or an XML dump.
final class ImportInput {
    enum Reader {
        case tse(TSEFileReader)
        case xml(XMLRecordReader)
    }

    let path: String
    let reader: Reader
    let size: Int64

    /// Opens and recognises `path`; throws `ImportError` naming the file (66 missing, 65 unrecognised).
    init(path: String, encoding: TextEncodingChoice) throws {
        self.path = path
        do {
            let head = try ImportInput.firstBytes(of: path, count: 512)
            if XMLRecordReader.looksLikeXML(firstBytes: head) {
                let xml = try XMLRecordReader(path: path, canonicalName: TSELayouts.canonicalName)
                reader = .xml(xml)
                size = xml.fileSize
            } else {
                let tse = try TSEFileReader(path: path, encoding: encoding)
                reader = .tse(tse)
                size = tse.fileSize
            }
        } catch let error as RecordFileError {
            switch error {
            case let .io(_, operation, _, message):
                throw ImportError.missingFile(path: path, reason: "cannot \(operation): \(message)")
            case let .unrecognized(file, reason, missing):
                throw ImportError.unrecognizedFile(file: file, reason: "not a recognised TSE file: \(reason)", missingColumns: missing)
            case .empty, .unreadableFirstRow, .zip:
                throw ImportError.unrecognizedFile(file: error.file, reason: error.description, missingColumns: [])
            }
        }
    }

    /// The layout's name, for the summary.
    var layoutName: String {
        switch reader {
        case .tse(let r): r.layoutName
        case .xml: "XML records"
        }
    }

    /// Which files go first: candidacies, then legends, then XML (mixed), then assets, so an asset
    /// usually finds its candidacy already written and is not held in memory.
    var orderRank: Int {
        switch reader {
        case .tse(let r):
            switch r.kind {
            case .candidate: 0
            case .coalition: 1
            case .asset: 3
            }
        case .xml: 2
        }
    }

    var bytesRead: Int64 {
        switch reader {
        case .tse(let r): r.bytesRead
        case .xml(let r): min(r.bytesRead, size)
        }
    }

    func next() throws -> RecordOrReject? {
        switch reader {
        case .tse(let r): try r.next()
        case .xml(let r): try r.next()
        }
    }

    private static func firstBytes(of path: String, count: Int) throws -> [UInt8] {
        let source = try FileByteSource(path: path)
        var bytes = [UInt8](repeating: 0, count: count)
        let n = try bytes.withUnsafeMutableBytes { try source.read(into: $0) }
        return Array(bytes.prefix(n))
    }
}
