import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// Temporary files, byte snapshots and fixtures shared by the migrator tests.
enum Fixture {
    /// A fresh directory that is removed when the returned token is released.
    static func directory() throws -> TemporaryDirectory { try TemporaryDirectory() }

    /// The bytes of a database and its sidecars (absent files map to nil).
    static func snapshot(_ path: String) -> [String: Data?] {
        var out: [String: Data?] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] {
            out[suffix.isEmpty ? "main" : suffix] = FileManager.default.contents(atPath: path + suffix)
        }
        return out
    }

    /// FNV-1a 64 of some bytes, for messages.
    static func checksum(_ d: Data?) -> String {
        guard let d else { return "absent" }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in d {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return String(h, radix: 16)
    }

    static func checksums(_ s: [String: Data?]) -> [String: String] { s.mapValues { checksum($0) } }

    /// A people file at `version` with a few persons.
    static func peopleFile(at path: String, version: Int, persons: [(String, String, Int)] = Fixture.persons) throws {
        let schema = People.family.schema(version: version)!
        let store = try Store(path: path, schema: schema)
        try store.write {
            for (first, last, age) in persons {
                switch version {
                case 0: try store.create("Person", value: ["firstName": first, "lastName": last, "age": age])
                case 1: try store.create("Person", value: ["fullName": "\(first) \(last)", "age": age])
                default: try store.create("Person", value: ["fullName": "\(first) \(last)", "email": "", "age": age])
                }
            }
        }
    }

    static let persons: [(String, String, Int)] = [
        ("Ada", "Lovelace", 36), ("Alan", "Turing", 41), ("Grace", "Hopper", 85), ("José", "Conceição", 0),
    ]

    /// Every row of every table (metadata excluded), as text, for comparing two files' data.
    static func dump(_ path: String, skip: Set<String> = [StorageLayout.schemaTable, StorageLayout.historyTable]) throws
        -> [String: [String]]
    {
        let c = try Connection(path: path, readOnly: true, create: false)
        var out: [String: [String]] = [:]
        for row in try c.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        {
            guard case .text(let name) = row[0], !skip.contains(name) else { continue }
            out[name] = try c.rows("SELECT * FROM \(Identifier.quoted(name))").map { r in
                r.map { v -> String in
                    switch v {
                    case .null: "NULL"
                    case .integer(let i): "i:\(i)"
                    case .real(let d): "r:\(d)"
                    case .text(let s): "t:\(s)"
                    case .blob(let b): "b:\(b.count)"
                    }
                }.joined(separator: "|")
            }.sorted()
        }
        return out
    }

    /// sqlite_master of a file, normalised (whitespace), metadata rows kept.
    static func master(_ path: String) throws -> [String] {
        let c = try Connection(path: path, readOnly: true, create: false)
        return try c.rows(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
        ).map { r in
            let sql: String =
                if case .text(let s) = r[3] { s.split(whereSeparator: \.isWhitespace).joined(separator: " ") } else {
                    ""
                }
            return "\(r[0]) \(r[1]) ON \(r[2]): \(sql)"
        }
    }
}

/// A temporary directory that deletes itself.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("urna-migrator-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
