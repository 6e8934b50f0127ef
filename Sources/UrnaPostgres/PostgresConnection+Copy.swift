import CPostgreSQL
import Foundation

/// The COPY protocol: rows streamed in (`COPY ... FROM STDIN`) and out (`COPY ... TO STDOUT`).
extension PostgresConnection {
    /// Runs `COPY ... FROM STDIN` and lets `body` write the data through the writer (text format lines).
    /// Returns the number of rows the server stored.
    @discardableResult
    public func copyIn(_ sql: String, _ body: (CopyInWriter) throws -> Void) throws -> Int {
        try startCopy(sql, expecting: PGRES_COPY_IN)
        let writer = CopyInWriter(connection: self)
        do {
            try body(writer)
            try writer.flush()
        } catch {
            _ = PQputCopyEnd(handle, "urna stopped the copy")
            drainResults()
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else { throw lastError(sql: sql) }
        var stored = 0
        var failure: PostgresError?
        while let res = PQgetResult(handle) {
            if PQresultStatus(res) == PGRES_COMMAND_OK {
                stored = Int(String(cString: PQcmdTuples(res))) ?? 0
            } else if failure == nil {
                failure = resultError(res, sql: sql)
            }
            PQclear(res)
        }
        if let failure { throw failure }
        return stored
    }

    /// Runs `COPY ... TO STDOUT` (text format) and hands each row's fields to `row` (nil for NULL).
    public func copyOut(_ sql: String, _ row: ([String?]) throws -> Void) throws {
        try copyOutLines(sql) { try row(CopyText.decodeLine($0)) }
    }

    /// Runs `COPY ... TO STDOUT` and hands each line as the server sent it (newline included, valid only inside
    /// `line`); after an error thrown by `line` the rest is read and dropped, so the connection stays usable.
    public func copyOutLines(_ sql: String, _ line: (UnsafeRawBufferPointer) throws -> Void) throws {
        try startCopy(sql, expecting: PGRES_COPY_OUT)
        var pending: Error?
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let n = PQgetCopyData(handle, &buffer, 0)
            if n == -1 { break }
            if n == -2 { throw lastError(sql: sql) }
            guard let buffer else { continue }
            defer { PQfreemem(buffer) }
            if pending != nil { continue }  // read to the end so the connection stays usable
            let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(n))
            do { try line(bytes) } catch { pending = error }
        }
        var failure: PostgresError?
        while let res = PQgetResult(handle) {
            if PQresultStatus(res) != PGRES_COMMAND_OK, failure == nil { failure = resultError(res, sql: sql) }
            PQclear(res)
        }
        if let pending { throw pending }
        if let failure { throw failure }
    }

    /// Sends a COPY statement and checks the server entered the expected copy mode.
    private func startCopy(_ sql: String, expecting mode: ExecStatusType) throws {
        let r = PQexec(handle, sql)
        defer { PQclear(r) }
        guard PQresultStatus(r) == mode else {
            try check(r, sql: sql)
            throw PostgresError("\(sql) did not start a COPY", database: displayName)
        }
    }

    func putCopyData(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        let ok = bytes.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
        guard ok == 1 else { throw lastError(sql: "COPY") }
    }

    private func drainResults() {
        while let res = PQgetResult(handle) { PQclear(res) }
    }
}
