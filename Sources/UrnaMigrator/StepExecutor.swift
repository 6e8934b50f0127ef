import Foundation
import UrnaStore

/// The secondary indexes a run has left for its last step, by name (their CREATE INDEX statements).
final class DeferredIndexes {
    var pending: [String: String] = [:]
}

/// Runs one step inside the runner's transaction: staging tables, the closure, the automatic copies,
/// key rewrites, table swaps, indexes, the schema record and the step's checks.
///
/// Old tables are never written while the closure runs: new objects go to staging tables
/// (`_urna_new_<Type>`) that replace the old tables at the end (the SQLite way: new table, copy,
/// drop, rename), so the closure always reads the file as it was.
final class StepExecutor {
    let connection: Connection
    let step: ResolvedStep
    var analysis: StepAnalysis
    let log: FailureLog
    let recorder = SQLRecorder()
    let reporter: MigrationReporter?
    let sampleSize: Int
    let family: String

    /// The first error a subscript hit since the closure's last object (subscripts can't throw).
    let pendingErrorBox: UnsafeMutablePointer<Error?> = {
        let p = UnsafeMutablePointer<Error?>.allocate(capacity: 1)
        p.initialize(to: nil)
        return p
    }()
    var closureRenames: [PropertyRename] = []
    /// Lists with values set by the closure (staged in temp tables until the lists are rebuilt).
    var stagedLists = Set<String>()
    var rebuiltLists = Set<String>()
    var oldLookups: [String: Statement] = [:]
    /// The virtual tables enumerations insert from, by type.
    var sources: [String: ObjectSource] = [:]
    var statements: [String: Statement] = [:]
    /// Views, triggers and user indexes set aside while tables are rebuilt.
    var userObjects: [(type: String, name: String, table: String, sql: String)] = []

    var countsBefore: [String: Int] = [:]
    /// The step's report so far (complete once `run` returns; partial when it throws).
    var report: StepReport
    var samplesBefore: [String: [(key: SQLValue, sample: ObjectSample)]] = [:]

    /// Whether enumerations may read old rows through a second connection on another thread
    /// (`OldRowPrefetcher`): only when the old tables still hold exactly their committed rows (the first
    /// step of a run, when it has no `sqlBefore`; later steps read tables the run itself wrote) and the file is
    /// in WAL mode (a reader there never blocks the writer).
    let readsAhead: Bool
    /// Whether this step runs `PRAGMA foreign_key_check` over the whole file: only the run's last step does (the
    /// run is one transaction, so a dangling reference any step left is still there at the end and fails the run
    /// there; checking after every step read every link table once per step).
    let foreignKeyCheck: ForeignKeyCheck

    /// Secondary indexes of tables a step rebuilt, left for the run's last step to create (a later step that
    /// rebuilds the table again would throw them away); one object for the whole run.
    let deferredIndexes: DeferredIndexes

    /// An earlier step of the run skipped its link check (`ForeignKeyCheck.later`).
    let inheritsUncheckedLinks: Bool

    /// The run's fused steps: types earlier steps carried forward, and what this step carries on.
    let fusion: RunFusion?

    enum ForeignKeyCheck {
        /// Not after this step: a later step of the same run checks.
        case later
        /// After this step, the last of the run's `steps` (one or more), for all of them.
        case forRun(steps: Int, firstVersion: Int)
    }

    /// This step is the run's last (it checks the links and builds the indexes earlier steps left).
    var isLastStep: Bool { if case .later = foreignKeyCheck { false } else { true } }

