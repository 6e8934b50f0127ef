/// Inserted / updated / unchanged counts of one object type in one run.
struct ObjectCounts: Equatable {
    var inserted = 0
    var updated = 0
    var unchanged = 0
}

/// Classifies the rows of a table with many objects (Candidate, Good) once per run, without a set of
/// keys: rows inserted by this run have a rowid above the largest one the table had when the run
/// began, and for the older rows one byte per rowid remembers what was already counted.
///
/// So a candidacy read twice (state file + _BRASIL file) counts once, and one first found unchanged
/// but then given a vice or a new good moves from unchanged to updated.
struct RunRowTracker {
    private(set) var counts = ObjectCounts()
    /// The largest rowid before the run: rows above it were inserted by the run.
    let startMaxRowid: Int64
    private var dense: [UInt8]
    private var sparse: [Int64: UInt8] = [:]

    private static let untouched: UInt8 = 0
    private static let unchanged: UInt8 = 1
    private static let updated: UInt8 = 2
    /// Above this many rows a dictionary replaces the byte-per-rowid array.
    private static let denseLimit: Int64 = 1 << 27

    init(startMaxRowid: Int64) {
        self.startMaxRowid = startMaxRowid
        dense =
            startMaxRowid > 0 && startMaxRowid < Self.denseLimit
            ? [UInt8](repeating: 0, count: Int(startMaxRowid) + 1) : []
    }

    mutating func record(_ outcome: UpsertStatements.Outcome) {
        switch outcome {
        case .inserted: counts.inserted += 1
        case .updated(let rowid): markChanged(rowid)
        case .conflict: return
        case .unchanged(let rowid), .superseded(let rowid):
            guard rowid <= startMaxRowid, status(rowid) == Self.untouched else { return }
            setStatus(rowid, Self.unchanged)
            counts.unchanged += 1
        }
    }

    /// The object with this rowid changed (its row, a list, or a link).
    mutating func markChanged(_ rowid: Int64) {
        guard rowid <= startMaxRowid else { return }  // inserted by this run: already counted as inserted
        switch status(rowid) {
        case Self.untouched: counts.updated += 1
        case Self.unchanged:
            counts.unchanged -= 1
            counts.updated += 1
        default: return
        }
        setStatus(rowid, Self.updated)
    }

    private func status(_ rowid: Int64) -> UInt8 {
        if !dense.isEmpty { return rowid >= 0 && rowid < Int64(dense.count) ? dense[Int(rowid)] : Self.untouched }
        return sparse[rowid] ?? Self.untouched
    }

    private mutating func setStatus(_ rowid: Int64, _ s: UInt8) {
        if !dense.isEmpty, rowid >= 0, rowid < Int64(dense.count) {
            dense[Int(rowid)] = s
        } else {
            sparse[rowid] = s
        }
    }
}
