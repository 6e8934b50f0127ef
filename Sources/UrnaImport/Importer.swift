import Foundation
import UrnaRecords
import UrnaSchemas
import UrnaStore

/// Imports TSE files (consulta_cand, bem_candidato, consulta_legendas; CSV, TXT, zip or XML) into an
/// elections database: reader -> `ElectionMapper` -> prepared upserts, all in one transaction.
///
/// - Atomic: one `BEGIN IMMEDIATE ... COMMIT`; an error, a crash or too many rejects leave the file
///   as it was (a database this run created is removed again).
/// - Idempotent: every object is compared before it is written, so importing the same files again
///   changes nothing, and a state file plus the _BRASIL file counts each candidacy once.
/// - Bad rows never stop good rows: each goes to the rejects file with file:line:column, a reason
///   saying what would fix it, and its original bytes.
/// - Assets whose candidacy has not been read yet are held until it arrives; vices are linked once
///   every candidacy of the run (and of the database) is in.
///
/// ```swift
/// let importer = Importer(options: ImportOptions(dbPath: "urna.sqlite"), progress: nil)
/// let summary = try importer.run(files: ["consulta_cand_2018_MG.csv", "bem_candidato_2018_MG.csv"])
/// print(summary.renderText())
/// ```
public final class Importer {
    /// The options in force.
    public let options: ImportOptions
    private let progress: ImportProgress?

    /// An importer; `progress` (optional) receives snapshots while `run` works.
    public init(options: ImportOptions, progress: ImportProgress? = nil) {
        self.options = options
        self.progress = progress
    }

    /// Imports `files` into `options.dbPath` (created with the elections schema if missing).
    ///
    /// Throws `ImportError` (see its `exitCode`) and then nothing was imported.
    public func run(files: [String]) throws -> ImportSummary {
        try run(files: files, mayRetry: true)
    }

    private func run(files: [String], mayRetry: Bool) throws -> ImportSummary {
        let clock = ContinuousClock()
        let started = clock.now
        let inputs = try open(files)
        let dbPath = options.dbPath
        let existed = FileManager.default.fileExists(atPath: dbPath)
        // A new database is filled under a private name beside the final one and linked into place only once
        // complete: another import creating the same file at the same moment can never have its commit removed
        // by this one's failure (it used to be, with "the database is as it was"), and nobody sees half a file.
        let target = existed ? dbPath : "\(dbPath).tmp-import-\(getpid())"
        var st = stat()
        if !existed, lstat(dbPath, &st) == 0 {
            // Something is at the name that is no file (a dangling symlink): refused as creating it would be.
            try ImportIntegrity.createDatabaseFile(dbPath, private: options.keepPersonalData)
        }
        if !existed {
            ImportIntegrity.removeStaleImportTemporaries(near: dbPath)
            try ImportIntegrity.createDatabaseFile(target, private: options.keepPersonalData)
        }
        let rejects = RejectsFile(
            path: options.effectiveRejectsPath, rowLimit: options.rejectsRowLimit, byteLimit: options.rejectsByteLimit,
            streamsAllowed: options.rejectsPath != nil)
        do {
            var summary = try withStore(path: target) { store in
                try tuneForBulkWrite(store.connection, newFile: !existed)
                defer { try? restoreJournal(store.connection, newFile: !existed) }
                return try importAll(inputs, into: store, rejects: rejects, clock: clock, started: started)
            }
            if !existed { try ImportIntegrity.publish(target, as: dbPath) }
            try Self.finish(rejects, into: &summary)
            summary.elapsedSeconds = seconds(since: started, clock: clock)
            return summary
        } catch is ImportIntegrity.DatabaseAppeared where mayRetry {
            // Another import created the file meanwhile: this one runs again, into that file (its own new file is
            // dropped, and so are the rows it rejected, which the new attempt rejects again).
            rejects.discard()
            removeDatabase(at: target)
            return try run(files: files, mayRetry: false)
        } catch {
            try? rejects.close()
            if !existed { removeDatabase(at: target) }
            throw ImportError.from(error, dbPath: dbPath)
        }
    }

