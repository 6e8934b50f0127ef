import Foundation

/// What changed in observed results (Realm's collection notifications): `deletions` and `modifications`
/// are indices in the results before the change, `insertions` indices in the results after it.
public enum ResultsChange: Sendable, Equatable {
    /// The results when observation began.
    case initial(count: Int)
    /// The results after a commit changed them.
    case update(count: Int, deletions: [Int], insertions: [Int], modifications: [Int])
    /// The query could not be run again (a damaged file, a table migrated away); observation goes on.
    case error(String)
}

/// The last state an observer saw of a query: its keys in order and a fingerprint of each row.
final class ResultsSnapshotter: @unchecked Sendable {
    // `query` is only used, and `keys`/`prints` only touched, while `lock` is held.
    private let query: Results
    private let lock = NSLock()
    private var keys: [SQLValue] = []
    private var prints: [SQLValue: Int] = [:]

    init(_ query: Results) { self.query = query }

    /// Takes the first snapshot.
    func start() throws -> Int {
        try lock.withLock {
            (keys, prints) = try snapshot()
            return keys.count
        }
    }

    /// Compares with a fresh snapshot; nil when nothing the results show changed.
    func next() -> ResultsChange? {
        lock.withLock {
            do {
                let (newKeys, newPrints) = try snapshot()
                let oldIndex = Dictionary(
                    keys.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
                let newSet = Set(newKeys)
                let deletions = keys.enumerated().filter { !newSet.contains($0.element) }.map(\.offset)
                let insertions = newKeys.enumerated().filter { oldIndex[$0.element] == nil }.map(\.offset)
                let modifications = keys.enumerated().filter { k in
                    newSet.contains(k.element) && newPrints[k.element] != prints[k.element]
                }.map(\.offset)
                let moved = deletions.isEmpty && insertions.isEmpty && newKeys != keys
                keys = newKeys
                prints = newPrints
                if deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && !moved { return nil }
                return .update(
                    count: newKeys.count, deletions: deletions, insertions: insertions, modifications: modifications)
            } catch {
                return .error("\(error)")
            }
        }
    }

    private func snapshot() throws -> ([SQLValue], [SQLValue: Int]) {
        let columns =
            ["t0.\(Identifier.quoted(query.type.keyColumn))"]
            + query.type.storedProperties.map { "t0.\(Identifier.quoted($0.name))" }
        let (sql, bindings) = try query.selectSQL(columns: columns.joined(separator: ", "))
        return try query.store.reading { c in
            let s = try c.prepare(sql)
            try s.bind(bindings)
            var keys: [SQLValue] = []
            var prints: [SQLValue: Int] = [:]
            while try s.step() {
                let key = s.value(at: 0)
                var h = Hasher()
                for i in 1..<s.columnCount { h.combine(s.value(at: i)) }
                keys.append(key)
                prints[key] = h.finalize()
            }
            return (keys, prints)
        }
    }
}

extension Results {
    /// Calls `callback` with `.initial` now, then with the indices that changed after every commit that
    /// changed these results (from this store, another store or process: see `Store.observe`). Keep the
    /// token to keep observing.
    ///
    /// ```swift
    /// let token = try dogs.observe { change in
    ///     if case .update(_, let deletions, let insertions, let modifications) = change { ... }
    /// }
    /// ```
    /// Throws `StoreError.observeInWriteTransaction` inside a write (Realm refuses the same).
    public func observe(_ callback: @escaping @Sendable (ResultsChange) -> Void) throws -> ObservationToken {
        guard !store.isInWriteTransaction else { throw StoreError.observeInWriteTransaction }
        let snapshotter = ResultsSnapshotter(copy())
        callback(.initial(count: try snapshotter.start()))
        return store.observeCatchingUp { _ in
            if let change = snapshotter.next() { callback(change) }
        }
    }

    /// The changes of these results as an async sequence, starting with `.initial`. Each task iterating it gets its
    /// own `.initial` and every update after it (see `ChangeStream`); the sequence keeps the store alive.
    public var changes: ChangeStream<AsyncThrowingStream<ResultsChange, Error>> {
        let query = SharedQuery(copy())
        return ChangeStream {
            AsyncThrowingStream { continuation in
                do {
                    let token = try query.results.observe { continuation.yield($0) }
                    continuation.onTermination = { _ in token.invalidate() }
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }
    }

    /// The same query as a new, independent instance (its caches its own). Without the owner's handle: the copy
    /// runs on committing threads, and the handle belongs to the task that read it.
    func copy() -> Results {
        Results(
            store: store, type: type, scope: scope, predicate: predicate, sorts: sortDescriptors, limit: limitCount,
            owner: owner, distinct: distinctKeyPaths)
    }
}

extension TypedResults {
    /// See `Results.observe`.
    public func observe(_ callback: @escaping @Sendable (ResultsChange) -> Void) throws -> ObservationToken {
        try results.observe(callback)
    }

    /// See `Results.changes`.
    public var changes: ChangeStream<AsyncThrowingStream<ResultsChange, Error>> { results.changes }
}

/// A copy of a query that a `ChangeStream` may start observations of from any task: `observe` only reads the copy's
/// immutable description (store, type, scope, predicate, sorts) and makes a copy of its own, never its caches.
private struct SharedQuery: @unchecked Sendable {
    let results: Results
    init(_ results: Results) { self.results = results }
}
