import Foundation
import UrnaMigrator
import UrnaStore

/// The fifth trial's migration race: `migrateIfNeeded` from three tasks of this process and two child processes at
/// once, while a task writes through a v1 store and reopens with v2 when told to.
enum MigrationRace {
    static func run() async throws {
        let path = Files.fresh("migration-race.sqlite")
        let tally = Tally()
        do {
            let s = try Store(path: path, schema: EntryFamily.v1)
            try s.write { for i in 0..<20000 { try s.create("Entry", value: ["id": "seed\(i)", "v": i]) } }
        }
        let outs = [path + ".m0", path + ".m1"]
        let stop = Flag()
        let writer = Task.detached { () -> (Set<String>, [String]) in
            var store = try Store(path: path, schema: EntryFamily.v1)
            var v2 = false
            var acked: Set<String> = []
            var notes: [String] = []
            var i = 0
            while !stop.isSet {
                i += 1
                do {
                    var value: [String: Any] = ["id": "w\(i)", "v": Int64(i), "writer": "w"]
                    if v2 { value["w"] = Int64(2 * i) }
                    try store.write { try store.create("Entry", value: value) }
                    acked.insert("w\(i)")
                } catch StoreError.schemaMismatch {
                    store = try Store(path: path, schema: EntryFamily.v2)
                    v2 = true
                    notes.append("reopened with v2 after \(acked.count) writes")
                } catch {
                    notes.append("\(error)")
                }
            }
            return (acked, notes)
        }
        try await Task.sleep(for: .milliseconds(200))
        var children: [Process] = []
        for out in outs {
            FileManager.default.createFile(atPath: out, contents: nil)
            children.append(try spawnChild(["child-migrate", path], stdout: FileHandle(forWritingAtPath: out)!))
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    do {
                        let report = try await Migrator(family: EntryFamily.family).migrateIfNeeded(
                            path: path, backup: .none)
                        tally.add(report == nil ? "task: nothing to do" : "task: migrated")
                    } catch {
                        tally.add("task: threw")
                        tally.note("task: \(error)")
                    }
                }
            }
        }
        for c in children { c.waitUntilExit() }
        for out in outs {
            let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") { tally.add("child: \(line.prefix(60))") }
        }
        try await Task.sleep(for: .milliseconds(300))
        stop.set()
        let (acked, notes) = try await writer.value
        for n in notes.prefix(5) { tally.note("writer: \(n)") }
        let inFile = Set(
            SQLite3.query(path, "SELECT id FROM Entry WHERE writer = 'w'").split(separator: "\n").map(String.init))
        tally.add("writes acknowledged", acked.count)
        tally.add("acknowledged, missing (lost)", acked.subtracting(inFile).count)
        tally.add("in file, never acknowledged", inFile.subtracting(acked).count)
        tally.add("seed rows", SQLite3.int(path, "SELECT count(*) FROM Entry WHERE id LIKE 'seed%'"))
        tally.add("rows with w != 2v", SQLite3.int(path, "SELECT count(*) FROM Entry WHERE w != 2 * v"))
        tally.add("file version", SQLite3.int(path, "PRAGMA user_version"))
        tally.add(
            "migrated runs in history", SQLite3.int(path, "SELECT count(*) FROM _urna_history WHERE to_version = 2"))
        tally.add("integrity ok", SQLite3.query(path, "PRAGMA integrity_check") == "ok" ? 1 : 0)
        tally.report("migrateIfNeeded from 3 tasks and 2 processes at once, a writer beside")
    }

    static func child(path: String) async {
        do {
            let report = try await Migrator(family: EntryFamily.family).migrateIfNeeded(path: path, backup: .none)
            say(report == nil ? "nothing to do" : "migrated")
        } catch {
            say("threw \(error)")
        }
    }
}