    /// Imports `files` into an open store (in one write transaction of its own).
    public func run(files: [String], into store: Store) throws -> ImportSummary {
        let clock = ContinuousClock()
        let started = clock.now
        let inputs = try open(files)
        let rejects = RejectsFile(
            path: options.effectiveRejectsPath, rowLimit: options.rejectsRowLimit, byteLimit: options.rejectsByteLimit,
            streamsAllowed: options.rejectsPath != nil)
        do {
            var summary = try importAll(inputs, into: store, rejects: rejects, clock: clock, started: started)
            try Self.finish(rejects, into: &summary)
            summary.elapsedSeconds = seconds(since: started, clock: clock)
            return summary
        } catch {
            try? rejects.close()
            throw ImportError.from(error, dbPath: store.connection.path)
        }
    }

    /// Closes the rejects file and names it in the summary. Rejected rows are kept byte for byte, so a row
    /// planted as `=HYPERLINK(...)` is a formula cell of the rejects file: said in the summary, as exports say it.
    static func finish(_ rejects: RejectsFile, into summary: inout ImportSummary) throws {
        try rejects.close()
        summary.rejectsFile = rejects.wasCreated ? rejects.path : nil
        guard rejects.wasCreated, let first = rejects.formulas.first else { return }
        let n = rejects.formulas.count
        summary.warnings.append(
            "\(rejects.path): \(n) cell\(n == 1 ? " begins" : "s begin") like a spreadsheet formula (first: \(first)): "
                + "a spreadsheet opening the rejects file may run \(n == 1 ? "it" : "them"); read it as text")
    }

    // MARK: - Steps

