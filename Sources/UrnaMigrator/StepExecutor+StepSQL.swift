import Foundation
import UrnaStore

/// A step's own SQL (`MigrationStep.sqlBefore`/`sqlAfter`), run inside the run's transaction.
extension StepExecutor {
    /// Runs the statements in order. One that the file's data refuses (a constraint: a unique index created over
    /// values held twice) fails the run as a check, recorded in the ledger and shown by the dry run, naming the
    /// statement and, for a unique index, the values held more than once; other errors stop the run as before.
    func runStepSQL(_ statements: [String], _ phase: String) throws {
        for (i, sql) in statements.enumerated() {
            do {
                try exec(sql)
            } catch let e as SQLiteError where e.isConstraint {
                var message = "the step's \(phase)[\(i)] failed: \(e.message) (\(sql))"
                if let held = try valuesHeldTwice(e.message) {
                    message += "; \(held): make them unique first (a closure, or an UPDATE in sqlBefore)"
                }
                log.record(ValidationFailure(check: "sql", message: message))
                throw StepAborted()
            }
        }
    }

    /// For "UNIQUE constraint failed: Sample.kind, Sample.visit": the first values held more than once
    /// ("Sample.kind holds 'soil' 8 times, 'water' 8 times"); nil for other messages.
    private func valuesHeldTwice(_ message: String) throws -> String? {
        let prefix = "UNIQUE constraint failed: "
        guard message.hasPrefix(prefix) else { return nil }
        let columns = message.dropFirst(prefix.count).split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).split(separator: ".", maxSplits: 1).map(String.init)
        }
        guard let table = columns.first?.first, columns.allSatisfy({ $0.count == 2 && $0[0] == table }) else {
            return nil
        }
        let names = columns.map { Identifier.quoted($0[1]) }.joined(separator: ", ")
        let rows = try connection.rows(
            "SELECT \(names), count(*) FROM \(Identifier.quoted(table)) GROUP BY \(names) HAVING count(*) > 1 "
                + "ORDER BY count(*) DESC LIMIT 3")
        guard !rows.isEmpty else { return nil }
        let held = rows.map { r in
            let value = r.dropLast().map { v -> String in
                switch v {
                case .null: "nil"
                case .integer(let i): "\(i)"
                case .real(let d): "\(d)"
                case .text(let t): "'\(t)'"
                case .blob(let b): "\(b.count) bytes"
                }
            }.joined(separator: ", ")
            let times: Int64 = if case .integer(let n) = r.last { n } else { 0 }
            return "\(columns.count > 1 ? "(\(value))" : value) \(times) times"
        }
        let what = columns.map { "\(table).\($0[1])" }.joined(separator: ", ")
        return "\(what) holds " + held.joined(separator: ", ")
    }
}
