import Foundation
import Testing
import UrnaStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A write that waits while a migration holds the file gets the migration's outcome, not "database is locked".
@Suite("Writes while a migration holds the file")
struct WriteDuringMigrationTests {
    static let schema = try! Schema(
        family: "waiting", version: 1,
        types: [ObjectSchema("Note", [Property("id", .int64, primaryKey: true)])])

    @Test("A write blocked longer than the busy timeout by a running migration throws schemaMismatch after it")
    func writeWaitsForTheMigration() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-waiting-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("notes.sqlite").path
        let store = try Store(path: path, schema: Self.schema)
        // SQLite's 5 s wait, shortened so the test is quick: the migration below outlasts it.
        try store.connection.execute("PRAGMA busy_timeout = 100")
        // A migration as UrnaMigrator runs one: its lock file (naming this process) and the file's write lock.
        let lockPath = try #require(MigrationMarker.lockPath(forDatabase: path))
        try Data("\(getpid())\n".utf8).write(to: URL(fileURLWithPath: lockPath))
        defer { try? FileManager.default.removeItem(atPath: lockPath) }
        let migrator = try Connection(path: path)
        try migrator.execute("BEGIN IMMEDIATE")
        let outcome = DispatchSemaphore(value: 0)
        let failure = UncheckedResult()
        Thread.detachNewThread {
            do { try store.write { try store.create("Note", value: ["id": 1]) } } catch { failure.error = error }
            outcome.signal()
        }
        // The write is refused by SQLite's busy timeout (100 ms) long before this: before the fix it failed here.
        let finishedDuringMigration = outcome.wait(timeout: .now() + 0.5) == .success
        try migrator.execute("UPDATE \"_urna_schema\" SET version = 2 WHERE id = 1")
        try migrator.execute("COMMIT")
        try FileManager.default.removeItem(atPath: lockPath)
        if !finishedDuringMigration { outcome.wait() }
        #expect(
            !finishedDuringMigration,
            "the write gave up while the migration ran: \(failure.error.map { "\($0)" } ?? "-")")
        guard case .schemaMismatch(let message)? = failure.error as? StoreError else {
            Issue.record("expected schemaMismatch, got \(failure.error.map { "\($0)" } ?? "success")")
            return
        }
        #expect(message.contains("version 2"))
    }
}

/// The write thread's error, read after the semaphore says it is done.
final class UncheckedResult: @unchecked Sendable {
    var error: Error?
}
