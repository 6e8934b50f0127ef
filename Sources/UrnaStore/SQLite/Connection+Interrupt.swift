import CSQLite
import Foundation

/// What a signal handler may do to stop the work in progress: interrupt every open connection (the running
/// statement fails with SQLITE_INTERRUPT, so the caller's error path rolls its transaction back), and, if
/// the process must end before that path has run, remove the files the run created.
extension Connection {
    /// Makes the statement each open connection is running (or starts next) fail with SQLITE_INTERRUPT.
    /// Safe from any thread: connections leave the registry before they close.
    public static func interruptAll() {
        OpenConnections.shared.forEach { sqlite3_interrupt($0) }
    }
}

/// The handles of the connections open in this process.
final class OpenConnections: @unchecked Sendable {
    static let shared = OpenConnections()
    private let lock = NSLock()
    private var handles: Set<OpaquePointer> = []

    func insert(_ handle: OpaquePointer) {
        lock.lock()
        handles.insert(handle)
        lock.unlock()
    }

    func remove(_ handle: OpaquePointer) {
        lock.lock()
        handles.remove(handle)
        lock.unlock()
    }

    /// Runs `body` for each handle while none can close.
    func forEach(_ body: (OpaquePointer) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        for h in handles { body(h) }
    }
}

/// Files a run created and removes again if it fails (a new database and its journal, temporary files):
/// an interruption that cannot wait for the normal error path removes them itself.
public enum CreatedFiles {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths: Set<String> = []
    nonisolated(unsafe) private static var stopping = false

    /// Whether the process is being stopped (a signal): output files are then removed, not published.
    public static var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    /// Marks the process as being stopped.
    public static func markStopping() {
        lock.lock()
        stopping = true
        lock.unlock()
    }

    /// Notes a file the run created (and must remove if it does not finish).
    public static func register(_ path: String) {
        lock.lock()
        paths.insert(path)
        lock.unlock()
    }

    /// The run finished with the file, or removed it itself.
    public static func unregister(_ path: String) {
        lock.lock()
        paths.remove(path)
        lock.unlock()
    }

    /// Removes every registered file now (with the SQLite files beside it); returns what was removed.
    @discardableResult
    public static func removeAll() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        var removed: [String] = []
        for path in paths.sorted() {
            if unlink(path) == 0 { removed.append(path) }
        }
        paths.removeAll()
        return removed
    }
}