    init(
        connection: Connection, step: ResolvedStep, family: String, log: FailureLog, reporter: MigrationReporter?,
        sampleSize: Int, readsAhead: Bool, foreignKeyCheck: ForeignKeyCheck, inheritsUncheckedLinks: Bool,
        deferredIndexes: DeferredIndexes, fusion: RunFusion? = nil
    ) {
        self.fusion = fusion
        self.deferredIndexes = deferredIndexes
        self.inheritsUncheckedLinks = inheritsUncheckedLinks
        self.readsAhead = readsAhead
        self.foreignKeyCheck = foreignKeyCheck
        self.connection = connection
        self.step = step
        self.family = family
        self.analysis = StepAnalysis(step: step)
        self.log = log
        self.reporter = reporter
        self.sampleSize = sampleSize
        for t in analysis.transfers { t.prepare(oldSchema: step.from, newSchema: step.to) }
        self.report = StepReport(
            fromVersion: step.from.version, toVersion: step.to.version, summary: step.summary,
            descriptorChecksum: SchemaDescriptor.checksum(step.to),
            diff: SchemaDiff(from: step.from, to: step.to, renames: step.renames))
    }

    var transfers: [TypeTransfer] { analysis.transfers }
    func transfer(_ name: String) -> TypeTransfer? { analysis.byName[name] }

    // MARK: - Running

    /// Runs the step (its report is in `report` afterwards); on a failure that stops it, logs the
    /// failure and throws `StepAborted`, leaving a partial report.
    func run() throws {
        let started = Date()
        reporter?.stepStarted(from: step.from.version, to: step.to.version)
        let failuresAtStart = log.failures.count
        let totalAtStart = log.total
        defer {
            report.failures = Array(log.failures.dropFirst(failuresAtStart))
            report.sql = recorder.statements
            report.durationSeconds = Date().timeIntervalSince(started)
        }
        var clock = PhaseClock(reporter: reporter)
        countsBefore = try counts(step.from)
        report.countsBefore = countsBefore
        try collectSamplesBefore()
        try createTempTables()
        try runStepSQL(step.sqlBefore, "sqlBefore")
        try setAsideUserObjects()
        try createStagingTables()
        clock.mark("setup")

        if let closure = step.closure {
            let migration = Migration(executor: self)
            do {
                try closure(migration)
                if let e = takePendingError() { throw e }
            } catch let e as StepAborted {
                throw e
            } catch let e as SQLiteError where !e.isConstraint {
                throw e
            } catch {
                log.record(ValidationFailure(check: "closure", message: "the closure threw: \(describe(error))"))
                throw StepAborted()
            }
        }
        clock.mark("closures")
        report.diff = SchemaDiff(from: step.from, to: step.to, renames: analysis.renames)
        try checkClosureCoverage()
        try copyRemainingObjects()
        clock.mark("copy")
        report.droppedData = try droppedData()
        try checkClosureLosses()
        try checkInheritedLinks()
        try rewriteChangedKeys()
        try rebuildLists()
        try removeDanglingReferences()
        try swapTables()
        try ensureIndexes()
        try restoreUserObjects()
        try runStepSQL(step.sqlAfter, "sqlAfter")
        try Store.recordSchema(step.to, in: connection)
        recorder.note("-- record version \(step.to.version) in \(StorageLayout.schemaTable)")
        clock.mark("rebuild")
        try checkShape()
        if isLastStep { try checkForeignKeys() }
        clock.mark("checks")

        report.countsAfter = try counts(step.to)
        report.completed = true
        report.samples = try collectSamples()
        report.activity = activity()
        report.objectsTouched = transfers.reduce(0) { $0 + $1.rowsWritten + $1.carriedRows + $1.created + $1.deleted }
        report.copiedThroughSwift = transfers.filter { $0.filledBySwift }.map(\.name)
        try dropTempTables()
        connection.clearStatementCache()
        report.durationSeconds = Date().timeIntervalSince(started)
        try writeHistory(report)
        clock.mark("finish")
        if log.total > totalAtStart { throw StepAborted() }
        report.sql = recorder.statements
        reporter?.stepFinished(report)
    }

    func dropSources() {
        sources.removeAll()
    }

