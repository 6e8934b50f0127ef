import Foundation
import UrnaMigrator
import UrnaStore

/// The fifth trial's lifetimes: what an app holds (statements, streams, objects) after the store is gone, and one
/// stream shared by two tasks. Each probe that might crash runs in a child process, so a crash is counted.
enum Lifetimes {
    static func run() async throws {
        let tally = Tally()
        for probe in [
            "statement-after-store", "shared-changes-stream", "shared-results-stream", "objects-after-store",
            "subscript-during-migration",
        ] {
            let path = Files.fresh("lifetime-\(probe).sqlite")
            let out = path + ".out"
            FileManager.default.createFile(atPath: out, contents: nil)
            let child = try spawnChild(["child-lifetime", probe, path], stdout: FileHandle(forWritingAtPath: out)!)
            let deadline = Date().addingTimeInterval(120)
            while child.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            if child.isRunning {
                kill(child.processIdentifier, SIGKILL)
                tally.add("\(probe): HUNG (killed after 120 s)")
            }
            child.waitUntilExit()
            let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            let status =
                child.terminationReason == .uncaughtSignal
                ? "CRASHED (signal \(child.terminationStatus))" : "exit \(child.terminationStatus)"
            tally.add("\(probe): \(status)")
            for line in text.split(separator: "\n") { tally.note("\(probe): \(line)") }
        }
        tally.report("lifetimes: statements, streams and objects after the store, one stream for two tasks")
    }

    static func child(_ probe: String, path: String) async throws {
        switch probe {
        case "statement-after-store":
            // A raw statement prepared on store.connection, stepped after the app dropped the store.
            var store: Store? = try Store(path: path, schema: try TrialSchema.schema())
            try store!.write { try store!.create(Item.self, value: ["id": "a"]) }
            let statement = try store!.connection.prepare("SELECT count(*) FROM Item")
            store = nil
            do {
                let row = try statement.step()
                say("stepped: \(row) \(statement.value(at: 0))")
            } catch { say("threw: \(error)") }
        case "shared-changes-stream":
            // AsyncStream is Sendable: Swift 6 lets two tasks iterate the same one.
            let store = try Store(path: path, schema: try TrialSchema.schema())
            let stream = store.changes
            let heard = Tally()
            let a = Task {
                for await c in stream {
                    heard.add("a", c.inserted["Item"] ?? 0)
                    if heard["a"] >= 20 { break }
                }
            }
            let b = Task {
                for await c in stream {
                    heard.add("b", c.inserted["Item"] ?? 0)
                    if heard["b"] >= 20 { break }
                }
            }
            for i in 0..<20 {
                try store.write { try store.create(Item.self, value: ["id": "s\(i)"]) }
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(300))
            a.cancel()
            b.cancel()
            _ = await (a.value, b.value)
            say("a heard \(heard["a"]), b heard \(heard["b"]) of 20 inserts")
        case "shared-results-stream":
            let store = try Store(path: path, schema: try TrialSchema.schema())
            let stream = try store.objects(Item.self).changes
            let heard = Tally()
            let a = Task { for try await _ in stream { heard.add("a") } }
            let b = Task { for try await _ in stream { heard.add("b") } }
            for i in 0..<20 {
                try store.write { try store.create(Item.self, value: ["id": "s\(i)"]) }
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(300))
            a.cancel()
            b.cancel()
            _ = await (a.result, b.result)
            say("a heard \(heard["a"]), b heard \(heard["b"]) changes (21 sent: initial + 20)")
        case "objects-after-store":
            // Objects, results, lists and inverse links an app holds after the store went: errors, never a crash.
            var store: Store? = try Store(path: path, schema: try TrialSchema.schema())
            try store!.write {
                let p = try store!.create(Person.self, value: [1, "Ann"])
                try p.dogs.append(Dog(value: [1, "Rex"]))
            }
            let person = try store!.object(ofType: Person.self, forPrimaryKey: 1)!
            let dog = try store!.object(ofType: Dog.self, forPrimaryKey: 1)!
            let list = person.dogs
            let owners = dog.owners
            store = nil
            say("person.name \(person.name), invalidated \(person.isInvalidated)")
            do { say("list.count \(try list.count)") } catch { say("list.count threw: \(error)") }
            do { say("owners.count \(try owners.count)") } catch { say("owners.count threw: \(error)") }
            say("list iterated \(Array(list).count)")
        case "subscript-during-migration":
            // Lazy results read by index (Realm's subscript) while another thread migrates the file.
            do {
                let s = try Store(path: path, schema: EntryFamily.v1)
                try s.write { for i in 0..<5000 { try s.create("Entry", value: ["id": "e\(i)", "v": i]) } }
            }
            let store = try Store(path: path, schema: EntryFamily.v1)
            let migrated = Flag()
            Thread.detachNewThread {
                usleep(100_000)
                do {
                    _ = try Migrator(family: EntryFamily.family).migrateIfNeeded(path: path, backup: .none)
                    say("migrated")
                } catch { say("migration threw: \(error)") }
                migrated.set()
            }
            var reads = 0
            var gone = 0
            var after = 0
            let results = try store.objects("Entry").sorted(byKeyPath: "v")
            while after < 3 {
                if migrated.isSet { after += 1 }
                // The count was read before the migration (a loop over 0..<count, the count read earlier).
                for i in 0..<500 {
                    if i % 50 == 0 { _ = try? store.refresh() }  // as the store's own look does while observers exist
                    let o = results[i]
                    if o.isInvalidated { gone += 1 }
                    reads += 1
                }
            }
            say("\(reads) subscript reads, \(gone) answered gone, no crash")
        default:
            say("unknown probe \(probe)")
        }
    }
}
