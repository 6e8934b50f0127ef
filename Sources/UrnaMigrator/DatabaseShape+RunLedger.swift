import UrnaStore

extension DatabaseShape {
    /// This shape without the columns the migrator's run ledger adds to `_urna_history` (`outcome`, `message`,
    /// `app_version`), so a file that went through `urna migrate` compares equal to a fresh file of its version.
    /// Other checks of a file's shape (an import's check before it commits) use it as the migrator's own do.
    ///
    /// ```swift
    /// let expected = try DatabaseShape.expected(for: schema)
    /// let actual = try DatabaseShape.read(connection).withoutRunLedgerColumns(expected: expected)
    /// actual.differences(from: expected)  // [] for a migrated file
    /// ```
    public func withoutRunLedgerColumns(expected: DatabaseShape) -> DatabaseShape {
        RunLedger.withoutLedgerColumns(self, expected: expected)
    }
}