    /// Drops the step's work tables after a failure (the transaction is rolled back anyway).
    func abandon() {
        dropSources()
        statements.removeAll()
        oldLookups.removeAll()
        for t in transfers {
            t.insertStatement = nil
            t.keyMapInsert = nil
            t.currentPending = nil
        }
    }

    deinit {
        pendingErrorBox.deinitialize(count: 1)
        pendingErrorBox.deallocate()
    }

    func record(_ error: Error) {
        if pendingErrorBox.pointee == nil { pendingErrorBox.pointee = error }
    }

    @inline(__always) func takePendingError() -> Error? {
        guard let e = pendingErrorBox.pointee else { return nil }
        pendingErrorBox.pointee = nil
        return e
    }

    func describe(_ error: Error) -> String {
        "\(error)" + (typoHint(error).map { "; did you mean '\($0)'?" } ?? "")
    }

    /// The name a closure most likely meant when it named a type or property neither version has
    /// (`enumerateObjects(ofType: "sample")` for Sample, `old["hbitat"]`): the same but for case, or near.
    func typoHint(_ error: Error) -> String? {
        let (name, candidates): (String, [String])
        switch error as? MigrationObjectError {
        case .unknownType(let t, _):
            (name, candidates) = (t, Array(Set(step.from.types.map(\.name) + step.to.types.map(\.name))).sorted())
        case .unknownProperty(let t, let p, let v):
            let schema = v == step.from.version ? step.from : step.to
            (name, candidates) = (p, schema[type: t]?.properties.map(\.name) ?? [])
        default:
            return nil
        }
        let folded = name.lowercased()
        return candidates.first { $0.lowercased() == folded }
            ?? candidates.first { Migrator.editDistance($0.lowercased(), folded) <= 2 }
    }

    // MARK: - SQL helpers

    /// Runs a schema or data statement of the step and notes it for the report.
    func exec(_ sql: String) throws {
        recorder.note(sql)
        try connection.execute(sql)
    }

    /// Runs bookkeeping SQL (temp tables) that reports leave out.
    func quiet(_ sql: String) throws { try connection.execute(sql) }

    func statement(_ sql: String) throws -> Statement {
        if let s = statements[sql] {
            s.reset()
            return s
        }
        let s = try connection.prepare(sql)
        statements[sql] = s
        return s
    }

