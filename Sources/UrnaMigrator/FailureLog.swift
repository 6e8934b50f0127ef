import UrnaStore

/// Collects validation failures: keeps the first `limit`, counts them all.
final class FailureLog {
    let limit: Int
    private(set) var failures: [ValidationFailure] = []
    private(set) var total = 0
    /// The last failure recorded, also past `limit` (what a refused `create` throws with).
    private(set) var last: ValidationFailure?

    init(limit: Int) { self.limit = limit }

    func record(_ f: ValidationFailure) {
        total += 1
        last = f
        if failures.count < limit { failures.append(f) }
    }

    var isEmpty: Bool { total == 0 }
}

/// The statements a step ran, in order, for reports (per-object statements appear once).
final class SQLRecorder {
    private(set) var statements: [String] = []
    private var seen = Set<String>()

    func note(_ sql: String) { statements.append(sql) }

    /// Takes back the last note of `sql`: a statement noted before the run chose another way (a staging table the
    /// run leaves empty when it keeps a table in place), which the report must not show as run.
    func forget(_ sql: String) {
        if let i = statements.lastIndex(of: sql) { statements.remove(at: i) }
    }

    func noteOnce(_ sql: String) {
        if seen.insert(sql).inserted { statements.append(sql) }
    }
}

/// Thrown to stop a step after its failure was logged.
struct StepAborted: Error {}
