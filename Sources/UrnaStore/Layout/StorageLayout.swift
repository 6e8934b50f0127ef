import Foundation

/// The storage contract in one place: how a schema becomes tables, columns, indexes and list tables.
///
/// - One table per (non-embedded) type, named as the type; one column per stored property, named as
///   the property; required -> NOT NULL with a DEFAULT; primary key -> PRIMARY KEY; indexed -> an index
///   named `<Type>_<property>_idx`.
/// - A type without a primary key gets a hidden `_id INTEGER PRIMARY KEY`.
/// - A to-one link is a column holding the target's key, with a FOREIGN KEY (ON DELETE SET NULL).
/// - A list is a table `<Type>_<property>(owner, position, target)`, cascading on both sides.
/// - Inverse links (linkingObjects) are never stored.
public enum StorageLayout {
    /// The table that records the file's schema family, version and full descriptor.
    public static let schemaTable = "_urna_schema"
    /// The table of applied migration steps.
    public static let historyTable = "_urna_history"
    /// The importer's table of values older than their object's generation (type, key, property, generatedAt):
    /// created by the first import that needs it, absent otherwise; not part of any family's schema.
    public static let fieldGenerationsTable = "_urna_field_generations"
    /// The importer's table of goods whose candidacy no import has brought yet (an asset file imported before its
    /// consulta_cand file, in another run): each is attached by the first import that brings its candidacy.
    /// Created when needed; not part of any family's schema.
    public static let pendingGoodsTable = "_urna_pending_goods"
    /// urna's own tables beside a family's, in the order a copy between backends carries them.
    public static let metadataTables = [schemaTable, historyTable, fieldGenerationsTable, pendingGoodsTable]
    /// Store tables a file may or may not have (a shape check neither wants nor refuses them).
    public static let optionalMetadataTables: Set<String> = [fieldGenerationsTable, pendingGoodsTable]
    /// The pending goods table: the good as the importer's JSON (its key), where it was read, the source row.
    public static let pendingGoodsSQL = """
        CREATE TABLE IF NOT EXISTS "\(pendingGoodsTable)" ("payload" TEXT NOT NULL PRIMARY KEY, "file" TEXT NOT NULL, \
        "line" INTEGER NOT NULL, "original" BLOB) WITHOUT ROWID
        """
    /// The field generations table (keys as text, whatever the type's key type).
    public static let fieldGenerationsSQL = """
        CREATE TABLE IF NOT EXISTS "\(fieldGenerationsTable)" ("type" TEXT NOT NULL, "key" TEXT NOT NULL, \
        "property" TEXT NOT NULL, "generatedAt" TEXT, PRIMARY KEY ("type", "key", "property")) WITHOUT ROWID
        """

    /// Name of the table holding a list property.
    public static func listTable(type: String, property: String) -> String { "\(type)_\(property)" }

    /// Name of the index of an indexed property.
    public static func indexName(type: String, property: String) -> String { "\(type)_\(property)_idx" }

    /// The SQL column type of a property (links take their target's key type).
    public static func columnType(_ p: Property, in schema: Schema) -> String {
        if case .link(let target) = p.type { return keyColumnType(of: target, in: schema) }
        return p.type.sqlType
    }

    /// The SQL type of a type's identity column.
    public static func keyColumnType(of type: String, in schema: Schema) -> String {
        guard let pk = schema[type: type]?.primaryKey else { return "INTEGER" }
        return pk.type.sqlType
    }