    /// Opens and recognises every file before the database is touched, candidacies first.
    private func open(_ files: [String]) throws -> [ImportInput] {
        guard !files.isEmpty else { throw ImportError.noFiles }
        var inputs: [ImportInput] = []
        for path in files {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ImportError.missingFile(path: path, reason: "no such file")
            }
            inputs.append(try ImportInput(path: path, encoding: options.encoding))
        }
        return inputs.enumerated().sorted { ($0.element.orderRank, $0.offset) < ($1.element.orderRank, $1.offset) }
            .map(\.element)
    }

    /// Page size of the files the importer creates: 16 KiB pages cut the writing thread's time by about a
    /// tenth against SQLite's default 4 KiB (fewer B-tree splits on the random-order key inserts, faster
    /// index builds); the benchmark gives sqlite3's `.import` the same page size.
    public static let pageSize = 16384

    /// Opens the store, runs `body`, and closes the store before returning or throwing.
    private func withStore<T>(path: String, _ body: (Store) throws -> T) throws -> T {
        let schema = ElectionsV6.schema
        let store: Store
        do {
            store = try Store(path: path, schema: schema, pageSize: Importer.pageSize)
        } catch let error as StoreError {
            throw Self.olderVersion(path: path, schema: schema) ?? error
        }
        return try body(store)
    }

    /// The refusal of a file made by an older urna (an earlier elections version), naming the command that
    /// upgrades it: the store's own message speaks to library users ("UrnaMigrator's Migrator"). Nil for any
    /// other file, whose store error stands.
    static func olderVersion(path: String, schema: Schema) -> ImportError? {
        guard let connection = try? Connection(path: path, readOnly: true, create: false),
            let recorded = try? Store.recordedSchema(in: connection),
            recorded.family == schema.family, recorded.version < schema.version
        else { return nil }
        return .database(
            path: path,
            reason:
                "the file is at \(recorded.family) version \(recorded.version), made by an older urna, and this one "
                + "imports into version \(schema.version): upgrade it with `urna migrate --db \(path)` (a backup is kept; "
                + "`--dry-run` shows what changes), then import again; nothing was imported and the file is as it was",
            exitCode: 65)
    }

    /// Settings for one big write. A file this run created is filled with a rollback journal (pages go
    /// straight into the file instead of through the WAL and a checkpoint, half the writing; new pages
    /// need no journal) and is switched back to WAL afterwards. An existing file keeps its journal mode;
    /// in WAL, synchronous=NORMAL still commits atomically. A 32 MiB page cache keeps indexes warm while the
    /// 500k + 1M-row benchmark stays under its 200 MB peak (64 MiB measured 212 MB; bigger caches were slower).
    private func tuneForBulkWrite(_ c: Connection, newFile: Bool) throws {
        if newFile {
            try c.execute("PRAGMA journal_mode = DELETE")
        } else if case .text(let mode)? = try c.scalar("PRAGMA journal_mode"), mode.lowercased() == "wal" {
            try c.execute("PRAGMA synchronous = NORMAL")
        }
        try c.execute("PRAGMA cache_size = -32768")
        // Temporary files (the sorter of the index builds at the end) stay files: in memory they added
        // 27 MB to the peak of the 500k + 1M benchmark and were no faster.
        try c.execute("PRAGMA temp_store = FILE")
    }

    /// Puts a file this run created back in WAL mode, as the store creates files.
    private func restoreJournal(_ c: Connection, newFile: Bool) throws {
        if newFile { try c.execute("PRAGMA journal_mode = WAL") }
    }

    private func importAll(
        _ inputs: [ImportInput], into store: Store, rejects: RejectsFile, clock: ContinuousClock,
        started: ContinuousClock.Instant
    ) throws -> ImportSummary {
        // Foreign keys are checked by construction (every linked object is written in the same
        // transaction; the tests run PRAGMA foreign_key_check): enforcing them row by row costs a
        // quarter of the insert time. The pragma only takes effect outside a transaction, and the store holds
        // its write lock from before it to after it is restored: an app's writes on other threads never run
        // without foreign keys (a party deleted just after an import's commit left its candidacies linked to it).
        try store.withForeignKeysOff {
            try importAllWritingAlone(inputs, into: store, rejects: rejects, clock: clock, started: started)
        }
    }

    private func importAllWritingAlone(
        _ inputs: [ImportInput], into store: Store, rejects: RejectsFile, clock: ContinuousClock,
        started: ContinuousClock.Instant
    ) throws -> ImportSummary {
        let connection = store.connection
        try store.beginWrite()
        do {
            // The import's own rows are linked by construction; only a trigger (allowed here) can break
            // links inside this transaction, so only then is the whole file's foreign_key_check worth its
            // scan of every table.
            let triggersRun = try !ImportIntegrity.refuseTriggers(
                on: connection, schema: store.schema, path: connection.path, allowed: options.allowTriggers
            ).isEmpty
            try ImportIntegrity.refuseFileSQL(
                on: connection, schema: store.schema, path: connection.path, allowed: options.allowTriggers)
            var bulk = BulkLoad()
            try bulk.prepare(
                connection,
                tables: ["Candidate", "Good", StorageLayout.listTable(type: "Candidate", property: "goods")],
                schema: store.schema)
            var run = ImportRun(
                writer: try ElectionStoreWriter(
                    store: store, keepsPersonalData: options.keepPersonalData,
                    listsGoodsInBulk: options.listsGoodsInBulk && !triggersRun),
                rejects: rejects,
                maxErrors: options.maxErrors, progress: progress, clock: clock, started: started,
                bytesTotal: inputs.reduce(0) { $0 + $1.size }, fileCount: inputs.count)
            let pipeline = RecordPipeline(
                inputs: inputs, mapper: ElectionMapper(keepPersonalData: options.keepPersonalData),
                dateOrder: options.dateOrder)
            pipeline.start()
            defer { pipeline.cancel() }
            try run.consume(pipeline, inputs: inputs)
            try run.finishRows()
            // The goods lists go in between the index builds: reading the goods through `Good`'s new `candidacy`
            // index leaves only each candidacy's goods to sort, and the list table's index is built after its rows.
            try bulk.restore(connection, except: [GoodsListBulk.listTable])
            try run.writeGoodsLists()
            try bulk.restore(connection)
            try run.finishLinks()
            try run.summary.checkRowsAddUp(path: connection.path)
            try ImportIntegrity.verifyBeforeCommit(
                connection, schema: store.schema, path: connection.path, checkLinks: triggersRun)
            try rejects.secure()
            run.report(.committing)
            try store.commitWrite()
            run.report(.finished)
            return run.summary
        } catch {
            store.cancelWrite()
            throw error
        }
    }

    private func seconds(since start: ContinuousClock.Instant, clock: ContinuousClock) -> Double {
        let d = clock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private func removeDatabase(at path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
            CreatedFiles.unregister(path + suffix)
        }
    }
}
