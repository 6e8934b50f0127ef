import Foundation
import Testing

@testable import UrnaRecords

/// Fixture paths and scratch files for the CSV, zip and layout tests.
enum RecordsTestSupport {
    /// The path of a file in Fixtures/.
    static func fixture(_ name: String) -> String {
        guard let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            fatalError("Fixtures folder missing from the test bundle")
        }
        return folder.appendingPathComponent(name).path
    }

    /// Writes bytes to a fresh file in a private temporary folder and returns its path.
    static func temporaryFile(_ name: String, _ bytes: [UInt8]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("urna-records-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Writes Latin-1 text (each scalar <= U+00FF becomes one byte).
    static func temporaryFile(_ name: String, latin1 text: String) throws -> String {
        try temporaryFile(name, latin1(text))
    }

    /// The Latin-1 bytes of a string whose scalars are all <= U+00FF.
    static func latin1(_ text: String) -> [UInt8] {
        text.unicodeScalars.map { scalar in
            precondition(scalar.value <= 0xFF, "not Latin-1: \(scalar)")
            return UInt8(scalar.value)
        }
    }

    /// Every result of a CSV reader over in-memory bytes.
    static func csvResults(
        _ bytes: [UInt8], encoding: TextEncodingChoice = .latin1, options: CSVOptions = CSVOptions(), chunk: Int = .max
    ) throws -> [CSVReadResult] {
        let reader = try CSVReader(
            source: MemoryByteSource(bytes, maximumChunk: chunk), name: "test.csv", encoding: encoding, options: options
        )
        var results: [CSVReadResult] = []
        while let result = try reader.next() { results.append(result) }
        return results
    }

    /// Every item of a TSE file, split into records and rejects.
    static func readAll(_ path: String, encoding: TextEncodingChoice = .auto, options: CSVOptions = CSVOptions())
        throws -> (reader: TSEFileReader, records: [Record], rejects: [MalformedRow])
    {
        let reader = try TSEFileReader(path: path, encoding: encoding, options: options)
        var records: [Record] = []
        var rejects: [MalformedRow] = []
        while let item = try reader.next() {
            switch item {
            case .record(let record): records.append(record)
            case .reject(let row): rejects.append(row)
            }
        }
        return (reader, records, rejects)
    }
}

extension CSVReadResult {
    /// The row's fields, or nil for a malformed row.
    var fields: [String]? {
        if case .row(let row) = self { return row.strings }
        return nil
    }

    /// The malformed row, or nil for a good row.
    var malformed: MalformedRow? {
        if case .malformed(let row) = self { return row }
        return nil
    }

    /// The 1-based line the result starts on.
    var line: Int {
        switch self {
        case .row(let row): return row.location.line
        case .malformed(let row): return row.location.line
        }
    }
}
