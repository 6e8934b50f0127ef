import Foundation
import Testing
import UrnaStore

/// The setup the `WriteTransaction` trials share: a `TrialSix` store in a temporary file of its own (removed when the
/// fixture goes) or in memory, and a box for a handle and for what threads saw.
final class WriteTransactionFixture: @unchecked Sendable {
    let store: Store
    /// The file's path (nil in memory).
    let path: String?
    private let dir: URL?
    private let lock = NSLock()
    private var stored: WriteTransaction?
    private var created: [Int64] = []
    private var notes: [String] = []

    /// A store in a new temporary file, or in memory.
    init(inMemory: Bool = false) throws {
        if inMemory {
            store = try Store.inMemory(schema: try TrialSix.schema())
            (dir, path) = (nil, nil)
        } else {
            let (dir, path) = try TrialSix.temporaryPath()
            store = try Store(path: path, schema: try TrialSix.schema())
            (self.dir, self.path) = (dir, path)
        }
    }

    deinit {
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// The handle kept between threads (nil until `keep`).
    var kept: WriteTransaction? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Keeps `w` for other threads; `handle` gives it back (it traps when none was kept).
    func keep(_ w: WriteTransaction) { kept = w }
    var handle: WriteTransaction { kept! }

    /// Notes a value a thread created (or any id a test keeps).
    func add(_ id: Int64) { lock.withLock { created.append(id) } }
    var ids: [Int64] { lock.withLock { created } }
    var sortedIDs: [Int64] { lock.withLock { created.sorted() } }

    /// Notes what a thread saw; `attempt` notes "ok" or the error.
    func note(_ s: String) { lock.withLock { notes.append(s) } }
    func attempt(_ body: () throws -> Void) { note(TrialSix.attempt(body)) }
    var said: [String] { lock.withLock { notes } }

    /// The notes the file holds, read by a connection of its own (what is really committed); in memory, the store's.
    func committedIDs() throws -> [Int64] {
        if let path { return try TrialSix.committedIDs(path) }
        return try store.objects(TrialSix.Note.self).map { Int64($0.id) }.sorted()
    }

    /// Runs `body` on a thread of its own and says whether it finished (a hang guard, not a speed check): when it did
    /// not, the kept handle is cancelled so the store is free for what follows.
    func finishesOnThread(within seconds: Double = 10, _ body: @escaping @Sendable () -> Void) -> Bool {
        let finished = TrialSix.onThread(body).wait(timeout: .now() + seconds) == .success
        if !finished { kept?.cancel() }
        return finished
    }

    /// Whether a `write { }` on a thread of its own finishes (it hung while a write was left open).
    func writeFinishes(id: Int) -> Bool { TrialEight.writeFinishes(store, id: id) }
}
