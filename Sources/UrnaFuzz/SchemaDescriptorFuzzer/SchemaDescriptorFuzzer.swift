// libFuzzer target for `SchemaDescriptor.decode`: every descriptor it accepts must re-encode to the same
// schema and must be creatable, i.e. validation lets through no name or shape that SQLite refuses.
// Built by Sources/UrnaFuzz/run-fuzzers.sh into the UrnaStore module; not part of any SwiftPM target.
//
// Input: byte 0 bit 0 = the rest is only the "types" array (wrapped as family "fuzz", version 1), so
// mutations spend their time on types and properties; otherwise the rest is the whole descriptor.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSchemaDescriptor(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    var text = String(decoding: input.rest(), as: UTF8.self)
    if mode & 1 != 0 { text = "{\"family\": \"fuzz\", \"version\": 1, \"types\": \(text)}" }

    let schema: Schema
    do {
        schema = try SchemaDescriptor.decode(text)
    } catch is StoreError {
        return 0  // not a descriptor
    } catch is SchemaError {
        return 0  // a descriptor of an invalid schema
    } catch {
        fuzzInvariant(false, "decode threw \(type(of: error)): \(error)")
        return 0
    }
    fuzzInvariant(schema.problems().isEmpty, "decode accepted a schema with problems: \(schema.problems())")

    // What a file records about itself must read back as the same schema, with the same checksum.
    let encoded = SchemaDescriptor.encode(schema)
    do {
        let again = try SchemaDescriptor.decode(encoded)
        fuzzInvariant(again == schema, "the schema changed through encode/decode:\n\(encoded)")
        fuzzInvariant(
            SchemaDescriptor.checksum(again) == SchemaDescriptor.checksum(schema), "checksum changed:\n\(encoded)")
    } catch {
        fuzzInvariant(false, "the encoded descriptor does not decode: \(error)\n\(encoded)")
    }

    // A valid schema must become tables: an SQLite error here means validation let something through.
    do {
        let store = try Store.inMemory(schema: schema)
        let tables = try store.connection.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table'")
        let listTables = schema.tableTypes.reduce(0) { sum, type in
            sum + type.properties.filter { if case .list = $0.type { !$0.ignored } else { false } }.count
        }
        let expected = schema.tableTypes.count + listTables + 2
        fuzzInvariant(Int(tables) == expected, "\(tables) tables for \(expected) expected:\n\(encoded)")
        let recorded = try Store.recordedSchema(in: store.connection)
        fuzzInvariant(recorded == schema, "the recorded schema differs:\n\(encoded)")
    } catch {
        fuzzInvariant(false, "a valid schema could not be created: \(error)\n\(encoded)")
    }
    return 0
}
