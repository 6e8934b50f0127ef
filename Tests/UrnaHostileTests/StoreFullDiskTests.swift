import Foundation
import Testing
import UrnaStore

final class FullDiskNote: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
}

/// A real full file system: a 1 MiB tmpfs (mounting needs root; otherwise the test is skipped, saying so).
@Suite("A full disk makes Store.write throw")
struct StoreFullDiskTests {
    @Test("On a filled 1 MiB tmpfs, a typed setter and an add make write throw, never trap, and roll back")
    func fullTmpfs() throws {
        guard getuid() == 0 else {
            try Test.cancel("skipped: mounting a tmpfs needs root (running as uid \(getuid()))")
        }
        let mountPoint = try Hostile.folder()
        guard try Hostile.tool("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.path]) == 0 else {
            try Test.cancel("skipped: cannot mount a tmpfs here (mount failed even as root; CAP_SYS_ADMIN missing?)")
        }
        defer {
            if (try? Hostile.tool("/bin/umount", [mountPoint.path])) != 0 {
                _ = try? Hostile.tool("/bin/umount", ["-l", mountPoint.path])
            }
            try? FileManager.default.removeItem(at: mountPoint)
        }
        let schema = try Schema(family: "fulldisk", version: 1, models: [FullDiskNote.self])
        let store = try Store(path: mountPoint.appendingPathComponent("notes.sqlite").path, schema: schema)
        let note = try store.write { () throws -> FullDiskNote in
            try store.create(FullDiskNote.self, value: ["id": 1, "text": "before"])
        }

        // Fill what is left with a plain file until the file system refuses.
        let filler = mountPoint.appendingPathComponent("filler")
        FileManager.default.createFile(atPath: filler.path, contents: nil)
        let handle = try FileHandle(forWritingTo: filler)
        let chunk = Data(count: 16 * 1024)
        var filled = 0
        var refused = false
        while filled < 2 * 1024 * 1024 {
            do { try handle.write(contentsOf: chunk) } catch {
                refused = true
                break
            }
            filled += chunk.count
        }
        try? handle.close()
        #expect(refused, "the 1 MiB tmpfs took \(filled) bytes without refusing")

        let big = String(repeating: "x", count: 300_000)
        var setterError: (any Error)?
        do { try store.write { note.text = big } } catch { setterError = error }
        let setterMessage = setterError.map { "\($0.localizedDescription)" } ?? ""
        #expect(setterError != nil, "a 300 kB setter succeeded on a full file system")
        #expect(setterMessage.contains("full"), "\(setterMessage)")

        var addError: (any Error)?
        do { try store.write { try store.add(FullDiskNote(value: ["id": 2, "text": big])) } } catch { addError = error }
        #expect(addError != nil, "a 300 kB add succeeded on a full file system")

        // Space back: the store still works and kept only what was committed.
        try FileManager.default.removeItem(at: filler)
        _ = try store.refresh()
        #expect(note.text == "before")
        #expect(try store.objects(FullDiskNote.self).count == 1)
        try store.write { note.text = "after" }
        #expect(note.text == "after")
    }
}