    /// A SQL literal for a default value (only ever built from validated descriptor defaults).
    public static func literal(_ v: SQLValue) -> String {
        switch v {
        case .null: "NULL"
        case .integer(let i): String(i)
        case .real(let d): d.isFinite ? String(d) : "0.0"
        case .text(let s): "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let b): "X'" + b.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// CREATE TABLE for one type, with its columns in declaration order.
    public static func createTableSQL(_ t: ObjectSchema, in schema: Schema, tableName: String? = nil) -> String {
        var cols: [String] = []
        var foreignKeys: [String] = []
        if t.primaryKey == nil { cols.append("\(Identifier.quoted(ObjectSchema.rowIdColumn)) INTEGER PRIMARY KEY") }
        for p in t.storedProperties {
            var c = "\(Identifier.quoted(p.name)) \(columnType(p, in: schema))"
            if p.primaryKey {
                c += p.type.isInteger ? " PRIMARY KEY" : " NOT NULL PRIMARY KEY"
            } else if !p.optional {
                c += " NOT NULL DEFAULT " + literal(ValueCodec.encode(p.effectiveDefault, as: p.type, schema: schema))
            }
            cols.append(c)
            if case .link(let target) = p.type, let tt = schema[type: target] {
                foreignKeys.append(
                    "FOREIGN KEY (\(Identifier.quoted(p.name))) REFERENCES \(Identifier.quoted(target))(\(Identifier.quoted(tt.keyColumn))) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED"
                )
            }
        }
        let name = tableName ?? t.name
        return "CREATE TABLE \(Identifier.quoted(name)) (\n  " + (cols + foreignKeys).joined(separator: ",\n  ") + "\n)"
    }

    /// CREATE TABLE for a list property's table.
    public static func createListTableSQL(owner t: ObjectSchema, property p: Property, target: String, in schema: Schema) -> String {
        let table = listTable(type: t.name, property: p.name)
        let ownerType = keyColumnType(of: t.name, in: schema)
        let targetType = keyColumnType(of: target, in: schema)
        let targetKey = schema[type: target]?.keyColumn ?? ObjectSchema.rowIdColumn
        return """
            CREATE TABLE \(Identifier.quoted(table)) (
              "owner" \(ownerType) NOT NULL REFERENCES \(Identifier.quoted(t.name))(\(Identifier.quoted(t.keyColumn))) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
              "position" INTEGER NOT NULL,
              "target" \(targetType) NOT NULL REFERENCES \(Identifier.quoted(target))(\(Identifier.quoted(targetKey))) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
              PRIMARY KEY ("owner", "position")
            ) WITHOUT ROWID
            """
    }

    /// Every statement that creates the tables, indexes and views of `schema` (not the metadata tables).
    public static func createSQL(for schema: Schema) -> [String] {
        var out: [String] = []
        for t in schema.tableTypes { out.append(createTableSQL(t, in: schema)) }
        for t in schema.tableTypes { out += indexSQL(for: t, in: schema) }
        // A schema decoded from a file knows its views by checksum only (no SQL): those come from code.
        out += schema.views.filter { !$0.sql.isEmpty }.map(\.createSQL)
        return out
    }

    /// The list tables and indexes of one type (run after every type's table exists).
    public static func indexSQL(for t: ObjectSchema, in schema: Schema) -> [String] {
        var out: [String] = []
        for p in t.properties where !p.ignored {
            if case .list(let target) = p.type {
                out.append(createListTableSQL(owner: t, property: p, target: target, in: schema))
                let lt = listTable(type: t.name, property: p.name)
                out.append("CREATE INDEX \(Identifier.quoted(lt + "_target_idx")) ON \(Identifier.quoted(lt))(\"target\")")
            }
        }
        for p in t.storedProperties where !p.primaryKey {
            var wantsIndex = p.indexed
            if case .link = p.type { wantsIndex = true }  // inverse lookups and ON DELETE SET NULL need it
            if wantsIndex {
                out.append(
                    "CREATE INDEX \(Identifier.quoted(indexName(type: t.name, property: p.name))) ON \(Identifier.quoted(t.name))(\(Identifier.quoted(p.name)))"
                )
            }
        }
        return out
    }

    /// SQL that creates the metadata tables if missing.
    public static let metadataSQL = """
        CREATE TABLE IF NOT EXISTS "\(schemaTable)" (
          "id" INTEGER PRIMARY KEY CHECK ("id" = 1),
          "family" TEXT NOT NULL,
          "version" INTEGER NOT NULL,
          "descriptor" TEXT NOT NULL,
          "updated_at" TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS "\(historyTable)" (
          "id" INTEGER PRIMARY KEY,
          "family" TEXT NOT NULL,
          "from_version" INTEGER NOT NULL,
          "to_version" INTEGER NOT NULL,
          "applied_at" TEXT NOT NULL,
          "duration_ms" INTEGER NOT NULL,
          "objects_touched" INTEGER NOT NULL,
          "descriptor_checksum" TEXT NOT NULL
        );
        """
}
