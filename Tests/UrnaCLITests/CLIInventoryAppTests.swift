import Foundation
import Testing

/// The inventory app (issue 14's fifth trial: `UrnaCommandLine.main(families: [InventoryFamily.family], toolName:
/// "inventory-app", appVersion: "3.0")`): a v0 file filled with plain SQL through every command, and a v7 whose
/// two renames end on one name refused by every command but help.
@Suite(.serialized) struct CLIInventoryAppTests {
    static var app: URL { CLIRunner.built("inventory-app") }

    static func run(_ args: [String]) throws -> CLIResult { try CLIRunner.runProcess(app, args) }

    /// The app with `INVENTORY_APP_VARIANT=clash` (through env(1): the runner passes our environment on).
    static func clash(_ args: [String]) throws -> CLIResult {
        try CLIRunner.runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["INVENTORY_APP_VARIANT=clash", app.path] + args)
    }

    static func v0File(_ dir: URL) throws -> String {
        let db = dir.appendingPathComponent("inventory.sqlite").path
        let i = try run(["init", "--db", db, "--family", "inventory", "--version", "0"])
        guard i.code == 0 else { throw CLIFailure("init: \(i.stderr)") }
        _ = try CLIAppFamilyTests.sqlite(
            db,
            """
            INSERT INTO Supplier VALUES (1, 'Ferragens Sul', '+55 1'), (2, 'Parafusos', NULL);
            INSERT INTO Warehouse VALUES ('POA', 'Porto Alegre', '{"street":"Av. Ipiranga, 10","zip":"90160-091"}');
            INSERT INTO Product VALUES ('SKU-0001', 'bolt', 1.35, 3, 1, '2024-01-02'),
              ('SKU-0004', 'nut', 5.1, 12, 2, 'em breve'), ('SKU-0007', 'washer', 8.85, 21, NULL, NULL);
            INSERT INTO Bin VALUES (1, 'POA'), (2, 'POA');
            INSERT INTO Bin_products VALUES (1, 0, 'SKU-0004'), (1, 1, 'SKU-0001'), (2, 0, 'SKU-0007');
            INSERT INTO Note (text, product) VALUES ('check', 'SKU-0001');
            """)
        return db
    }

    @Test("dry run leaves the file; migrate to v6 keeps every value; status, query and export read it")
    func theInventoryAppsCommands() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.v0File(dir)
        let status = try Self.run(["status", "--db", db])
        #expect(status.code == 0)
        #expect(status.stdout.contains("(run: inventory-app migrate --db \(db) --dry-run)"), "\(status.stdout)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        let dry = try Self.run(["migrate", "--db", db, "--dry-run"])
        #expect(dry.code == 0 && dry.stdout.contains("the upgrade would succeed"), "\(dry.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes)
        let migrate = try Self.run(["migrate", "--db", db])
        #expect(migrate.code == 0, "\(migrate.stderr)")
        #expect(
            try CLIAppFamilyTests.sqlite(
                db,
                "SELECT group_concat(sku || ':' || name || ':' || price || ':' || coalesce(vendor, '-') || ':' "
                    + "|| coalesce(added, '-'), ' ') FROM Product")
                == "1:bolt:135:1:2024-01-02T00:00:00.000Z 4:nut:510:2:- 7:washer:885:-:-")
        #expect(
            try CLIAppFamilyTests.sqlite(db, "SELECT group_concat(x, ' ') FROM (SELECT id || ':' || product AS x FROM Bin ORDER BY id)")
                == "1:4 2:7 1001:1")
        #expect(
            try CLIAppFamilyTests.sqlite(db, "SELECT group_concat(id || ':' || name || ':' || phone, ' ') FROM Vendor")
                == "1:Ferragens Sul:+55 1 2:Parafusos:")
        let after = try Self.run(["status", "--db", db])
        #expect(after.stdout.contains("version:  6 (latest 6)") && after.stdout.contains("pending:  none"))
        let query = try Self.run(["query", "--db", db, "Product", "price > 5"])
        #expect(query.code == 0 && query.stdout.contains("sku: 4 | name: nut | price: 5.1"), "\(query.stdout)")
        let export = try Self.run(["export", "--db", db, "--format", "json", "--type", "Product"])
        #expect(export.code == 0)
        #expect(export.stdout.contains(#"{"sku":4,"name":"nut","price":5.10,"qty":12,"vendor":2,"added":null}"#))
    }

    @Test("two renames onto one name: every command but help refuses (exit 1), naming both and the fix")
    func aRenameClashIsRefusedByEveryCommand() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.v0File(dir)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        for args in [["status", "--db", db], ["migrate", "--db", db, "--dry-run"], ["migrate", "--db", db]] {
            let r = try Self.clash(args)
            #expect(r.code == 1, "\(args): \(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("inventory-app's schema families are declared inconsistently"), "\(r.stderr)")
            #expect(r.stderr.contains("Product.name and Product.qty are both renamed to label"), "\(r.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes)
        #expect(try Self.clash(["--help"]).code == 0)
    }
}
