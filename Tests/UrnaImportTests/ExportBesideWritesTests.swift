import Foundation
import Testing
import UrnaImport
import UrnaStore

/// An export run by one task of an app while its other tasks write to the same `Store` (the sixth threads trial).
@Suite struct ExportBesideWritesTests {
    /// What the writing thread did, read after it stopped.
    private final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var done = 0
        private var failures: [String] = []
        private var stop = false
        func succeeded() { lock.withLock { done += 1 } }
        func failed(_ e: Error) { lock.withLock { failures.append("\(e)") } }
        func finish() { lock.withLock { stop = true } }
        var stopped: Bool { lock.withLock { stop } }
        var result: (done: Int, failures: [String]) { lock.withLock { (done, failures) } }
    }

    @Test(
        "Writes from other threads while an export runs all commit (they threw alreadyInWriteTransaction: the export read in a transaction on the store's writer)"
    )
    func writesBesideAnExportCommit() throws {
        let db = try ExportTestFiles.database([ExportTestFiles.sample("consulta_cand_2016_AC.txt")])
        let store = try Store.openExisting(path: db)
        let before = try ImportTestSupport.integer(db, "SELECT count(*) FROM Party WHERE name LIKE '%!'")
        let tally = Tally()
        let writerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var n: Int64 = 0
            while !tally.stopped {
                do {
                    try store.write {
                        try store.connection.run(
                            "UPDATE Party SET name = name || '!' WHERE rowid = (SELECT min(rowid) + ? FROM Party)",
                            [.integer(n % 5)])
                    }
                    tally.succeeded()
                } catch {
                    tally.failed(error)
                }
                n += 1
                usleep(2_000)
            }
            writerDone.signal()
        }
        var exports = 0
        let folder = try ImportTestSupport.scratchFolder()
        let end = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < end || exports < 3 {
            let summary = try ElectionExporter(store: store, options: ExportOptions(format: .json))
                .export(toPath: folder + "/export-\(exports).jsonl")
            #expect(summary.objects == 2310)
            exports += 1
        }
        tally.finish()
        writerDone.wait()
        let (done, failures) = tally.result
        #expect(
            failures.count == 0, "\(failures.count) of \(done + failures.count) writes failed: \(failures.first ?? "")")
        #expect(done > 0)
        // Every acknowledged write is in the file (each added one '!' to a name).
        let marks = try ImportTestSupport.integer(
            db, "SELECT coalesce(sum(length(name) - length(replace(name, '!', ''))), 0) FROM Party")
        #expect(marks == Int64(done) + before)
    }

    @Test(
        "An observer that deletes when an import into the same Store commits keeps foreign keys on (it ran on the importer's thread before the import's PRAGMA foreign_keys = ON: the deleted party's candidacies kept their link to it)"
    )
    func observerOfAnImportKeepsForeignKeys() throws {
        let file = ExportTestFiles.sample("consulta_cand_2016_AC.txt")
        let db = try ExportTestFiles.database([ExportTestFiles.sample("consulta_legendas_2016_AC.txt")])
        let store = try Store.openExisting(path: db)
        let tally = Tally()
        let dangling = Tally()
        let token = store.observe { change in
            guard change.types.contains("Candidate") || !change.possiblyChanged.isEmpty, !tally.stopped else { return }
            tally.finish()
            do {
                try store.write {
                    let party = try store.connection.scalar(
                        "SELECT party FROM Candidate WHERE party IS NOT NULL LIMIT 1")
                    try store.connection.run("DELETE FROM Party WHERE id = ?", [party ?? .null])
                    // ON DELETE SET NULL cleared the candidacies' links, when foreign keys are on.
                    let left = try store.connection.integer(
                        "SELECT count(*) FROM Candidate WHERE party = ?", [party ?? .null])
                    for _ in 0..<left { dangling.succeeded() }
                }
                tally.succeeded()
            } catch {
                tally.failed(error)
            }
        }
        let summary = try Importer(options: ImportOptions(dbPath: db)).run(files: [file], into: store)
        #expect(summary.rejected == 0)
        let end = ContinuousClock.now + .seconds(10)
        while tally.result.done + tally.result.failures.count == 0 && ContinuousClock.now < end { usleep(10_000) }
        token.invalidate()
        #expect(tally.result.done == 1, "\(tally.result.failures)")
        #expect(dangling.result.done == 0)
        #expect(try ImportTestSupport.foreignKeyViolations(db) == 0)
    }
}
