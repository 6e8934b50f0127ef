import Foundation
import PostgresTestSupport
import Testing
import UrnaPostgres
import UrnaSchemas
import UrnaStore

/// A real PostgreSQL server, or the test reports itself skipped with the reason (a failure under
/// URNA_REQUIRE_POSTGRES=1, which `make test` sets when it installed the server).
func postgresClusterOrSkip() throws -> PostgresTestCluster {
    let (cluster, reason) = try PostgresTestCluster.sharedIfAvailable()
    guard let cluster else { try Test.cancel(Comment(rawValue: reason)) }
    return cluster
}

@Suite("The storage contract on PostgreSQL: every property type, both directions, all-or-nothing", .serialized)
struct PostgresTransferTests {
    static let schema = try! Schema(
        family: "kinds", version: 3,
        types: [
            ObjectSchema(
                "Place", embedded: true, [Property("city", .string, default: ""), Property("zip", .int32, default: 0)]),
            ObjectSchema("Tag", [Property("name", .string, primaryKey: true)]),
            ObjectSchema(
                "Thing",
                [
                    Property("id", .uuid, primaryKey: true),
                    Property("flag", .bool, default: true),
                    Property("tiny", .int8, default: 0),
                    Property("small", .int16, default: 0),
                    Property("medium", .int32, default: 0),
                    Property("big", .int64, default: 0),
                    Property("single", .float, default: 0),
                    Property("real", .double, default: 0),
                    Property("text", .string, default: "none"),
                    Property("when", .date, optional: true),
                    Property("bytes", .data, optional: true),
                    Property("money", .decimal(scale: 2), default: 0),
                    Property("place", .embedded("Place"), optional: true),
                    Property("main", .link("Tag")),
                    Property("tags", .list("Tag")),
                    Property("note", .string, optional: true, indexed: true),
                ]),
            ObjectSchema("Log", [Property("line", .string, default: "")]),  // hidden _id identity
        ])

    static let awkward = "tab\there\nnewline \\ backslash 'quote' \"dq\" ção ☃ \u{1}"

    static func makeFile(_ path: String) throws {
        let store = try Store(path: path, schema: schema)
        try store.write {
            for name in ["a", "b", "c"] { try store.create("Tag", value: ["name": name]) }
            try store.create(
                "Thing",
                value: [
                    "id": UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, "flag": false, "tiny": -128,
                    "small": 32767, "medium": Int64(Int32.min), "big": Int64.max, "single": 0.1, "real": -1.0e-300,
                    "text": awkward, "when": Date(timeIntervalSince1970: -86_400 * 365.25 * 30 + 0.123),
                    "bytes": Data([0, 1, 92, 255, 10, 9]), "money": Decimal(string: "-12345678901234.56")!,
                    "place": ["city": "Belo Horizonte", "zip": 30_000], "main": "b", "note": "x",
                ])
            try store.create(
                "Thing",
                value: [
                    "id": UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, "real": Double.infinity,
                    "money": Decimal(string: "0.05")!,
                ])
            for i in 0..<5 { try store.create("Log", value: ["line": "line \(i)"]) }
        }
        try store.connection.execute(
            "INSERT INTO Thing_tags(owner, position, target) VALUES ('6f9619ff-8b86-d011-b42d-00c04fc964ff', 0, 'c'), ('6f9619ff-8b86-d011-b42d-00c04fc964ff', 1, 'a')"
        )
    }

    /// A new folder for a test's files (the test removes it).
    static func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func rows(_ c: Connection, _ table: String) throws -> [[SQLValue]] {
        try c.rows("SELECT * FROM \(Identifier.quoted(table))").sorted { "\($0)" < "\($1)" }
    }

