import Foundation
import UrnaStore

final class Note: Object {
    @Persisted(primaryKey: true) var id: UUID
    @Persisted var text = ""
    @Persisted var createdAt = Date()
}

var failures = 0
@MainActor func check(_ ok: Bool, _ what: String) {
    print(ok ? "ok   \(what)" : "FAIL \(what)")
    if !ok { failures += 1 }
}

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-consumer-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: dir) }
let path = dir.appendingPathComponent("notes.sqlite").path
let schema = try Schema(family: "notes", version: 1, models: [Note.self])
let store = try Store(path: path, schema: schema)

var tasks: [Task<Void, Error>] = []
for t in 0..<8 {
    tasks.append(Task { for i in 0..<100 { try store.write { try store.create(Note.self, value: ["text": "\(t)-\(i)"]) } } })
}
var errors = 0
for task in tasks { do { try await task.value } catch { errors += 1 } }
let written = try store.objects(Note.self).count
check(errors == 0 && written == 800, "8 tasks x 100 writes = 800 rows (\(written), \(errors) errors)")
let ids = Set(try store.objects(Note.self).objects().map(\.id))
check(ids.count == 800, "UUID keys are distinct")

let b = try Store(path: path, schema: schema)
let first = try store.objects(Note.self).sorted(byKeyPath: "text").first!
try b.write { try b.delete(try b.objects(Note.self).sorted(byKeyPath: "text").first!) }
try store.refresh()
check(first.isInvalidated, "isInvalidated after a delete through another store")
let afterDelete = try store.objects(Note.self).count
check(afterDelete == 799, "results see the other store's commit after refresh()")
do {
    _ = try store.objects(Note.self).sorted(byKeyPath: "txet")
    check(false, "a misspelled sort key throws")
} catch {
    check(!error.localizedDescription.contains("operation could not be completed"), "localizedDescription: \(error.localizedDescription)")
}
exit(failures == 0 ? 0 : 1)
