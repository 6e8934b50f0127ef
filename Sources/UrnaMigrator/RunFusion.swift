import Foundation
import UrnaStore

/// Consecutive steps of one run, fused: a type that a step would copy with one `INSERT ... SELECT` (carried
/// columns, SQL conversions, links to re-keyed objects translated) and that the next step rebuilds again is not
/// written by the first step. The next step reads its old rows through that step's SELECT instead, so the rows
/// are read once, converted on the way, and written once, into the table of the later version.
///
/// One object for the run (like `DeferredIndexes`); everything it creates is temporary and inside the run's
/// transaction, so a failed or cancelled run leaves nothing behind.
final class RunFusion {
    /// The run's steps, in order.
    let steps: [ResolvedStep]
    /// Rows of types an earlier step carried forward, by type: the SELECT presenting them in the form of the
    /// current step's old version (its columns by name, then `rowid` in the old table's order).
    var incoming: [String: String] = [:]
    /// What the current step carries to the next one (becomes `incoming` when the step ends).
    var outgoing: [String: String] = [:]
    /// Types whose incoming rows were written to a temporary table (a lookup by a column the SELECT computes),
    /// with the table's name.
    var materialized: [String: String] = [:]
    /// Temporary tables the SELECTs read (key maps of earlier steps, materialized rows): dropped after the run.
    var temporaryTables: [String] = []
    private var serial = 0

    init(steps: [ResolvedStep]) {
        self.steps = steps
    }

    /// A fresh name for a temporary table of the run.
    func temporaryName(_ base: String) -> String {
        serial += 1
        return "_urna_f\(serial)_\(base)"
    }

    /// The step after the one at `index` ends: what it carried becomes the next step's input.
    func advance() {
        incoming = outgoing
        outgoing = [:]
        materialized = [:]
    }

    /// Drops the run's temporary tables (after the steps; a rolled-back run never created them).
    func dropTemporaryTables(_ c: Connection) {
        for name in temporaryTables { try? c.execute("DROP TABLE IF EXISTS temp.\(Identifier.quoted(name))") }
        temporaryTables = []
        incoming = [:]
        outgoing = [:]
    }

    /// Why `t`, as step `step` would copy it, can't be carried into `next`'s rebuild (nil: it can, when the
    /// closure leaves it alone). Only what the two descriptors decide; the executor checks what the closure did.
    /// `following` is `next`'s analysis, when the caller has it.
    static func reasonNotCarried(
        _ t: TypeTransfer, step: ResolvedStep, next: ResolvedStep?, following: StepAnalysis? = nil
    ) -> String? {
        guard let next else { return "the run's last step" }
        guard let new = t.new, t.old != nil, t.tableChanges, !t.needsSwift else { return "not copied by SQL here" }
        if !step.sqlAfter.isEmpty || !next.sqlBefore.isEmpty { return "SQL runs between the two steps" }
        if !step.to.views.isEmpty { return "v\(step.to.version) defines views" }
        let following = following ?? StepAnalysis(step: next)
        guard let nt = following.byName[t.name], nt.old != nil, nt.new != nil, nt.tableChanges else {
            return "v\(next.from.version) → v\(next.to.version) keeps its table"
        }
        for s in nt.sources {
            if case .rowid = s { return "v\(next.from.version) → v\(next.to.version) keeps its row ids as _id" }
        }
        // Renamed columns only: the next step renames them in place (no copy), so carrying gains nothing and would
        // make that step write every row (its ledger would count them, the stepwise run's none).
        if following.columnRenamesOnly(nt) != nil {
            return "v\(next.from.version) → v\(next.to.version) only renames its columns (in place)"
        }
        // The same when its closure may rename them (`Migration.renameProperty`): columns that differ only by name.
        if next.closure != nil, nt.oldColumns.count == nt.newColumns.count,
            zip(nt.oldColumns, nt.newColumns).allSatisfy({ $0.sqlType == $1.sqlType }),
            zip(nt.oldColumns, nt.newColumns).contains(where: { $0.name != $1.name })
        {
            return "v\(next.from.version) → v\(next.to.version) may only rename its columns (its closure can)"
        }
        // A nil that a NOT NULL column would refuse must fail in this step, naming it: only columns that can't
        // receive one are carried.
        for (i, c) in t.newColumns.enumerated() where !c.isOptional && c.property != nil {
            switch t.sources[i] {
            case .copy(let oi):
                if t.oldColumns[oi].isOptional { return "\(new.name).\(c.name) may receive a nil" }
            case .convert(let oi, _, _, _, let nullDefault):
                if nullDefault == nil && t.oldColumns[oi].isOptional {
                    return "\(new.name).\(c.name) may receive a nil"
                }
            case .constant(let v):
                if v.isNull { return "\(new.name).\(c.name) may receive a nil" }
            case .rowid: break
            }
        }
        return nil
    }

    /// Plan lines: which copies of `step` are carried into the next step's rebuild, and why others are not.
    static func previewLines(_ analysis: StepAnalysis, next: ResolvedStep?) -> [String] {
        guard let next else { return [] }
        var out: [String] = []
        let nextAnalysis = StepAnalysis(step: next)
        for t in analysis.transfers where t.old != nil && t.new != nil && t.tableChanges && !t.needsSwift {
            if analysis.columnRenamesOnly(t) != nil { continue }
            guard let nt = nextAnalysis.byName[t.name], nt.tableChanges else { continue }
            if let reason = reasonNotCarried(t, step: analysis.step, next: next, following: nextAnalysis) {
                out.append(
                    "-- \(t.name): rebuilt here and again in v\(next.from.version) → v\(next.to.version), not fused: \(reason)"
                )
            } else {
                out.append(
                    "-- \(t.name): fused with v\(next.from.version) → v\(next.to.version): not written here, its rows are read through this SELECT there (one rebuild), unless the closure writes or deletes \(t.name) objects or deletes objects it links to"
                )
            }
        }
        return out
    }
}
