import UrnaStore

extension PostgresTransfer {
    /// Copies every row of `t` (created or emptied by TRUNCATE in this transaction) in COPY's binary format when
    /// `CopyBinaryEncoder` writes all its columns, else, or when a value is one the encoder does not vouch for
    /// or the server refuses a value, as text (`copyRows`), which then gives the server's own verdict: the
    /// stored rows are the same either way. The binary attempt runs under a savepoint, emptying the table there
    /// so its rows still go in frozen; a refusal rolls back to it and the text copy starts from the empty table.
    static func copyRowsPreferringBinary(of t: PostgresTable, from sqlite: Connection, to pg: PostgresConnection)
        throws -> Int
    {
        guard let encoder = CopyBinaryEncoder(t) else { return try copyRows(of: t, from: sqlite, to: pg, freeze: true) }
        let savepoint = "urna_binary_copy"
        try pg.execute("SAVEPOINT \(savepoint)")
        // FREEZE needs the table created or emptied in the current subtransaction.
        try pg.execute("TRUNCATE ONLY \(q(t.name))")
        do {
            let n = try copyBinary(of: t, encoder: encoder, from: sqlite, to: pg)
            try pg.execute("RELEASE SAVEPOINT \(savepoint)")
            return n
        } catch let e where fallsBackToText(e) {
            try pg.execute("ROLLBACK TO SAVEPOINT \(savepoint)")
            try pg.execute("TRUNCATE ONLY \(q(t.name))")
            let n = try copyRows(of: t, from: sqlite, to: pg, freeze: true)
            try pg.execute("RELEASE SAVEPOINT \(savepoint)")
            return n
        }
    }

    /// A value the encoder would not vouch for, or one the server refused (data exceptions, a duplicate key in a
    /// refilled table that kept its primary key): the text copy gives the same rows or the server's own message.
    /// Anything else (a cancelled statement, a lost connection, a lock timeout) stops the push as it is.
    static func fallsBackToText(_ error: any Error) -> Bool {
        if error is CopyBinaryEncoder.Refusal { return true }
        guard let e = error as? PostgresError, let state = e.sqlState else { return false }
        return state.hasPrefix("22") || state.hasPrefix("23")
    }

    static func copyBinary(
        of t: PostgresTable, encoder: CopyBinaryEncoder, from sqlite: Connection, to pg: PostgresConnection
    ) throws -> Int {
        let columns = t.columns.map { q($0.name) }.joined(separator: ", ")
        let select = try sqlite.prepare("SELECT \(columns) FROM \(q(t.name))")
        return try pg.copyIn("COPY \(q(t.name)) (\(columns)) FROM STDIN WITH (FORMAT binary, FREEZE)") { w in
            var buffer = CopyBuffer(capacity: 1 << 17)
            CopyBinaryEncoder.header.withUnsafeBytes { buffer.append(contentsOf: $0) }
            while try select.step() {
                try encoder.encodeRow(of: select, into: &buffer)
                if buffer.count >= 1 << 16 {
                    try buffer.withBytes { try w.send($0) }
                    buffer.removeAll()
                }
            }
            CopyBinaryEncoder.trailer.withUnsafeBytes { buffer.append(contentsOf: $0) }
            try buffer.withBytes { try w.send($0) }
        }
    }
}
