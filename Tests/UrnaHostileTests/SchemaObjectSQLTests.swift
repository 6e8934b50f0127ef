import Testing
import UrnaStore

/// The check that recorded index/view/trigger SQL is one CREATE of its kind and nothing else.
@Suite struct SchemaObjectSQLTests {
    @Test(
        "Plain CREATE statements of the recorded kind, name and table pass",
        arguments: [
            ("index", "i", "t", "CREATE INDEX \"i\" ON \"t\"(\"a\")"),
            ("index", "i", "t", "create unique index if not exists main.i on t(a, b) where a > ';'"),
            ("view", "v", "v", "CREATE VIEW v AS SELECT 'a;b' AS x /* ; */ -- ;\n FROM t"),
            ("trigger", "tg", "t", "CREATE TRIGGER tg AFTER INSERT ON t BEGIN SELECT 1; END"),
            (
                "trigger", "tg", "t",
                "CREATE TRIGGER tg BEFORE UPDATE OF a ON [t] FOR EACH ROW WHEN new.a = 'END;' BEGIN UPDATE t SET a = CASE WHEN 1 THEN 2 END; DELETE FROM u; END"
            ),
        ])
    func accepted(_ c: (String, String, String, String)) throws {
        try SchemaObjectSQL.check(c.3, type: c.0, name: c.1, table: c.2)
    }

    @Test(
        "Anything after the statement, another kind, name or table is refused naming the object",
        arguments: [
            ("index", "i", "t", "CREATE INDEX i ON t(a); COMMIT; ATTACH 'x.db' AS x; BEGIN"),
            ("index", "i", "t", "CREATE INDEX i ON t(a);"),
            ("index", "i", "t", "CREATE INDEX j ON t(a)"),
            ("index", "i", "t", "CREATE INDEX i ON u(a)"),
            ("index", "i", "t", "CREATE TABLE i(a)"),
            ("view", "v", "v", "CREATE VIEW v AS SELECT 1; DROP TABLE t"),
            (
                "trigger", "tg", "t",
                "CREATE TRIGGER tg AFTER INSERT ON t BEGIN SELECT 1; END; COMMIT; ATTACH 'x' AS y; BEGIN SELECT 1; END"
            ),
            ("trigger", "tg", "t", "CREATE TRIGGER tg AFTER INSERT ON t BEGIN SELECT 1; END; DROP TABLE t"),
            ("trigger", "tg", "t", "CREATE TRIGGER tg AFTER INSERT ON t BEGIN SELECT 1 END"),
            ("trigger", "tg", "t", "CREATE TRIGGER tg AFTER INSERT ON t BEGIN SELECT 'x"),
            ("trigger", "tg", "t", "CREATE TRIGGER tg AFTER INSERT ON t; BEGIN SELECT 1; END"),
        ])
    func refused(_ c: (String, String, String, String)) {
        #expect(throws: SchemaObjectSQL.Refusal.self) {
            try SchemaObjectSQL.check(c.3, type: c.0, name: c.1, table: c.2)
        }
        do {
            try SchemaObjectSQL.check(c.3, type: c.0, name: c.1, table: c.2)
        } catch {
            #expect("\(error)".contains("\(c.0) \(c.1)"))
        }
    }
}
