import Foundation
import UrnaMigrator
import UrnaStore

/// Scenarios across processes and file systems: a migration while a child writes, kill -9 in the middle of
/// writes, a full disk.
enum Processes {
    /// A child writes entries (one per write, each acknowledged on its stdout after commit) while this process
    /// migrates the file v1 -> v2 (optionally cancelling the migration first). Every acknowledged entry must be
    /// in the file afterwards, with w = 2v.
    static func migrationWhileChildWrites(cancelFirst: Bool) async throws {
        let path = Files.fresh("migrate-\(cancelFirst).sqlite")
        let tally = Tally()
        do {
            let s = try Store(path: path, schema: EntryFamily.v1)
            try s.write { for i in 0..<20000 { try s.create("Entry", value: ["id": "seed\(i)", "v": i]) } }
        }
        let acks = path + ".acks"
        FileManager.default.createFile(atPath: acks, contents: nil)
        let child = try spawnChild(["child-entries", path], stdout: FileHandle(forWritingAtPath: acks)!)
        try await Task.sleep(for: .milliseconds(300))
        let migrator = Migrator(family: EntryFamily.family)
        if cancelFirst {
            let task = Task {
                try await Migrator(family: EntryFamily.family).migrateIfNeeded(path: path, backup: .none)
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...200)))
            task.cancel()
            do {
                _ = try await task.value
                tally.add("cancelled migration finished anyway")
            } catch { tally.add("cancelled migration threw") }
            tally.add("version after cancel", SQLite3.int(path, "PRAGMA user_version"))
            tally.add("integrity ok after cancel", SQLite3.query(path, "PRAGMA integrity_check") == "ok" ? 1 : 0)
        }
        let started = Date()
        let report = try await migrator.migrateIfNeeded(path: path, backup: .none)
        tally.add("migration ms", Int(Date().timeIntervalSince(started) * 1000))
        tally.add("migrated", report == nil ? 0 : 1)
        try await Task.sleep(for: .milliseconds(300))
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        let text = (try? String(contentsOfFile: acks, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n")
        let acked = Set(lines.filter { $0.hasPrefix("ack ") }.map { String($0.dropFirst(4)) })
        for l in lines where !l.hasPrefix("ack ") { tally.note(String(l)) }
        let inFile = Set(
            SQLite3.query(path, "SELECT id FROM Entry WHERE writer = 'child'").split(separator: "\n").map(String.init))
        tally.add("child acknowledged", acked.count)
        tally.add("acknowledged, missing (lost)", acked.subtracting(inFile).count)
        // kill -9 may land between a commit and its acknowledgement: at most one such row.
        tally.add("in file, never acknowledged (<= 1: killed before its ack)", inFile.subtracting(acked).count)
        tally.add("rows with w != 2v", SQLite3.int(path, "SELECT count(*) FROM Entry WHERE w != 2 * v"))
        tally.add("file version", SQLite3.int(path, "PRAGMA user_version"))
        tally.add("integrity ok", SQLite3.query(path, "PRAGMA integrity_check") == "ok" ? 1 : 0)
        tally.report("migrateIfNeeded while a child process writes (cancel first: \(cancelFirst))")
    }

    /// The child of `migrationWhileChildWrites`: writes until told to stop; after schemaMismatch, says so and
    /// opens the file again with v2... (an app would), and goes on.
    static func childEntries(path: String) throws {
        var store: Store? = try Store(path: path, schema: EntryFamily.v1)
        var i = 0
        while true {
            i += 1
            do {
                // Opened with v2 (after the migration), the child writes w = 2v as the v2 app would.
                var value: [String: Any] = ["id": "e\(i)", "v": Int64(i), "writer": "child"]
                if store!.schema.version == 2 { value["w"] = Int64(2 * i) }
                try store!.write { try store!.create("Entry", value: value) }
                say("ack e\(i)")
            } catch let StoreError.schemaMismatch(m) {
                say("mismatch after \(i - 1) writes: \(m.prefix(80))")
                store = nil
                store = try Store(path: path, schema: EntryFamily.v2)
            } catch {
                say("error: \(error)")
                usleep(10_000)
            }
        }
    }

    /// kill -9 of a child in the middle of batched writes (50 items per write), then reopen: every batch whole
    /// or absent, every acknowledged batch present, the file intact.
    static func killNine() async throws {
        let tally = Tally()
        for round in 0..<8 {
            let path = Files.fresh("kill-\(round).sqlite")
            _ = try Store(path: path, schema: try TrialSchema.schema())
            let acks = path + ".acks"
            FileManager.default.createFile(atPath: acks, contents: nil)
            let child = try spawnChild(["child-batches", path], stdout: FileHandle(forWritingAtPath: acks)!)
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...900)))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            let text = (try? String(contentsOfFile: acks, encoding: .utf8)) ?? ""
            let acked = text.split(separator: "\n").filter { $0.hasPrefix("ack ") }.compactMap { Int($0.dropFirst(4)) }
            let store = try Store(path: path, schema: try TrialSchema.schema())
            let items = try store.objects(Item.self).count
            tally.add("acknowledged batches", acked.count)
            tally.add("items after reopen", items)
            let partial = SQLite3.int(
                path, "SELECT count(*) FROM (SELECT batch FROM Item GROUP BY batch HAVING count(*) != 50)")
            tally.add("partial batches", partial)
            let maxAck = acked.max() ?? -1
            let missing = SQLite3.int(path, "SELECT count(DISTINCT batch) FROM Item WHERE batch <= \(maxAck)")
            tally.add("acknowledged batches missing", (maxAck + 1) - missing)
            if SQLite3.query(path, "PRAGMA integrity_check") != "ok" { tally.add("integrity failures") }
        }
        tally.report("kill -9 in the middle of batched writes, 8 rounds")
    }

    static func childBatches(path: String) throws {
        let store = try Store(path: path, schema: try TrialSchema.schema())
        var batch = 0
        while true {
            try store.write {
                for i in 0..<50 {
                    try store.create(Item.self, value: ["id": "b\(batch)-\(i)", "batch": batch, "seq": i])
                }
            }
            say("ack \(batch)")
            batch += 1
        }
    }

    /// Writes onto a small tmpfs until it is full: the write that fails throws, nothing acknowledged is lost, the
    /// file is intact, and after space is freed writes go on.
    static func diskFull() throws {
        let tally = Tally()
        let dir = NSTemporaryDirectory() + "threads-trial-tmpfs-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        guard shell("mount -t tmpfs -o size=600k tmpfs \(dir)") == 0 else {
            print("== disk full: skipped (cannot mount a tmpfs)")
            return
        }
        defer { _ = shell("umount \(dir)") }
        let path = dir + "/full.sqlite"
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let failures = Tally()
        let filler = String(repeating: "x", count: 900)
        let group = DispatchGroup()
        for t in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                for i in 0..<400 {
                    do {
                        try store.write {
                            try store.create(
                                Item.self, value: ["id": "f\(t)-\(i)-" + filler, "worker": "\(t)", "seq": i])
                        }
                        tally.add("acknowledged writes")
                    } catch {
                        tally.add("failed writes")
                        failures.note("\(error)".prefix(100).description)
                    }
                }
            }.start()
        }
        group.wait()
        failures.report("full-disk errors (first 20)")
        let count = (try? store.objects(Item.self).count) ?? -1
        tally.add("items read back by the store", count)
        tally.add("items read by sqlite3", SQLite3.int(path, "SELECT count(*) FROM Item"))
        tally.add("integrity ok", SQLite3.query(path, "PRAGMA integrity_check") == "ok" ? 1 : 0)
        _ = shell("mount -o remount,size=4m \(dir)")
        do {
            try store.write { try store.create(Item.self, value: ["id": "after"]) }
            tally.add("write after space freed ok")
        } catch {
            tally.add("write after space freed failed")
            tally.note("after: \(error)")
        }
        tally.report("full disk (600 KB tmpfs) under 4 writing threads")
    }

    @discardableResult
    static func shell(_ command: String) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command + " 2>/dev/null"]
        try? p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }
}

/// One line on standard output, unbuffered (the parent reads acknowledgements from a process it may kill).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
