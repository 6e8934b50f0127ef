import Foundation
import UrnaStore

/// Writes the new objects of one enumeration in batches: each object's values are bound into a
/// multi-row INSERT as soon as the closure is done with it (values it didn't touch straight from the
/// old row, inside SQLite), and the INSERT runs once per `capacity` objects.
///
/// One statement serves every batch size: rows are read from a VALUES list whose last column marks
/// the slots in use. On a constraint error the batch is written again object by object, so each
/// failing object is reported.
final class BatchInserter {
    let transfer: TypeTransfer
    let capacity: Int
    let width: Int
    let statement: RowStatement
    private(set) var objects: [MigrationObject] = []
    private var oldRowids: [Int64] = []
    /// Objects written and free for reuse.
    var pool: [MigrationObject] = []

    init(_ t: TypeTransfer, connection: Connection) throws {
        transfer = t
        width = t.newColumns.count
        // SQLite allows 32766 parameters per statement.
        capacity = max(1, min(64, 32_000 / (width + 1)))
        let slot = "(" + Array(repeating: "?", count: width + 1).joined(separator: ", ") + ")"
        let columns = t.newColumns.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let picked = (1...width).map { "column\($0)" }.joined(separator: ", ")
        statement = try RowStatement(
            connection,
            "INSERT INTO \(Identifier.quoted(t.tableName)) (\(columns)) SELECT \(picked) FROM (VALUES "
                + Array(repeating: slot, count: capacity).joined(separator: ", ") + ") WHERE column\(width + 1) = 1")
    }

    var sql: String { statement.sql }

    /// Binds a finished object into the next slot (the object's row must still be current).
    func add(_ o: MigrationObject, row: RowStatement?, oldRowid: Int64) {
        let base = Int32(objects.count * (width + 1))
        let rowColumn = o.layout.rowColumn
        for i in 0..<width {
            if let row, !o.isLoaded(i) {
                statement.bind(columnOf: row, column: rowColumn[i], at: base + Int32(i) + 1)
            } else {
                statement.bind(o.values[i], at: base + Int32(i) + 1)
            }
        }
        statement.bind(.integer(1), at: base + Int32(width) + 1)
        o.row = nil  // its row is about to move on; values not loaded are re-read from the old table if needed
        objects.append(o)
        oldRowids.append(oldRowid)
    }

    var isFull: Bool { objects.count == capacity }

    /// Runs the INSERT for the objects bound so far; returns them with a flag telling whether each was
    /// written (a false means it failed a constraint and was logged).
    func flush(_ executor: StepExecutor) throws -> [(MigrationObject, Bool)] {
        guard !objects.isEmpty else { return [] }
        for k in objects.count..<capacity { statement.bind(.integer(0), at: Int32(k * (width + 1) + width + 1)) }
        let batch = objects
        let rowids = oldRowids
        objects.removeAll(keepingCapacity: true)
        oldRowids.removeAll(keepingCapacity: true)
        do {
            try statement.run()
            return batch.map { ($0, true) }
        } catch let e as SQLiteError where e.isConstraint {
            // The statement was rolled back as a whole: write the objects one by one to find the culprits.
            var out: [(MigrationObject, Bool)] = []
            for (o, rowid) in zip(batch, rowids) {
                try executor.reloadCarried(o, oldRowid: rowid)
                out.append((o, try executor.insertOne(o)))
            }
            return out
        }
    }
}
