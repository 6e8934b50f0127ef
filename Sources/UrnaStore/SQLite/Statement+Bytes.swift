import CSQLite

extension Statement {
    /// Binds UTF-8 bytes as text without making a String; SQLite copies them, so `bytes` may change or go
    /// away before the statement steps. Empty bytes bind the empty text, never NULL.
    public func bindText(bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        let rc: Int32
        if let base = bytes.baseAddress, bytes.count > 0 {
            rc = sqlite3_bind_text(
                handle, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), sqliteTransient)
        } else {
            rc = sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
        }
        if rc != SQLITE_OK { throw failure(rc) }
    }
}
