import Foundation
import LibraryFamily
import UrnaMigrator
import UrnaStore

/// Issue 14's chain: the app's library family v0 -> v4 in one run (a rename, a key change with its links
/// rewritten, a lossy conversion by closure, a type split), against the same change written by hand as one
/// fused SQL transaction, on the same file, in the same run.
enum LibraryChainBench {
    static func run(books: Int, rounds: Int) throws {
        let dir = try BenchHarness.temporaryDirectory()
        let pristine = dir.appendingPathComponent("library-v0.sqlite").path
        for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: pristine + s) }
        try build(at: pristine, books: books)
        print(
            "\n## Migration chain: library v0 -> v4 (rename, string keys + links, cents, split), \(books) books, \(books / 10) authors"
        )
        print(
            "Two hand-written peers, one transaction each: the change fused (each table rebuilt once, the best SQL can do) and"
        )
        print(
            "the four steps as four hand-written migrations (GRDB/Alembic style: ALTER where SQLite can, rebuilds elsewhere)."
        )
        print(
            "For scale only (not the target's peer): the fused SQL followed by the checks urna runs after its steps"
        )
        print("(quick_check, integrity_check of the tables written, foreign_key_check), before its COMMIT.")
        print(
            BenchHarness.row([
                "round", "fused SQL (s)", "stepwise SQL (s)", "urna migrator, 4 steps (s)", "vs fused", "vs stepwise",
                "fused SQL + checks (s)", "vs fused + checks",
            ]))
        print(BenchHarness.row(["---", "---", "---", "---", "---", "---", "---", "---"]))
        var times: [[Double]] = [[], [], [], []]
        var same = true
        for round in 1...rounds {
            var results: [String] = []
            let sides = [
                "child-chain-sql", "child-chain-stepwise-sql", "child-chain-migrator", "child-chain-checked-sql",
            ]
            for (i, side) in sides.enumerated() {
                let path = dir.appendingPathComponent("library-\(i).sqlite").path
                for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) }
                try FileManager.default.copyItem(atPath: pristine, toPath: path)
                times[i].append(try BenchHarness.measureChild([side, path]).seconds)
                results.append(try summary(path))
            }
            same = same && Set(results).count == 1
            let (fused, stepwise, ours, checked) = (times[0].last!, times[1].last!, times[2].last!, times[3].last!)
            print(
                BenchHarness.row([
                    "\(round)", String(format: "%.2f", fused), String(format: "%.2f", stepwise),
                    String(format: "%.2f", ours),
                    String(format: "%.2fx", ours / fused), String(format: "%.2fx", ours / stepwise),
                    String(format: "%.2f", checked), String(format: "%.2fx", ours / checked),
                ]))
        }
        let medians = times.map(BenchHarness.median)
        print(
            "all four give the same authors, biographies, keys and prices: "
                + (same ? "yes" : "NO -- the timing does not count"))
        print(String(format: "ratio migrator/stepwise hand-written SQL (medians): %.2fx", medians[2] / medians[1]))
        print(
            String(
                format: "ratio migrator/fused hand-written SQL + the same checks (medians, for scale): %.2fx",
                medians[2] / medians[3]))
        let ratio = medians[2] / medians[0]
        print(
            String(
                format: "ratio migrator/fused hand-written SQL (medians): %.2fx (target <= 1.5x: %@)", ratio,
                ratio <= 1.5 ? "met" : "NOT met"))
    }

    /// A v0 file: books/10 authors (nine in ten with a birth year), 50 tags, one tag per book, 1,000 shelves.
    static func build(at path: String, books: Int) throws {
        do { _ = try Store(path: path, schema: LibraryFamily.v0) }
        let c = try Connection(path: path, create: false)
        try c.execute("BEGIN")
        let authors = max(books / 10, 1)
        let a = try c.prepare("INSERT INTO Author(id, fullName, born) VALUES (?, ?, ?)")
        for i in 0..<authors {
            a.reset()
            a.bindInt(Int64(i), at: 1)
            a.bindText("Author \(i)", at: 2)
            if i % 10 == 9 { a.bindNull(at: 3) } else { a.bindInt(Int64(1900 + i % 100), at: 3) }
            try a.runToCompletion()
        }
        for t in 0..<50 { try c.run("INSERT INTO Tag(name) VALUES (?)", [.text("tag\(t)")]) }
        let b = try c.prepare("INSERT INTO Book(id, title, author, price) VALUES (?, ?, ?, ?)")
        let bt = try c.prepare("INSERT INTO Book_tags(owner, position, target) VALUES (?, 0, ?)")
        for i in 0..<books {
            b.reset()
            b.bindInt(Int64(i), at: 1)
            b.bindText("Book \(i)", at: 2)
            b.bindInt(Int64(i % authors), at: 3)
            b.bindDouble(Double(i % 10_000) / 100 + 0.001, at: 4)
            try b.runToCompletion()
            bt.reset()
            bt.bindInt(Int64(i), at: 1)
            bt.bindText("tag\(i % 50)", at: 2)
            try bt.runToCompletion()
        }
        for s in 0..<1000 {
            try c.run("INSERT INTO Shelf(name) VALUES (?)", [.text("shelf \(s)")])
            for p in 0..<10 {
                try c.run(
                    "INSERT INTO Shelf_books(owner, position, target) VALUES (?, ?, ?)",
                    [.text("shelf \(s)"), .integer(Int64(p)), .integer(Int64((s * 10 + p) % books))])
            }
        }
        try c.execute("COMMIT")
    }

    /// What both sides must agree on.
    static func summary(_ path: String) throws -> String {
        let c = try Connection(path: path, readOnly: true, create: false)
        let q = [
            "SELECT count(*) || ',' || coalesce(min(id), '') || ',' || coalesce(max(name), '') FROM Author",
            "SELECT count(*) || ',' || coalesce(sum(born), 0) FROM Biography",
            "SELECT count(*) || ',' || sum(price) || ',' || count(DISTINCT author) FROM Book",
            "SELECT count(*) FROM Book b JOIN Author a ON a.id = b.author",
            "SELECT version FROM _urna_schema",
        ]
        return try q.map { try c.scalar($0)?.description ?? "" }.joined(separator: "|")
    }

    /// The migrator's side: the whole chain in one run, no backup (the peer keeps none either).
    static func childMigrator(_ path: String) throws {
        let phases = ProcessInfo.processInfo.environment["URNA_BENCH_PHASES"] == nil ? nil : StepPhases()
        var options = MigrationOptions()
        // URNA_BENCH_NO_FUSION: every step writes every table it changes (to measure what fusing steps gives).
        options.fusesSteps = ProcessInfo.processInfo.environment["URNA_BENCH_NO_FUSION"] == nil
        // URNA_BENCH_PRAGMAS: pragmas for the run's connection, `;`-separated (`mmap_size=268435456;temp_store=MEMORY`),
        // to measure a setting before making it a default.
        if let pragmas = ProcessInfo.processInfo.environment["URNA_BENCH_PRAGMAS"] {
            options.pragmas = pragmas.split(separator: ";").map(String.init)
        }
        let migrator = Migrator(family: LibraryFamily.family, reporter: phases, options: options)
        let (started, cpu) = (Date(), clock())
        let plan = try migrator.plan(path: path)
        // The plan's own reads (the scan for values the contract cannot read, the loss probes) come before the run.
        phases?.lines.append(
            String(
                format: "plan %.3f s wall, %.3f s CPU", Date().timeIntervalSince(started),
                Double(clock() - cpu) / Double(CLOCKS_PER_SEC)))
        _ = try migrator.run(plan, backup: .none)
        if let phases { FileHandle.standardError.write(Data((phases.lines.joined(separator: "\n") + "\n").utf8)) }
    }

    /// Each phase of the chain, step by step (with `URNA_BENCH_PHASES` set), to see where the time goes.
    final class StepPhases: MigrationReporter {
        var lines: [String] = []
        var step = "run"
        func stepStarted(from: Int, to: Int) { step = "v\(from)->v\(to)" }
        func stepFinished(_ report: StepReport) { lines += report.sql.map { "  \(step) SQL: \($0)" } }
        func phaseFinished(_ phase: String, seconds: Double, cpuSeconds: Double) {
            lines.append(String(format: "%@ %@ %.3f s wall, %.3f s CPU", step, phase, seconds, cpuSeconds))
        }
    }

    /// The same change by hand: each table rebuilt once, in one transaction. With `checked`, the checks urna runs
    /// after its steps follow the SQL inside the transaction (`quick_check` of the file, `integrity_check` of each
    /// table written, `foreign_key_check`), to see what the migrator costs beyond them; a problem throws.
    static func childSQL(_ path: String, checked: Bool = false) throws {
        let v4 = LibraryFamily.v4
        let c = try Connection(path: path, create: false)
        try c.execute("PRAGMA foreign_keys = OFF")
        try c.execute("BEGIN IMMEDIATE")
        try c.execute(StorageLayout.createTableSQL(v4[type: "Author"]!, in: v4, tableName: "Author_new"))
        try c.execute(#"INSERT INTO "Author_new"("id", "name") SELECT 'A' || "id", "fullName" FROM "Author""#)
        try c.execute(StorageLayout.createTableSQL(v4[type: "Biography"]!, in: v4))
        try c.execute(
            #"INSERT INTO "Biography"("id", "born") SELECT 'A' || "id", "born" FROM "Author" WHERE "born" IS NOT NULL"#)
        try c.execute(StorageLayout.createTableSQL(v4[type: "Book"]!, in: v4, tableName: "Book_new"))
        try c.execute(
            #"INSERT INTO "Book_new"("id", "title", "author", "price") SELECT "id", "title", 'A' || "author", CAST(round("price" * 100) AS INTEGER) FROM "Book""#
        )
        try c.execute(#"DROP TABLE "Book""#)
        try c.execute(#"DROP TABLE "Author""#)
        try c.execute(#"ALTER TABLE "Author_new" RENAME TO "Author""#)
        try c.execute(#"ALTER TABLE "Book_new" RENAME TO "Book""#)
        try c.execute(#"CREATE INDEX "Book_author_idx" ON "Book"("author")"#)
        try Store.recordSchema(v4, in: c)
        if checked {
            let pragmas =
                ["quick_check"] + ["Author", "Biography", "Book", "_urna_schema"].map { "integrity_check(\"\($0)\")" }
            for pragma in pragmas {
                let answer = try c.rows("PRAGMA \(pragma)").map { "\($0[0])" }
                guard answer == ["ok"] else { throw BenchError("PRAGMA \(pragma): \(answer)") }
            }
            guard try c.rows("PRAGMA foreign_key_check").isEmpty else { throw BenchError("a link dangles") }
        }
        try c.execute("COMMIT")
    }

    /// The same change as four hand-written migrations, as an app would write them for GRDB's migrator or
    /// Alembic (each step on its own, in one transaction for the run): a column rename by ALTER, the key change
    /// and the cents as table rebuilds, the split as a new table and ALTER TABLE DROP COLUMN.
    static func childStepwiseSQL(_ path: String) throws {
        let c = try Connection(path: path, create: false)
        try c.execute("PRAGMA foreign_keys = OFF")
        try c.execute("BEGIN IMMEDIATE")
        func rebuild(_ type: String, in schema: Schema, select: String) throws {
            try c.execute(StorageLayout.createTableSQL(schema[type: type]!, in: schema, tableName: "\(type)_new"))
            try c.execute("INSERT INTO \"\(type)_new\" \(select)")
            try c.execute("DROP TABLE \"\(type)\"")
            try c.execute("ALTER TABLE \"\(type)_new\" RENAME TO \"\(type)\"")
        }
        // v1: the rename.
        try c.execute(#"ALTER TABLE "Author" RENAME COLUMN "fullName" TO "name""#)
        // v2: string keys for authors, and the books' links to them.
        try rebuild(
            "Author", in: LibraryFamily.v2,
            select: #"("id", "name", "born") SELECT 'A' || "id", "name", "born" FROM "Author""#)
        try rebuild(
            "Book", in: LibraryFamily.v2,
            select: #"("id", "title", "author", "price") SELECT "id", "title", 'A' || "author", "price" FROM "Book""#)
        try c.execute(#"CREATE INDEX "Book_author_idx" ON "Book"("author")"#)
        // v3: prices as exact cents.
        try rebuild(
            "Book", in: LibraryFamily.v3,
            select:
                #"("id", "title", "author", "price") SELECT "id", "title", "author", CAST(round("price" * 100) AS INTEGER) FROM "Book""#
        )
        try c.execute(#"CREATE INDEX "Book_author_idx" ON "Book"("author")"#)
        // v4: born moves to Biography.
        try c.execute(StorageLayout.createTableSQL(LibraryFamily.v4[type: "Biography"]!, in: LibraryFamily.v4))
        try c.execute(
            #"INSERT INTO "Biography"("id", "born") SELECT "id", "born" FROM "Author" WHERE "born" IS NOT NULL"#)
        try c.execute(#"ALTER TABLE "Author" DROP COLUMN "born""#)
        try Store.recordSchema(LibraryFamily.v4, in: c)
        try c.execute("COMMIT")
    }
}
