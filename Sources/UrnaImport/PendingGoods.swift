import Foundation
import UrnaRecords
import UrnaStore

/// Goods whose candidacy is in neither the run's files nor the database, kept in `_urna_pending_goods` instead of
/// being lost: an asset file imported in a run before its consulta_cand file gives, once that file is imported,
/// the database an import of both in one run gives. Each good is kept as the importer's own JSON of its values
/// (also its key: the same row kept twice is one row), with where it was read and its source bytes.
struct PendingGoods {
    struct Entry {
        let objects: AssetObjects
        let location: SourceLocation
        let original: [UInt8]
        let payload: String
    }

    private struct Payload: Codable {
        var good: GoodValues
        var goodType: GoodTypeValues?
        var election: ElectionValues?
    }

    let connection: Connection
    private var exists: Bool

    init(connection: Connection) throws {
        self.connection = connection
        exists = try connection.tableExists(StorageLayout.pendingGoodsTable)
    }

    static func payload(_ a: AssetObjects) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(
            decoding: try encoder.encode(Payload(good: a.good, goodType: a.goodType, election: a.election)),
            as: UTF8.self)
    }

    /// Keeps a good for a later run.
    mutating func keep(_ a: AssetObjects, location: SourceLocation, original: [UInt8]) throws {
        if !exists {
            try connection.execute(StorageLayout.pendingGoodsSQL)
            exists = true
        }
        try connection.run(
            "INSERT OR IGNORE INTO \"\(StorageLayout.pendingGoodsTable)\" (payload, file, line, original) VALUES (?, ?, ?, ?)",
            [.text(try Self.payload(a)), .text(location.file), .integer(Int64(location.line)), .blob(original)])
    }

    /// Up to `limit` kept goods whose payload sorts after `after` (in payload order), so a long list is read in
    /// batches with memory bounded.
    func batch(after: String?, limit: Int = 4096) throws -> [Entry] {
        guard exists else { return [] }
        let decoder = JSONDecoder()
        return try connection.rows(
            "SELECT payload, file, line, original FROM \"\(StorageLayout.pendingGoodsTable)\" WHERE payload > ? "
                + "ORDER BY payload LIMIT \(limit)", [.text(after ?? "")]
        ).compactMap { r in
            guard case .text(let json) = r[0], let p = try? decoder.decode(Payload.self, from: Data(json.utf8)) else {
                return nil
            }
            let file = if case .text(let f) = r[1] { f } else { "" }
            let line = if case .integer(let l) = r[2] { Int(l) } else { 0 }
            let original: [UInt8] = if case .blob(let b) = r[3] { b } else { [] }
            return Entry(
                objects: AssetObjects(good: p.good, goodType: p.goodType, election: p.election),
                location: SourceLocation(file: file, line: line, column: 0),
                original: original, payload: json)
        }
    }

    /// Forgets a kept good (it was attached, or it is kept again under its new form).
    func remove(_ payload: String) throws {
        guard exists else { return }
        try connection.run("DELETE FROM \"\(StorageLayout.pendingGoodsTable)\" WHERE payload = ?", [.text(payload)])
    }

    /// Drops the table once no good waits in it, so a file whose kept goods were all attached is the file one
    /// run of the same inputs gives (no empty table left behind).
    mutating func dropIfEmpty() throws {
        guard exists, try count() == 0 else { return }
        try connection.execute("DROP TABLE \"\(StorageLayout.pendingGoodsTable)\"")
        exists = false
    }

    /// How many goods wait for their candidacy.
    func count() throws -> Int {
        guard exists else { return 0 }
        return Int(try connection.integer("SELECT count(*) FROM \"\(StorageLayout.pendingGoodsTable)\""))
    }
}
