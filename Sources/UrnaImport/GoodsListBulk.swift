import UrnaStore

/// The `Candidate.goods` list of a run into a file that holds no goods yet, written once at the end instead
/// of one row per good as the goods arrive.
///
/// Every good such a run stores is in its candidacy's list, in asset order (NR_ORDEM_CANDIDATO, then key:
/// the order `ElectionStoreWriter.sortGoodsLists` gives any list that got a good out of order). A good's key
/// is `<candidacy>/<order>` and `Good.candidacy` is its list's owner, so the whole list table follows from
/// the `Good` table: one sorted `INSERT ... SELECT` in key order, where appending each good as it came and
/// then rewriting the lists that came out of order cost a B-tree insert per good and, on TSE's unsorted asset
/// files, a delete and an insert per good again (the 500k + 1M benchmark rewrote 17,085 of 26,962 lists).
///
/// Only when both `Good` and the list table were empty at the start of the run, and no trigger runs in it:
/// then no good of the file can be missing from a list nor listed under another owner.
struct GoodsListBulk {
    /// Whether this run's goods lists are written at the end (`write`), not appended good by good.
    let isActive: Bool

    /// Decides for a run about to start inside its write transaction: active when `allowed` and both the
    /// `Good` table and the goods list table hold no row.
    init(connection: Connection, allowed: Bool) throws {
        guard allowed else {
            isActive = false
            return
        }
        let list = Identifier.quoted(Self.listTable)
        isActive =
            try connection.rows("SELECT 1 FROM \"Good\" LIMIT 1").isEmpty
            && connection.rows("SELECT 1 FROM \(list) LIMIT 1").isEmpty
    }

    static let listTable = StorageLayout.listTable(type: "Candidate", property: "goods")

    /// Lists every stored good under its candidacy, positions 0, 1, 2... in asset order; returns the rows
    /// written (none when not active).
    ///
    /// One sort of the goods by (candidacy, order, key) yields them in the list's key order, so the inserts need no
    /// second sort, and numbering them is counting: a good's position is the count of its candidacy's goods
    /// before it in that order. It runs with the index builds' small page cache
    /// (`BulkLoad.withSortSettings`), since the sorter keeps runs of the cache's size in memory. Measured with
    /// sqlite3 on the benchmark's 994,409 goods: with an outer `ORDER BY` and the import's 32 MiB cache, 103 MB
    /// peak and 3.3 s of processor time; without the second sort, 70 MB and 2.2 s; with the 4 MiB cache as well,
    /// 14 MB and 2.1 s. The positions were numbered by `row_number() OVER (PARTITION BY candidacy ...)` before:
    /// SQLite's window passes every row through a table of its own, about 45% of the statement's time
    /// (1.3 s of 2.3 s without it, same sort and inserts); counted here as the sorted rows go by, the rows are
    /// the same (`GoodsListBulkTests`). The importer calls it once `Good`'s indexes are built again
    /// (`BulkLoad.restore(_:except:)`): SQLite then reads the goods in `Good_candidacy_idx` order and sorts only each
    /// candidacy's goods by order and key (measured with sqlite3 on the benchmark's goods: 0.54 s of processor
    /// time instead of 0.80 s for this SELECT, the same rows in the same order).
    func write(_ connection: Connection) throws -> Int {
        guard isActive else { return 0 }
        let list = Identifier.quoted(Self.listTable)
        let sorted = try connection.prepare(
            "SELECT \"candidacy\", \"id\" FROM \"Good\" WHERE \"candidacy\" IS NOT NULL "
                + "ORDER BY \"candidacy\", \"order\", \"id\"")
        let insert = try connection.prepare("INSERT INTO \(list)(owner, position, target) VALUES (?1, ?2, ?3)")
        return try BulkLoad.withSortSettings(connection) {
            defer { sorted.reset() }
            var owner: [UInt8] = []
            var position: Int64 = 0
            var written = 0
            while try sorted.step() {
                try sorted.withText(at: 0) { candidacy in
                    if candidacy.elementsEqual(owner) {
                        position += 1
                    } else {
                        owner = Array(candidacy)
                        position = 0
                    }
                    try insert.bindText(bytes: candidacy, at: 1)
                }
                insert.bindInt(position, at: 2)
                try sorted.withText(at: 1) { try insert.bindText(bytes: $0, at: 3) }
                try insert.runToCompletion()
                written += 1
            }
            return written
        }
    }
}
