import Foundation
import LibraryFamily
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// The dry run's copy and the backup are consistent snapshots, written under temporary names and never left
/// half-made; leftovers of killed runs are removed by the next one.
@Suite struct SafetyNetTests {
    final class Writer: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        private var count = 0
        private var failure: String?
        var commits: Int { lock.withLock { count } }
        var error: String? { lock.withLock { failure } }
        var isStopped: Bool { lock.withLock { stopped } }
        func stop() { lock.withLock { stopped = true } }
        func committed() { lock.withLock { count += 1 } }
        func failed(_ s: String) { lock.withLock { failure = s } }
        private var done = false
        var isDone: Bool { lock.withLock { done } }
        func finish() { lock.withLock { done = true } }
    }

    /// A pid that is certainly not running: a child that has exited.
    static func deadPid() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }

    @Test func eightDryRunsWhileAnotherConnectionCommitsContinuously() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path, authors: 300)
        let writer = Writer()
        Thread.detachNewThread {
            defer { writer.finish() }
            do {
                let c = try Connection(path: path)
                var n = 0
                while !writer.isStopped {
                    n += 1
                    try c.execute("BEGIN IMMEDIATE")
                    for k in 0..<50 { try c.execute("INSERT INTO Tag (name) VALUES ('t\(n)-\(k)')") }
                    try c.execute("UPDATE Author SET fullName = fullName || '' WHERE id = \(n % 300 + 1)")
                    try c.execute("COMMIT")
                    if n % 20 == 0 { try c.execute("PRAGMA wal_checkpoint(PASSIVE)") }
                    writer.committed()
                }
            } catch {
                writer.failed("\(error)")
            }
        }
        defer {
            writer.stop()
            while !writer.isDone { usleep(1000) }
        }
        let m = Migrator(family: LibraryFamily.family)
        var previewed = 0
        for run in 0..<8 {
            let report = try m.dryRun(path: path)
            #expect(report.outcome == .previewed, "dry run \(run): \(report.failures)")
            #expect(report.checks.allSatisfy { $0.passed }, "dry run \(run): \(report.checks)")
            if report.outcome == .previewed { previewed += 1 }
        }
        writer.stop()
        while !writer.isDone { usleep(1000) }
        #expect(writer.error == nil, "\(writer.error ?? "")")
        #expect(writer.commits > 8, "the writer kept committing (\(writer.commits) commits)")
        #expect(previewed == 8)
    }

    @Test func rollbackJournalFileWithAHotJournal() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path, authors: 300)
        try Connection(path: path).execute("PRAGMA journal_mode = DELETE")
        // A writer killed halfway through a transaction leaves a hot journal and half-written pages.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [path]
        let input = Pipe()
        p.standardInput = input
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        input.fileHandleForWriting.write(
            Data("PRAGMA cache_size = 1;\nBEGIN;\nUPDATE Author SET fullName = 'torn';\nSELECT 1;\n".utf8))
        var waited = 0
        while (try? FileManager.default.attributesOfItem(atPath: path + "-journal")[.size] as? Int) ?? 0 == 0,
            waited < 500
        {
            usleep(10_000)
            waited += 1
        }
        usleep(300_000)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        guard FileManager.default.fileExists(atPath: path + "-journal") else {
            Issue.record("no hot journal was made")
            return
        }
        let report = try Migrator(family: LibraryFamily.family).dryRun(path: path, sample: 300)
        #expect(report.outcome == .previewed, "\(report.failures)")
        #expect(report.countsBefore["Author"] == 300)
        let c = try Connection(path: path, readOnly: false, create: false)
        #expect(try c.integer("SELECT count(*) FROM Author WHERE fullName = 'torn'") == 0, "rolled back on open")
    }

    @Test func backupsKeepTheSourceModeLeftoversGoAndAnEarlierFileIsKeptAside() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        chmod(path, 0o600)
        let stale = "\(path).v0.bak.tmp-\(try Self.deadPid())"
        FileManager.default.createFile(atPath: stale, contents: Data(repeating: 0, count: 4096))
        FileManager.default.createFile(atPath: path + ".v0.bak", contents: Data("an older backup".utf8))
        let m = Migrator(family: SchemaFamilies.people)
        let report = try m.run(try m.plan(path: path), backup: .besideFile)
        #expect(report.backupPath == path + ".v0.bak")
        #expect(!FileManager.default.fileExists(atPath: stale), "a killed run's incomplete backup is removed")
        let attributes = try FileManager.default.attributesOfItem(atPath: path + ".v0.bak")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FamilyRegistry.recordedSchema(at: path + ".v0.bak").version == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        // The file that was at the backup's name held something else: kept aside, never replaced.
        #expect(names == ["people.sqlite", "people.sqlite.v0.1.bak", "people.sqlite.v0.bak"], "\(names)")
        #expect(FileManager.default.contents(atPath: path + ".v0.1.bak") == Data("an older backup".utf8))
    }

    /// A killed run's partial backup goes whatever the next run does: no backup, a dry run, nothing to do.
    @Test func partialBackupsGoWithAnyNextRun() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let m = Migrator(family: SchemaFamilies.people)
        func leave() throws -> [String] {
            let pid = try Self.deadPid()
            let names = ["\(path).v0.bak.tmp-\(pid)", "\(path).v0.bak.tmp-\(pid)-journal"]
            for n in names { FileManager.default.createFile(atPath: n, contents: Data(repeating: 0, count: 4096)) }
            return names
        }
        var left = try leave()
        _ = try m.dryRun(path: path)
        #expect(left.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "a dry run removes them")
        left = try leave()
        _ = try m.run(try m.plan(path: path), backup: .none)
        #expect(left.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "a run without a backup removes them")
        left = try leave()
        #expect(throws: MigrationError.self) { _ = try m.plan(path: path) }  // already current
        #expect(left.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "'nothing to do' removes them too")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(!names.contains { $0.contains(".tmp-") || $0.contains(".bak") }, "\(names)")
    }

    /// A run that fails after replacing this version's backup leaves the fresh one (the file did not change),
    /// never no backup at all.
    @Test func aFailedRunKeepsTheBackupThatWasThere() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        try Connection(path: path).execute("CREATE VIEW names AS SELECT firstName FROM \"Person\"")  // breaks at v1
        FileManager.default.createFile(atPath: path + ".v0.bak", contents: Data("an older backup".utf8))
        let m = Migrator(family: SchemaFamilies.people, options: MigrationOptions(recordsFailedRuns: false))
        #expect(throws: MigrationError.self) { _ = try m.run(try m.plan(path: path), backup: .besideFile) }
        #expect(try FamilyRegistry.recordedSchema(at: path + ".v0.bak").version == 0, "a backup of the unchanged file")
        // Where there was none, a failed run takes back the one it made.
        try FileManager.default.removeItem(atPath: path + ".v0.bak")
        #expect(throws: MigrationError.self) { _ = try m.run(try m.plan(path: path), backup: .besideFile) }
        #expect(!FileManager.default.fileExists(atPath: path + ".v0.bak"))
    }

    @Test func aKilledDryRunsCopyIsRemovedByTheNextRun() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let tmp = NSTemporaryDirectory()
        let dead = (tmp as NSString).appendingPathComponent("urna-dry-run-\(try Self.deadPid())-\(UUID().uuidString)")
        let alive = (tmp as NSString).appendingPathComponent("urna-dry-run-\(getpid())-\(UUID().uuidString)")
        for d in [dead, alive] {
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: d + "/people.sqlite", contents: Data(repeating: 1, count: 8192))
        }
        defer { try? FileManager.default.removeItem(atPath: alive) }
        _ = try Migrator(family: SchemaFamilies.people).dryRun(path: path)
        #expect(!FileManager.default.fileExists(atPath: dead), "the copy of a process that is gone is removed")
        #expect(FileManager.default.fileExists(atPath: alive), "a running process's copy is left alone")
    }

    /// A second migrator of a file being migrated is told so at once, naming the process.
    @Test func aSecondMigratorIsToldAnotherMigrationIsRunning() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let started = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let slow = SchemaFamily(
            name: "people",
            versions: [
                SchemaVersion(People.v0),
                SchemaVersion(
                    People.v1,
                    step: MigrationStep("fullName") { m in
                        started.signal()
                        go.wait()
                        try m.enumerateObjects(ofType: "Person") { old, new in
                            new["fullName"] = .string("\(old["firstName"]) \(old["lastName"])")
                        }
                    }),
            ])
        let first = Writer()
        Thread.detachNewThread {
            defer { first.finish() }
            do {
                let m = Migrator(family: slow)
                _ = try m.run(try m.plan(path: path), backup: .none)
            } catch {
                first.failed("\(error)")
            }
        }
        started.wait()
        let m = Migrator(family: slow)
        let plan = try m.plan(path: path)
        do {
            _ = try m.run(plan, backup: .none)
            Issue.record("the second migrator ran")
        } catch let e as MigrationError {
            guard case .migrationRunning(_, let pid) = e else {
                Issue.record("\(e)")
                go.signal()
                return
            }
            #expect(pid == getpid())
            #expect(e.description.hasPrefix("another migration is running on \(path) (process \(getpid()))"))
        }
        go.signal()
        while !first.isDone { usleep(1000) }
        #expect(first.error == nil, "\(first.error ?? "")")
        #expect(try FamilyRegistry.recordedSchema(at: path).version == 1)
    }
}
