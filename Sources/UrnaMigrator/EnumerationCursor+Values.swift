import CSQLite
import Foundation
import UrnaStore

/// The cursor's value slots: whether a slot already holds a value (`carry`), and handing a slot to SQLite
/// (xColumn).
extension EnumerationCursor {
    /// Whether the slot holds exactly `a` (the same bytes: not just an equal value).
    @inline(__always) static func identical(_ a: SQLValue, _ b: UnsafeMutablePointer<SQLValue>) -> Bool {
        switch a {
        case .text(let x):
            guard case .text(let y) = b.pointee else { return false }
            // The same storage (the same literal, or equal small strings) holds the same bytes.
            if unsafeBitCast(x, to: (UInt, UInt).self) == unsafeBitCast(y, to: (UInt, UInt).self) { return true }
            let n = x.utf8.count
            guard n == y.utf8.count else { return false }
            if n == 0 { return true }
            var a = x
            var b = y
            return a.withUTF8 { p in b.withUTF8 { q in memcmp(p.baseAddress!, q.baseAddress!, n) == 0 } }
        case .integer(let x): if case .integer(let y) = b.pointee { return x == y } else { return false }
        case .null: if case .null = b.pointee { return true } else { return false }
        case .real(let x):
            if case .real(let y) = b.pointee { return x.bitPattern == y.bitPattern } else { return false }
        case .blob(let x): if case .blob(let y) = b.pointee { return x == y } else { return false }
        }
    }

    /// xColumn: value i of the current new object (untouched values straight from the old row).
    func column(_ i: Int, into context: OpaquePointer) {
        guard let values = currentValues, let state = currentState, i < width else {
            sqlite3_result_null(context)
            return
        }
        if i < 64 && state.pointee.loadedMask & (1 << UInt64(i)) == 0 {
            sqlite3_result_value(context, sqlite3_column_value(select.handle, rowColumn[i]))
            return
        }
        if case .text = values[i] {
            // The string is moved out of its slot and back (no reference counting); SQLite copies its
            // bytes into its own result register (reused row after row).
            let moved = (values + i).move()
            guard case .text(var s) = moved else {
                (values + i).initialize(to: moved)
                return
            }
            s.withUTF8 { buf in
                if let p = buf.baseAddress, buf.count > 0 {
                    sqlite3_result_text(
                        context, UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self), Int32(buf.count),
                        rowStatementTransient)
                } else {
                    sqlite3_result_text(context, emptyCString, 0, rowStatementStatic)
                }
            }
            (values + i).initialize(to: .text(s))
            return
        }
        switch values[i] {
        case .null: sqlite3_result_null(context)
        case .integer(let n): sqlite3_result_int64(context, n)
        case .real(let d): sqlite3_result_double(context, d)
        case .text: break  // handled above
        case .blob(let b):
            b.withUnsafeBytes { buf in
                let p = arena.copy(
                    UnsafeBufferPointer(start: buf.baseAddress?.assumingMemoryBound(to: UInt8.self), count: buf.count))
                sqlite3_result_blob(context, p, Int32(buf.count), nil)
            }
        }
    }
}

/// A C empty string that never moves (SQLite keeps a pointer to a static result).
nonisolated(unsafe) private let emptyCString: UnsafeMutablePointer<CChar> = {
    let p = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    p.initialize(to: 0)
    return p
}()
