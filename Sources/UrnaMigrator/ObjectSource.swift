import CSQLite
import Foundation
import UrnaStore

/// An eponymous virtual table per type (`urna_rows_<Type>`) through which one INSERT pulls the new
/// objects of an enumeration: its cursor steps the old rows and runs the closure (`xNext`), then
/// hands the new values to the INSERT (`xColumn`), values the closure didn't touch straight from the
/// old row. No statement per object, no bound parameters: SQLite does the writing in one statement,
/// as hand-written SQL would.
final class ObjectSource {
    let name: String
    let width: Int
    /// The enumeration the table serves right now.
    var cursor: EnumerationCursor?
    private let connection: Connection

    init(typeName: String, width: Int, connection: Connection) throws {
        name = "urna_rows_" + typeName
        self.width = width
        self.connection = connection
        let rc = sqlite3_create_module_v2(
            connection.handle, name, objectSourceModule, Unmanaged.passUnretained(self).toOpaque(), nil)
        guard rc == SQLITE_OK else {
            throw SQLiteError(code: rc, message: "cannot register the virtual table \(name)")
        }
    }

    /// Unregisters the table: no new statement can connect to it. SQLite may disconnect the table
    /// later (it defers that), reading the module then: the module is never freed (see below).
    deinit {
        sqlite3_create_module_v2(connection.handle, name, nil, nil, nil)
    }

    /// The column list the virtual table declares.
    var declaration: String {
        "CREATE TABLE x(" + (0..<max(width, 1)).map { "c\($0)" }.joined(separator: ", ") + ")"
    }

    static func makeModule() -> sqlite3_module {
        var m = sqlite3_module()
        m.iVersion = 1
        m.xConnect = { db, aux, _, _, ppVTab, _ in
            let source = Unmanaged<ObjectSource>.fromOpaque(aux!).takeUnretainedValue()
            let rc = sqlite3_declare_vtab(db, source.declaration)
            guard rc == SQLITE_OK else { return rc }
            let raw = UnsafeMutableRawPointer.allocate(byteCount: objectSourceVTabSize + 8, alignment: 8)
            raw.initializeMemory(as: UInt8.self, repeating: 0, count: objectSourceVTabSize)
            raw.storeBytes(of: aux!, toByteOffset: objectSourceVTabSize, as: UnsafeMutableRawPointer.self)
            ppVTab!.pointee = raw.assumingMemoryBound(to: sqlite3_vtab.self)
            return SQLITE_OK
        }
        m.xBestIndex = { _, info in
            info!.pointee.estimatedCost = 1e9
            return SQLITE_OK
        }
        m.xDisconnect = { vtab in
            UnsafeMutableRawPointer(vtab!).deallocate()
            return SQLITE_OK
        }
        m.xOpen = { vtab, ppCursor in
            let raw = UnsafeMutableRawPointer.allocate(byteCount: objectSourceCursorSize + 16, alignment: 8)
            raw.initializeMemory(as: UInt8.self, repeating: 0, count: objectSourceCursorSize + 16)
            let aux = UnsafeMutableRawPointer(vtab!).load(
                fromByteOffset: objectSourceVTabSize, as: UnsafeMutableRawPointer.self)
            raw.storeBytes(of: aux, toByteOffset: objectSourceCursorSize, as: UnsafeMutableRawPointer.self)
            ppCursor!.pointee = raw.assumingMemoryBound(to: sqlite3_vtab_cursor.self)
            return SQLITE_OK
        }
        m.xClose = { cursor in
            UnsafeMutableRawPointer(cursor!).deallocate()
            return SQLITE_OK
        }
        m.xFilter = { cursor, _, _, _, _ in
            // The enumeration is fixed for the whole scan (`fill` keeps it alive until the INSERT ends):
            // the other callbacks reach it through the C cursor, with no reference counting.
            let raw = UnsafeMutableRawPointer(cursor!)
            let source = Unmanaged<ObjectSource>.fromOpaque(
                raw.load(fromByteOffset: objectSourceCursorSize, as: UnsafeMutableRawPointer.self)
            ).takeUnretainedValue()
            guard let enumeration = source.cursor else { return SQLITE_ERROR }
            raw.storeBytes(
                of: Unmanaged.passUnretained(enumeration).toOpaque(), toByteOffset: objectSourceCursorSize + 8,
                as: UnsafeMutableRawPointer.self)
            return enumeration.advance()
        }
        m.xNext = { cursor in
            objectSourceEnumeration(cursor)?._withUnsafeGuaranteedRef { $0.advance() } ?? SQLITE_ERROR
        }
        m.xEof = { cursor in
            (objectSourceEnumeration(cursor)?._withUnsafeGuaranteedRef { $0.isDone } ?? true) ? 1 : 0
        }
        m.xColumn = { cursor, context, i in
            objectSourceEnumeration(cursor)?._withUnsafeGuaranteedRef { $0.column(Int(i), into: context!) }
            return SQLITE_OK
        }
        m.xRowid = { cursor, out in
            out!.pointee = objectSourceEnumeration(cursor)?._withUnsafeGuaranteedRef { $0.emitted } ?? 0
            return SQLITE_OK
        }
        return m
    }
}

/// The module every object source registers (its callbacks find their source through the client
/// data). Allocated once and never freed: SQLite reads it after the module is unregistered, when it
/// disconnects the table (SQLite 3.40 even calls the module's xDestroy before that last
/// xDisconnect), so a module freed with its source was a use after free that crashed now and then.
nonisolated(unsafe) private let objectSourceModule: UnsafeMutablePointer<sqlite3_module> = {
    let m = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
    m.initialize(to: ObjectSource.makeModule())
    return m
}()

// The C callbacks find their Swift objects through pointers stored right after the C structs: the
// vtab holds its ObjectSource; the cursor holds the ObjectSource, then (from xFilter on) the enumeration.
private let objectSourceVTabSize = MemoryLayout<sqlite3_vtab>.stride
private let objectSourceCursorSize = MemoryLayout<sqlite3_vtab_cursor>.stride

@inline(__always)
private func objectSourceEnumeration(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> Unmanaged<
    EnumerationCursor
>? {
    guard
        let raw = UnsafeMutableRawPointer(cursor!).load(
            fromByteOffset: objectSourceCursorSize + 8, as: UnsafeMutableRawPointer?.self)
    else { return nil }
    return Unmanaged<EnumerationCursor>.fromOpaque(raw)
}
