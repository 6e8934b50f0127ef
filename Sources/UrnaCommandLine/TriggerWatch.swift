import CSQLite
import Foundation
import UrnaStore

/// Names the triggers that fire on a connection while it is watched: SQLite's statement trace reports each
/// trigger program as it starts ("-- TRIGGER name"). Made before the statement is prepared, since SQLite writes
/// that report into a statement's program only when tracing is on as it is prepared.
final class TriggerWatch {
    /// The triggers that ran, in the order they first ran.
    private(set) var fired: [String] = []
    /// Held, not only its handle: the trace is removed in `deinit`, which must not come after the connection
    /// has closed the handle (Swift may release a local connection after its last use, before this watch).
    private let connection: Connection

    init(_ connection: Connection) {
        self.connection = connection
        sqlite3_trace_v2(
            connection.handle, UInt32(SQLITE_TRACE_STMT),
            { _, context, _, text in
                guard let context, let text else { return 0 }
                let line = String(cString: text.assumingMemoryBound(to: CChar.self))
                guard line.hasPrefix(TriggerWatch.prefix) else { return 0 }
                let watch = Unmanaged<TriggerWatch>.fromOpaque(context).takeUnretainedValue()
                let name = String(line.dropFirst(TriggerWatch.prefix.count))
                if !watch.fired.contains(name) { watch.fired.append(name) }
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { sqlite3_trace_v2(connection.handle, 0, nil, nil) }

    static let prefix = "-- TRIGGER "
}