    func count(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int {
        let s = try statement(sql)
        try s.bind(bindings)
        defer { s.reset() }
        guard try s.step() else { return 0 }
        return Int(s.int(at: 0))
    }

    func counts(_ schema: Schema) throws -> [String: Int] {
        var out: [String: Int] = [:]
        for t in schema.tableTypes { out[t.name] = try count("SELECT count(*) FROM \(Identifier.quoted(t.name))") }
        return out
    }

    // MARK: - Closure coverage

    /// Changes that need a closure must have been handled by one: the closure has to enumerate the
    /// type (or delete its data) unless an allowance covers the property.
    func checkClosureCoverage() throws {
        let before = log.total
        for t in transfers where t.old != nil && t.new != nil && t.enumerations == 0 && !t.cleared {
            for (i, conversion) in t.conversions.enumerated() {
                guard let conversion, conversion.kind == .needsClosure else { continue }
                if let a = conversion.allowance, step.allows(a) { continue }
                if (countsBefore[t.name] ?? 0) == 0 { continue }
                let name = t.newColumns[i].name
                // Every refusal names the allowance that permits it.
                let allow = conversion.allowance.map { "; enumerate it, or allow it: \($0.spelledOut)" } ?? ""
                log.record(
                    ValidationFailure(
                        check: "closure", type: t.name, property: name,
                        message:
                            "\(conversion.reason), so the step's closure must set it, but the closure never enumerated \(t.name)"
                            + allow))
            }
        }
        if log.total > before { throw StepAborted() }
    }
}

extension StepExecutor {
    /// A step with a closure is trusted with the losses of the types its closure read (enumerated, looked up or
    /// cleared); data the step drops from a type the closure never touched needs the same allowance as in a step
    /// without a closure (a misspelt property beside a closure for another type lost every value, exit 0).
    func checkClosureLosses() throws {
        guard step.closure != nil else { return }
        let before = log.total
        for d in report.droppedData where d.values > 0 {
            guard let t = transfer(d.type), !t.cleared else { continue }
            // A removed type the closure only looked up by key was read on the objects it looked up, not on the
            // others (an orphan Profile no Customer pointed at went unseen): those need the type's allowance.
            let unseen = try unseenObjects(of: t, property: d.property)
            let typeRead = try closureReadType(t, property: d.property)
            // A type the closure read is trusted with what it dropped of it, but for a removed property the closure
            // never read on any object: that one it dropped without looking (a misspelt rename beside a closure
            // that only bumps ages lost every value).
            if d.readByClosure { continue }
            // The properties of a removed type go with its objects: `.discardType` permits both.
            if d.property != nil, t.new == nil, step.allows(.discardType(type: d.type)) { continue }
            let allowance: MigrationAllowance
            let what: String
            let never: String
            if let p = d.property {
                allowance = .discard(type: d.type, property: p)
                if unseen > 0 && t.oldRead {
                    // Read through lookups (`linked`, `oldObject`) on some objects only: the others' values unseen.
                    what =
                        "\(d.type).\(p) is removed and \(unseen) of its \(d.values) non-nil value(s) would be dropped "
                        + "unseen (the closure looked up \(t.rowsLookedUp.count) \(d.type) object(s) by key or link and "
                        + "never enumerated the type)"
                    never = "\(d.type).\(p) on those objects"
                } else {
                    what = "\(d.type).\(p) is removed and its \(d.values) non-nil value(s) would be dropped"
                    never = typeRead ? "\(d.type).\(p) on any object" : d.type
                }
            } else {
                allowance = .discardType(type: d.type)
                what =
                    unseen > 0 && t.oldRead
                    ? "\(d.type) is removed and \(unseen) of its \(d.values) object(s) would be dropped unseen (the "
                        + "closure looked up \(t.rowsLookedUp.count) by key and never enumerated the type)"
                    : "\(d.type) is removed and its \(d.values) object(s) would be dropped"
                never = unseen > 0 && t.oldRead ? "those objects" : d.type
            }
            if step.allows(allowance) { continue }
            var swift = allowance.swiftSpelling
            var flag = allowance.commandLineSpelling
            if d.property != nil, t.new == nil {
                // A removed type's objects go as a whole: name the type's allowance too.
                let whole = MigrationAllowance.discardType(type: d.type)
                swift += " or \(whole.swiftSpelling)"
                flag += " or --allow-loss \(whole.commandLineSpelling)"
            }
            var rename = "declare the rename if it is one"
            if let p = d.property, let old = step.from[type: d.type], let new = step.to[type: d.type] {
                // The same hint a step without a closure gives: a property spelt the same but for case, or nearly.
                let added = new.properties.filter { old[property: $0.name] == nil }.map(\.name)
                let same = added.first { $0.lowercased() == p.lowercased() }
                if let near = same
                    ?? added.first(where: { Migrator.editDistance($0.lowercased(), p.lowercased()) <= 2 })
                {
                    rename =
                        "\(d.type).\(near) is added\(same != nil ? " and differs from it only in case" : ""): if it is "
                        + "the same property, declare the rename (MigrationStep(renames: [PropertyRename(type: "
                        + "\"\(d.type)\", from: \"\(p)\", to: \"\(near)\")])) or copy it in the closure"
                }
            }
            log.record(
                ValidationFailure(
                    check: "loss", type: d.type, property: d.property,
                    message:
                        "\(what), but the step's closure never reads \(never): \(rename); "
                        + "or read it in the closure, or allow the loss: \(swift) (command line: --allow-loss \(flag))")
            )
        }
        if log.total > before { throw StepAborted() }
    }
}
