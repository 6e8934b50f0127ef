import Foundation

extension Store {
    /// Catches up with commits made by other stores, connections or processes on the same file: cached
    /// results and object values are read again on their next use, and observers are told. Returns
    /// whether anything had changed.
    ///
    /// Reads that touch the file always see the last commit; what `refresh()` renews is what was already
    /// read (a counted `Results`, an object's loaded values). Each `write` refreshes first on its own,
    /// and while observers are registered the store looks for other commits a few times a second.
    ///
    /// Observers have been told of what it found (by this call or by the store's own look) when it returns, unless
    /// another thread was calling observers at that moment: that thread tells them next, in order.
    /// Inside a write it only catches up: the write's observers hear of it at commit.
    @discardableResult
    public func refresh() throws -> Bool {
        // In memory nobody else commits: nothing to catch up with (and no need for the lock, which the thread that left
        // a `WriteTransaction`'s write parked could not take).
        guard readers != nil else { return false }
        if writeLock.enterIfHeldByCurrentThread() {
            defer { writeLock.unlock() }
            let changed = try catchUpWithOtherConnections()
            if changed, writeOpen { pendingChanges.possiblyChanged.formUnion(schema.tableTypes.map(\.name)) }
            return changed
        }
        if readers?.isInSnapshot() == true {
            // Inside `read { }` observers are told on another thread anyway (`notifyObservers`), so this refresh does not
            // wait for `refreshLock`: it would wait holding the read's pooled connection, while the thread delivering
            // under that lock may need one for a results observer. Four reads refreshing so hung the store for good.
            let changed = try writeLock.withLock { try catchUpWithOtherConnections() }
            if changed { notifyObservers(ChangeSet(possiblyChanged: Set(schema.tableTypes.map(\.name)))) }
            return changed
        }
        // Refused before waiting for `refreshLock`: another thread's refresh may hold it while it waits for the write
        // this thread left parked, and only this thread's `commit()` would end that wait.
        try writeLock.refuseIfParkedHere()
        return try refreshLock.withLock {
            let changed = try writeLock.withLock { try catchUpWithOtherConnections() }
            if changed { notifyObservers(ChangeSet(possiblyChanged: Set(schema.tableTypes.map(\.name)))) }
            return changed
        }
    }

    /// Like `refresh()`, but gives up at once when another thread is writing (that write will catch up).
    func pollOtherConnections() {
        guard refreshLock.try() else { return }
        defer { refreshLock.unlock() }
        guard writeLock.tryLock() else { return }
        let changed = (try? catchUpWithOtherConnections()) ?? false
        writeLock.unlock()
        if changed { notifyObservers(ChangeSet(possiblyChanged: Set(schema.tableTypes.map(\.name)))) }
    }

    /// Whether another connection committed since the last look (PRAGMA data_version); bumps the
    /// generation when so. Needs the write lock.
    func catchUpWithOtherConnections() throws -> Bool {
        guard readers != nil else { return false }
        let version = try connection.dataVersion()
        guard version != lastDataVersion else { return false }
        lastDataVersion = version
        bumpGeneration()
        checkRecordedVersion()
        return true
    }

    /// Notes (in `fileSchemaProblem`) whether the file still records this store's family and version; another
    /// connection (a migrator) may have upgraded it. Needs the write lock.
    func checkRecordedVersion() {
        switch Self.recordedSchema(
            on: connection, family: schema.family, version: schema.version, doing: "nothing was written")
        {
        case .matches: fileSchemaProblem = nil
        case .differs(let problem): fileSchemaProblem = problem
        case .unreadable: break  // a table being rebuilt, a damaged file: the write's own statements will say why
        }
    }

    /// What a connection finds the file recording, against the schema a store was opened with.
    enum RecordedSchemaCheck {
        case matches
        /// Another family or version: the message says so, and that `doing`.
        case differs(String)
        /// `_urna_schema` cannot be read now.
        case unreadable
    }

    static func recordedSchema(on c: Connection, family: String, version: Int, doing: String) -> RecordedSchemaCheck {
        let rows = try? c.rows("SELECT family, version FROM \"\(StorageLayout.schemaTable)\" WHERE id = 1")
        guard let row = rows?.first, row.count == 2, case .text(let recorded) = row[0], case .integer(let v) = row[1]
        else { return .unreadable }
        if recorded == family, v == Int64(version) { return .matches }
        return .differs(
            "\(c.path) is now at \(recorded) version \(v) (another connection migrated it), but this store "
                + "was opened with \(family) version \(version): \(doing); open the file again with the schema of version \(v)"
        )
    }
}
