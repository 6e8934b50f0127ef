import Foundation
import UrnaPostgres
import UrnaStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// SIGINT, SIGTERM and SIGHUP stop the command at once and leave nothing behind: the signals are blocked in every
/// thread and taken by one watcher thread (`sigwait`, so nothing runs in a signal handler), which
/// interrupts every SQLite connection; the running statement fails, the command's error path rolls its
/// transaction back and removes the files it created, and the process ends with "interrupted: nothing was
/// changed" and 130 (SIGINT), 143 (SIGTERM) or 129 (SIGHUP). Should that path not end within `grace` (a write blocked
/// on a FIFO nobody reads), the watcher removes the registered files itself and ends the process.
enum Interruption {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var received: Int32 = 0
    /// How long the normal error path gets before the watcher ends the process itself.
    static let grace: Duration = .seconds(3)
    static let message = "interrupted: nothing was changed"

    nonisolated(unsafe) private static var kept = 0

    /// Counts a file a command that is not one transaction (`download`) put in place, whole, before any signal:
    /// an interrupted run keeps it and says so instead of "nothing was changed".
    static func noteKeptFile() {
        lock.lock()
        kept += 1
        lock.unlock()
    }

    /// What an interrupted command says: "nothing was changed", unless a COMMIT already went to PostgreSQL or
    /// files were already put in place.
    static var outcome: String {
        lock.lock()
        let keptFiles = kept
        lock.unlock()
        return switch PostgresInterrupt.commitState {
        case .none:
            keptFiles == 0
                ? message
                : "interrupted: the \(keptFiles) file\(keptFiles == 1 ? "" : "s") put in place before the signal "
                    + "\(keptFiles == 1 ? "is" : "are") kept, whole; nothing else was changed"
        case .inFlight:
            "interrupted while PostgreSQL was committing the change: it may or may not have been committed "
                + "(check with urna status --db URL, or query it)"
        case .committed: "interrupted after the change was committed to PostgreSQL: it is kept"
        }
    }

    /// The signal received, 0 when none.
    static var signal: Int32 {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Blocks SIGINT, SIGTERM and SIGHUP (before any other thread starts, so every thread inherits it) and starts
    /// the watcher. A signal that was ignored when urna started (SIGHUP under `nohup`, SIGINT for a job started
    /// with `&` by a non-interactive shell) stays ignored: on Linux a blocked signal reaches `sigwait` even when
    /// its disposition is "ignore", so it is left out of both sets.
    static func install() {
        var set = stopSignals()
        guard !isEmpty(set) else { return }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let stopping = set
        let watcher = Thread {
            var caught: Int32 = 0
            var waitSet = stopping
            guard sigwait(&waitSet, &caught) == 0 else { return }
            lock.lock()
            received = caught
            lock.unlock()
            CreatedFiles.markStopping()
            let deadline = ContinuousClock.now + grace
            var rounds = 0
            while ContinuousClock.now < deadline {
                Connection.interruptAll()
                // Each PQcancel opens a connection to the server: once, then once a second.
                if rounds % 100 == 0 { PostgresInterrupt.cancelAll() }
                rounds += 1
                usleep(10_000)
            }
            CreatedFiles.removeAll()
            StandardError.write(outcome + "\n")
            _exit(128 + caught)
        }
        watcher.stackSize = 1 << 18
        watcher.start()
    }

    /// The signals that stop urna: SIGINT, SIGTERM and SIGHUP, less those whose disposition is "ignore" now.
    private static func stopSignals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        // A terminal that closes (an SSH session dropped during a long import) sends SIGHUP, whose default ended
        // the process on the spot: no message, and the import's private new file and its journal left beside
        // the database.
        for signal in [SIGINT, SIGTERM, SIGHUP] where !isIgnored(signal) {
            sigaddset(&set, signal)
        }
        return set
    }

    /// Whether `signal`'s disposition is "ignore" (inherited across exec from `nohup`, `trap '' HUP`, or a
    /// shell that starts a background job).
    static func isIgnored(_ signal: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(signal, nil, &current) == 0 else { return false }
        #if canImport(Glibc)
            let handler = current.__sigaction_handler.sa_handler
        #else
            let handler = current.__sa_handler.sa_handler
        #endif
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    private static func isEmpty(_ set: sigset_t) -> Bool {
        var set = set
        return [SIGINT, SIGTERM, SIGHUP].allSatisfy { sigismember(&set, $0) == 0 }
    }

    /// The exit code of a command that ended after a signal: 128 + the signal, with the message printed;
    /// nil when no signal came, or when the command finished anyway: what it did is then done, and a line says
    /// so (its own closing lines were held back once the signal came).
    static func exitCode(after code: Int32) -> Int32? {
        let s = signal
        guard s != 0 else { return nil }
        guard code != ExitCode.ok else {
            let done =
                PostgresInterrupt.commitState == .committed
                ? outcome : "interrupted after the command had finished: what it did is kept"
            StandardError.write(done + "\n")
            return nil
        }
        StandardError.write(outcome + "\n")
        return 128 + s
    }
}
