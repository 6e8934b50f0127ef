import CPostgreSQL
import Foundation

/// What a signal watcher needs from this process's PostgreSQL connections: a way to cancel the statements
/// they are running (PQcancel, safe from any thread), and whether a COMMIT was sent, so that an interrupted
/// command never says "nothing was changed" about a change the server may have committed.
public enum PostgresInterrupt {
    /// Where this process's writes to PostgreSQL stand.
    public enum CommitState: Sendable {
        /// No COMMIT was sent: an interruption leaves the server as it was.
        case none
        /// A COMMIT was sent and has not answered: the server may or may not have committed.
        case inFlight
        /// A COMMIT answered success: the change is on the server.
        case committed
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cancels: [ObjectIdentifier: OpaquePointer] = [:]
    nonisolated(unsafe) private static var state = CommitState.none

    /// The state of the last COMMIT this process sent.
    public static var commitState: CommitState { lock.withLock { state } }

    /// Cancels the statement each open connection is running (its transaction then fails and rolls back),
    /// except while a COMMIT is in flight, which is left to finish.
    public static func cancelAll() {
        lock.withLock {
            guard state != .inFlight else { return }
            var buffer = [CChar](repeating: 0, count: 256)
            for cancel in cancels.values { _ = PQcancel(cancel, &buffer, Int32(buffer.count)) }
        }
    }

    static func register(_ connection: PostgresConnection) {
        guard let cancel = PQgetCancel(connection.handle) else { return }
        lock.withLock { cancels[ObjectIdentifier(connection)] = cancel }
    }

    static func unregister(_ connection: PostgresConnection) {
        lock.withLock {
            if let cancel = cancels.removeValue(forKey: ObjectIdentifier(connection)) { PQfreeCancel(cancel) }
        }
    }

    /// Runs `commit` (which sends COMMIT) with the state `.inFlight`, then `.committed` when it returned, or
    /// back to what it was when it threw (the server answered with an error: it rolled back).
    public static func committing(_ commit: () throws -> Void) throws {
        let before: CommitState = lock.withLock {
            defer { state = .inFlight }
            return state
        }
        do {
            try commit()
            lock.withLock { state = .committed }
        } catch {
            lock.withLock { state = before }
            throw error
        }
    }
}