    @Test("SQLite -> PostgreSQL -> SQLite gives back every value exactly; psql sees PostgreSQL's own types")
    func everyTypeRoundTrips() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "kinds")
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = dir.appendingPathComponent("kinds.sqlite").path
        try Self.makeFile(original)
        let source = try Connection(path: original)
        let conn = try PostgresConnection(url)
        try conn.execute("BEGIN")
        let counts = try PostgresTransfer.push(from: source, to: conn, replacing: nil)
        try conn.execute("COMMIT")
        #expect(counts.map(\.table) == ["Tag", "Thing", "Log", "Thing_tags"])
        #expect(counts.map(\.rows) == [3, 2, 5, 2])

        let types = try pg.psql(
            "SELECT string_agg(column_name || ':' || data_type, ',' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'Thing'",
            url: url)
        #expect(
            types.trimmingCharacters(in: .whitespacesAndNewlines)
                == "id:uuid,flag:boolean,tiny:smallint,small:smallint,medium:integer,big:bigint,single:real,real:double precision,text:text,when:timestamp with time zone,bytes:bytea,money:numeric,place:jsonb,main:text,note:text"
        )
        #expect(
            try pg.psql("SELECT money::text FROM \"Thing\" ORDER BY money", url: url) == "-12345678901234.56\n0.05\n")
        #expect(
            try pg.psql("SELECT place->>'city' FROM \"Thing\" WHERE place IS NOT NULL", url: url) == "Belo Horizonte\n")
        #expect(
            try pg.psql("SELECT encode(bytes, 'hex') FROM \"Thing\" WHERE bytes IS NOT NULL", url: url)
                == "00015cff0a09\n")
        #expect(
            try pg.psql(
                "SELECT text = E'\(Self.awkward.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'").replacingOccurrences(of: "\t", with: "\\t").replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\u{1}", with: "\\x01"))' FROM \"Thing\" WHERE flag = false",
                url: url) == "t\n")
        let keys = try pg.psql(
            "SELECT count(*) FROM information_schema.table_constraints WHERE constraint_type = 'FOREIGN KEY'", url: url)
        #expect(keys == "3\n")  // Thing.main, Thing_tags.owner, Thing_tags.target
        // The hidden identity follows the copied rows: psql's own inserts get fresh ids.
        _ = try pg.psql("INSERT INTO \"Log\"(line) VALUES ('from psql')", url: url)
        #expect(try pg.psql("SELECT _id FROM \"Log\" WHERE line = 'from psql'", url: url) == "6\n")
        _ = try pg.psql("DELETE FROM \"Log\" WHERE line = 'from psql'", url: url)

        let back = dir.appendingPathComponent("back.sqlite").path
        try conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        let pulled = try PostgresTransfer.pull(from: conn, to: back)
        try conn.execute("ROLLBACK")
        #expect(pulled.map(SchemaDescriptor.encode) == SchemaDescriptor.encode(Self.schema))
        let copy = try Connection(path: back)
        for table in ["Tag", "Log", "Thing_tags"] {
            #expect(try Self.rows(copy, table) == Self.rows(source, table), "\(table)")
        }
        // Thing: every column the same bytes, but jsonb's own spacing of the embedded object's JSON.
        let a = try Self.rows(source, "Thing")
        let b = try Self.rows(copy, "Thing")
        #expect(a.count == 2 && b.count == 2)
        for (ra, rb) in zip(a, b) {
            for (i, (va, vb)) in zip(ra, rb).enumerated() where i != 12 { #expect(va == vb, "column \(i)") }
        }
        // ... and the objects read back equal, embedded one included.
        let store = try Store(path: back, schema: Self.schema)
        let thing = try #require(
            try store.object(
                ofType: "Thing", forPrimaryKey: .uuid(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!)))
        #expect(try thing.value(atKeyPath: "place.city") == .string("Belo Horizonte"))
        #expect(try thing.value(atKeyPath: "place.zip") == .int(30_000))
        #expect(try thing.value(atKeyPath: "money") == .decimal(Decimal(string: "-12345678901234.56")!))
        #expect(try copy.integer("PRAGMA user_version") == 3)
        #expect(try copy.rows("PRAGMA integrity_check") == [[.text("ok")]])
        // The same tables and indexes as the store makes (the pull builds the indexes after the rows), in WAL.
        let shape = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        #expect(try copy.rows(shape) == source.rows(shape))
        #expect(try copy.rows("PRAGMA journal_mode") == [[.text("wal")]])
    }

    @Test("A value that cannot be its column's type stops the copy, and PostgreSQL keeps what it had")
    func failedPushChangesNothing() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "atomic")
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.sqlite").path
        try Self.makeFile(good)
        let conn = try PostgresConnection(url)
        try conn.execute("BEGIN")
        try PostgresTransfer.push(from: try Connection(path: good), to: conn, replacing: nil)
        try conn.execute("COMMIT")
        // A file someone edited by hand: text where a 64-bit integer belongs (SQLite lets it in).
        let bad = dir.appendingPathComponent("bad.sqlite").path
        try Self.makeFile(bad)
        let badConnection = try Connection(path: bad)
        try badConnection.execute("UPDATE Thing SET big = 'lots' WHERE flag = 1")
        try badConnection.execute("DELETE FROM Log")
        try conn.execute("BEGIN")
        #expect(throws: PostgresTransferError.self) {
            try PostgresTransfer.push(from: badConnection, to: conn, replacing: Self.schema)
        }
        try conn.execute("ROLLBACK")
        #expect(try pg.psql("SELECT count(*) FROM \"Log\"", url: url) == "5\n")
        #expect(try pg.psql("SELECT count(*) FROM \"Thing\"", url: url) == "2\n")
    }

    @Test("Rows go in frozen, into new tables and refilled ones, whatever the database's default isolation level")
    func pushedRowsAreFrozen() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "frozen")
        let name = String(url.split(separator: "/").last ?? "")
        _ = try pg.psql("ALTER DATABASE \"\(name)\" SET default_transaction_isolation = 'serializable'", url: url)
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("kinds.sqlite").path
        try Self.makeFile(file)
        for old in [nil, Self.schema] {  // created, then emptied by TRUNCATE and filled again
            let conn = try PostgresConnection(url)
            #expect(try conn.scalar("SHOW transaction_isolation") == "serializable")
            try conn.execute("BEGIN")
            try PostgresTransfer.push(from: try Connection(path: file), to: conn, replacing: old)
            try conn.execute("COMMIT")
        }
        #expect(try pg.psql("SELECT count(*) FROM \"Log\"", url: url) == "5\n")
        #expect(try pg.psql("SELECT count(*) FROM \"Thing\"", url: url) == "2\n")
        guard
            try pg.psql("SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_visibility'", url: url) == "1\n"
        else { try Test.cancel("the server has no pg_visibility extension to read the visibility map with") }
        _ = try pg.psql("CREATE EXTENSION pg_visibility", url: url)
        for table in ["Log", "Thing", "Thing_tags", "Tag"] {
            let frozen = try pg.psql("SELECT bool_and(all_frozen) FROM pg_visibility_map('\"\(table)\"')", url: url)
            #expect(frozen == "t\n", "\(table)")
        }
    }

    @Test("A table of the new schema that urna does not own there is never dropped or filled")
    func foreignTablesAreLeftAlone() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "foreign")
        _ = try pg.psql("CREATE TABLE \"Tag\" (name text); INSERT INTO \"Tag\" VALUES ('mine')", url: url)
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("kinds.sqlite").path
        try Self.makeFile(file)
        let conn = try PostgresConnection(url)
        try conn.execute("BEGIN")
        #expect {
            try PostgresTransfer.push(from: try Connection(path: file), to: conn, replacing: nil)
        } throws: { error in
            "\(error)".contains("already has a table Tag")
        }
        try conn.execute("ROLLBACK")
        #expect(try pg.psql("SELECT name FROM \"Tag\"", url: url) == "mine\n")
    }

    @Test("A default from a file's descriptor is only ever a literal, even where the server reads backslash escapes")
    func defaultsAreNeverExecuted() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "inject")
        let name = String(url.split(separator: "/").last!)
        _ = try pg.psql("ALTER DATABASE \(name) SET standard_conforming_strings = off", url: url)
        let hostile = #"x\'); CREATE TABLE pwned (a int); --"#
        let schema = try Schema(
            family: "hostile", version: 1,
            types: [ObjectSchema("Note", [Property("text", .string, default: .string(hostile))])])
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("h.sqlite").path
        _ = try Store(path: file, schema: schema)
        let conn = try PostgresConnection(url)
        try conn.execute("BEGIN")
        try PostgresTransfer.push(from: try Connection(path: file), to: conn, replacing: nil)
        try conn.execute("COMMIT")
        #expect(try pg.psql("SELECT to_regclass('pwned') IS NULL", url: url) == "t\n")
        _ = try pg.psql("INSERT INTO \"Note\" DEFAULT VALUES", url: url)
        #expect(try pg.psql("SELECT text FROM \"Note\"", url: url) == hostile + "\n")
    }

    @Test("The elections schema (every version) maps to PostgreSQL DDL the server accepts")
    func electionsLayoutIsValidDDL() throws {
        let pg = try postgresClusterOrSkip()
        for version in SchemaFamilies.elections.versions {
            let url = try pg.createDatabase(prefix: "ddl")
            let conn = try PostgresConnection(url)
            try conn.execute("BEGIN")
            for t in try PostgresLayout.tables(for: version.schema) { try conn.execute(t.createSQL(in: conn)) }
            for t in try PostgresLayout.tables(for: version.schema) { try conn.execute(try #require(t.primaryKeySQL)) }
            for t in try PostgresLayout.tables(for: version.schema) { for s in t.constraintSQL { try conn.execute(s) } }
            try conn.execute("COMMIT")
            let n = try pg.psql(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'", url: url)
            #expect(
                Int(n.trimmingCharacters(in: .whitespacesAndNewlines))
                    == PostgresLayout.tableNames(for: version.schema).count)
        }
    }

    @Test("An app's Store on PostgreSQL: withStore writes in one transaction, a throwing body changes nothing")
    func appStoreThroughWorkingCopy() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "app")
        try PostgresWorkingCopy.withStore(url: url, schema: Self.schema, writing: true) { store in
            try store.write { for name in ["x", "y"] { try store.create("Tag", value: ["name": name]) } }
        }
        #expect(try pg.psql("SELECT string_agg(name, ',' ORDER BY name) FROM \"Tag\"", url: url) == "x,y\n")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try PostgresWorkingCopy.withStore(url: url, schema: Self.schema, writing: true) { store in
                try store.write { try store.create("Tag", value: ["name": "z"]) }
                throw Boom()
            }
        }
        #expect(try pg.psql("SELECT count(*) FROM \"Tag\"", url: url) == "2\n")
        let names = try PostgresWorkingCopy.withStore(url: url, schema: Self.schema, writing: false) { store in
            try store.objects("Tag").sorted(byKeyPath: "name").map { try $0.value(atKeyPath: "name") }
        }
        #expect(names == [.string("x"), .string("y")])
        // A second writer waits for the first one's locks, then gives up with LockTimeout.
        let first = try PostgresWorkingCopy(url: url, writing: true)
        #expect(throws: PostgresWorkingCopy.LockTimeout.self) {
            _ = try PostgresWorkingCopy(url: url, writing: true, lockTimeoutMilliseconds: 200)
        }
        try first.rollback()
    }

    @Test("Text sorts and compares as on SQLite (byte order) even where the database's default collation is ICU en-US")
    func textCollatesAsSQLite() throws {
        let pg = try postgresClusterOrSkip()
        // A database whose default collation puts "a" before "B" (SQLite's byte order puts "B" first).
        let base = try pg.createDatabase(prefix: "icu")
        let name = String(base.split(separator: "/").last!)
        let url = base.replacingOccurrences(of: name, with: name + "_en")
        do {
            _ = try pg.psql(
                "CREATE DATABASE \"\(name)_en\" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'",
                url: pg.url(database: "postgres"))
        } catch {
            try Test.cancel(Comment(rawValue: "skipped: this PostgreSQL cannot create an ICU database: \(error)"))
        }
        #expect(
            try pg.psql("SELECT string_agg(k, ',' ORDER BY k) FROM (VALUES ('b'), ('B'), ('a')) v(k)", url: url)
                == "a,b,B\n")
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("kinds.sqlite").path
        try Self.makeFile(path)
        let source = try Connection(path: path)
        try source.execute("INSERT INTO \"Tag\"(name) VALUES ('B'), ('É'), ('e'), ('Z')")
        let conn = try PostgresConnection(url)
        try conn.execute("BEGIN")
        try PostgresTransfer.push(from: source, to: conn, replacing: nil)
        try conn.execute("COMMIT")
        let sqliteOrder = try source.rows("SELECT name FROM \"Tag\" ORDER BY name").map { "\($0[0])" }
        let serverOrder = try pg.psql("SELECT name FROM \"Tag\" ORDER BY name", url: url)
            .split(separator: "\n").map { "\(SQLValue.text(String($0)))" }
        #expect(serverOrder == sqliteOrder)
        #expect(serverOrder.first == "\(SQLValue.text("B"))")
        #expect(try pg.psql("SELECT count(*) FROM \"Tag\" WHERE name < 'a'", url: url) == "2\n")  // B, Z
        let collations = try pg.psql(
            "SELECT DISTINCT coalesce(collation_name, '-') FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'text' AND table_name IN ('Tag', 'Thing', 'Thing_tags')",
            url: url)
        #expect(collations == "C\n")
    }

    @Test("Names PostgreSQL would cut to 63 bytes: long columns are refused by name, long index names kept apart")
    func longNames() throws {
        let pg = try postgresClusterOrSkip()
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Two indexed properties whose index names share their first 63 bytes (PostgreSQL would cut both to one).
        let stem = String(repeating: "n", count: 54)
        let a = stem + "_first"
        let b = stem + "_other"
        let ok = try Schema(
            family: "names", version: 1,
            types: [
                ObjectSchema(
                    "Note",
                    [
                        Property("id", .int64, primaryKey: true), Property(a, .string, default: "", indexed: true),
                        Property(b, .string, default: "", indexed: true),
                    ])
            ])
        let path = dir.appendingPathComponent("ok.sqlite").path
        let store = try Store(path: path, schema: ok)
        try store.write { try store.create("Note", value: ["id": 1, a: "x", b: "y"]) }
        let url = try pg.createDatabase(prefix: "names")
        let conn = try PostgresConnection(url)
        try conn.execute("BEGIN")
        try PostgresTransfer.push(from: try Connection(path: path), to: conn, replacing: nil)
        try conn.execute("COMMIT")
        let indexes = try pg.psql(
            "SELECT count(*) FROM pg_indexes WHERE tablename = 'Note' AND indexname <> 'Note_pkey'", url: url)
        #expect(indexes == "2\n")
        #expect(
            try pg.psql("SELECT max(octet_length(indexname)) <= 63 FROM pg_indexes WHERE tablename = 'Note'", url: url)
                == "t\n")

        // A column name of 64 bytes would be cut: refused, naming it, and the database keeps nothing of it.
        let long = String(repeating: "x", count: 64)
        let bad = try Schema(
            family: "names", version: 1,
            types: [
                ObjectSchema("Memo", [Property("id", .int64, primaryKey: true), Property(long, .string, default: "")])
            ])
        let badPath = dir.appendingPathComponent("bad.sqlite").path
        _ = try Store(path: badPath, schema: bad)
        let other = try pg.createDatabase(prefix: "names_bad")
        let c2 = try PostgresConnection(other)
        try c2.execute("BEGIN")
        let error = #expect(throws: PostgresTransferError.self) {
            try PostgresTransfer.push(from: try Connection(path: badPath), to: c2, replacing: nil)
        }
        try c2.execute("ROLLBACK")
        #expect("\(error!)".contains("property Memo.\(long)") && "\(error!)".contains("63 bytes"), "\(error!)")
        #expect(
            try pg.psql("SELECT count(*) FROM information_schema.tables WHERE table_name = 'Memo'", url: other) == "0\n"
        )
    }

    @Test("COPY text escaping reads back what it wrote; passwords never reach messages")
    func copyTextAndRedaction() {
        var buffer: [UInt8] = []
        let fields: [String?] = [Self.awkward, nil, "", "\\N", "plain"]
        CopyText.encodeLine(fields, into: &buffer)
        let decoded = buffer.withUnsafeBytes { CopyText.decodeLine($0) }
        #expect(decoded == fields)
        #expect(
            PostgresURL.redacted("postgresql://ana:s3cret@db.example:5432/tse")
                == "postgresql://ana:***@db.example:5432/tse")
        #expect(
            PostgresURL.redacted("postgresql://ana@db/tse?password=s3cret&sslmode=require")
                == "postgresql://ana@db/tse?password=***&sslmode=require")
        #expect(PostgresURL.isPostgres("postgres://x/y") && !PostgresURL.isPostgres("urna.sqlite"))
    }
}
