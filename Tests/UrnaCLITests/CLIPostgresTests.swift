import Foundation
import PostgresTestSupport
import Testing

/// A real PostgreSQL server (a throwaway cluster on 127.0.0.1), or the test reports itself skipped with the
/// reason; `make test` sets URNA_REQUIRE_POSTGRES=1 when it installed the server, and then a missing server
/// fails the test instead.
func postgresClusterOrSkip() throws -> PostgresTestCluster {
    let (cluster, reason) = try PostgresTestCluster.sharedIfAvailable()
    guard let cluster else { try Test.cancel(Comment(rawValue: reason)) }
    return cluster
}

@Suite("--db postgresql:// and urna copy, against a real PostgreSQL server", .serialized)
struct CLIPostgresTests {
    let sample = AnalysisFixtures.sample

    @Test("import of the MG 2018 pair: 2388 candidacies, 9 vice links, 8583 goods; psql sees keys and exact money")
    func importIntoPostgres() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "mg")
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLIRunner.run(
            [
                "import", "--db", url, sample.appendingPathComponent("consulta_cand_2018_MG.csv").path,
                sample.appendingPathComponent("bem_candidato_2018_MG.csv").path,
            ], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr.contains("in one transaction"), "\(r.stderr)")
        let candidates = try CLIRunner.run(["query", "--db", url, "Candidate", "--count"])
        #expect(candidates.stdout == "2388\n", "\(candidates.stderr)")
        let vices = try CLIRunner.run(["query", "--db", url, "Candidate", "vice != nil", "--count"])
        #expect(vices.stdout == "9\n", "\(vices.stderr)")
        let goods = try CLIRunner.run(["query", "--db", url, "Good", "--count"])
        #expect(goods.stdout == "8583\n", "\(goods.stderr)")
        // What psql sees: the tables, their foreign keys, money as numeric with the exact sum.
        let tables = try pg.psql(
            "SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
            url: url)
        #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines)
            == "Candidate,Candidate_goods,Coalition,Coalition_parties,Election,Good,GoodType,Party,_urna_history,_urna_schema")
        let views = try pg.psql(
            "SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.views WHERE table_schema = 'public'",
            url: url)
        #expect(views.trimmingCharacters(in: .whitespacesAndNewlines) == "candidacies,coalition_members,goods")
        let foreignKeys = try pg.psql(
            "SELECT count(*) FROM information_schema.table_constraints WHERE constraint_type = 'FOREIGN KEY'", url: url)
        #expect(Int(foreignKeys.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 >= 8, "\(foreignKeys)")
        let valueType = try pg.psql(
            "SELECT data_type FROM information_schema.columns WHERE table_name = 'Good' AND column_name = 'value'", url: url)
        #expect(valueType.trimmingCharacters(in: .whitespacesAndNewlines) == "numeric")
        let zema = try pg.psql(
            """
            SELECT sum(g.value) FROM "Candidate" c JOIN "Candidate_goods" cg ON cg.owner = c.id
            JOIN "Good" g ON g.id = cg.target JOIN "Election" e ON e.id = c.election
            WHERE c.sequence = 130000600702 AND e.code = 297
            """, url: url)
        #expect(zema.trimmingCharacters(in: .whitespacesAndNewlines) == "69752863.96")
        // urna sql runs PostgreSQL's SQL on the server, read-only unless --write, with :name parameters.
        let sql = try CLIRunner.run([
            "sql", "--db", url, "SELECT sum(value)::text AS reais, count(*) AS n FROM \"Good\" WHERE value > :min",
            "--param", "min=1000000", "--csv",
        ])
        #expect(sql.code == 0, "\(sql.stderr)")
        let expected = try pg.psql(
            "SELECT sum(value)::text || ',' || count(*) FROM \"Good\" WHERE value > 1000000", url: url)
        #expect(sql.stdout == "reais,n\n" + expected.trimmingCharacters(in: .whitespacesAndNewlines) + "\n")
        // Words that only look like refused ones (quoted, in literals and comments) run read-only.
        let lookalike = try CLIRunner.run([
            "sql", "--db", url,
            "SELECT 1 AS copy, 'lo_import(x); COPY' AS t, E'it\\'s' AS e, count(*) AS n FROM \"Party\" WHERE name LIKE'%\\' ESCAPE '#' OR acronym = 'copy' /* pg_terminate_backend( */ -- NOTIFY x",
            "--csv",
        ])
        #expect(lookalike.code == 0 && lookalike.stdout == "copy,t,e,n\n1,lo_import(x); COPY,it's,0\n", "\(lookalike.stdout) \(lookalike.stderr)")
        // Bad SQL is bad usage (64) with the place, as on SQLite.
        let bad = try CLIRunner.run(["sql", "--db", url, "SELECT nam FROM \"Party\""])
        #expect(bad.code == 64, "\(bad.stderr)")
        #expect(bad.stderr.contains("bad SQL at 8: column \"nam\" does not exist") && bad.stderr.contains("\n         ^"), "\(bad.stderr)")
        let write = try CLIRunner.run(["sql", "--db", url, "DELETE FROM \"Good\""])
        #expect(write.code == 64, "\(write.stderr)")
        #expect(write.stderr.contains("--write"))
        #expect(try CLIRunner.run(["query", "--db", url, "Good", "--count"]).stdout == "8583\n")
        // Someone's own view on urna's tables survives the next import (the tables are refilled, not dropped).
        _ = try pg.psql("CREATE VIEW my_candidates AS SELECT nickname FROM \"Candidate\"", url: url)
        // The same import again changes nothing: the identity and upsert rules are the SQLite ones.
        let again = try CLIRunner.run(
            [
                "import", "--db", url, sample.appendingPathComponent("consulta_cand_2018_MG.csv").path,
                sample.appendingPathComponent("bem_candidato_2018_MG.csv").path,
            ], in: dir)
        #expect(again.code == 0, "\(again.stderr)")
        #expect(try CLIRunner.run(["query", "--db", url, "Candidate", "--count"]).stdout == "2388\n")
        #expect(try CLIRunner.run(["query", "--db", url, "Good", "--count"]).stdout == "8583\n")
        #expect(try pg.psql("SELECT count(*) FROM my_candidates", url: url) == "2388\n")
        let keys = try pg.psql(
            "SELECT count(*) FROM information_schema.table_constraints WHERE constraint_type = 'FOREIGN KEY'", url: url)
        #expect(keys == foreignKeys, "the refill puts every foreign key back")
        let status = try CLIRunner.run(["status", "--db", url])
        #expect(status.stdout.contains("database: \(url)"), "\(status.stdout)")
        #expect(!status.stdout.contains("urna-postgres-"), "the working copy's path leaked: \(status.stdout)")
        // numeric(38,2) takes money the 64-bit contract cannot hold: reads stop saying so, not "bigint out of range".
        _ = try pg.psql("UPDATE \"Good\" SET value = 92233720368547758.08 WHERE id = (SELECT min(id) FROM \"Good\")", url: url)
        // A count on the server prints no value, so it answers; a read that prints the value, and the working copy
        // (every other command), stop.
        let count = try CLIRunner.run(["query", "--db", url, "Good", "--count"])
        #expect(count.code == 0 && count.stdout == "8583\n", "\(count.stderr)")
        let huge = try CLIRunner.run(["query", "--db", url, "Good", "--fields", "value"])
        #expect(huge.code != 0 && huge.stderr.contains("a value in Good is too large for urna"), "\(huge.stderr)")
        let copied = try CLIRunner.runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["URNA_PG_WORKING_COPY=1", CLIRunner.binary.path, "query", "--db", url, "Good", "--count"])
        #expect(copied.code != 0 && copied.stderr.contains("a value in Good is too large for urna"), "\(copied.stderr)")
    }

    @Test("The views exist on the server and give the rows the file's views give (numbers compared as numbers)")
    func viewsOnTheServerMatchTheFile() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "views")
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = ["consulta_cand_2018_MG.csv", "bem_candidato_2018_MG.csv"].map { sample.appendingPathComponent($0).path }
        let file = dir.appendingPathComponent("mg.sqlite").path
        #expect(try CLIRunner.run(["import", "--db", url, "--quiet"] + files, in: dir).code == 0)
        #expect(try CLIRunner.run(["import", "--db", file, "--quiet"] + files, in: dir).code == 0)
        func same(_ a: String, _ b: String) -> Bool {
            if a == b { return true }
            guard let x = Decimal(string: a), let y = Decimal(string: b), !a.isEmpty, !b.isEmpty else { return false }
            return x == y
        }
        for (view, key) in [("candidacies", "candidate_id"), ("goods", "good_id"), ("coalition_members", "coalition_id, NR_ORDEM")] {
            let server = try pg.psql("SELECT * FROM \(view) ORDER BY \(key)", url: url)
                .split(separator: "\n", omittingEmptySubsequences: true).map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
            let local = try CLIRunner.runProcess(
                URL(fileURLWithPath: "/usr/bin/sqlite3"), ["-separator", "|", file, "SELECT * FROM \(view) ORDER BY \(key)"])
            #expect(local.code == 0, "\(local.stderr)")
            let rows = local.stdout.split(separator: "\n", omittingEmptySubsequences: true)
                .map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
            #expect(server.count == rows.count && !rows.isEmpty, "\(view): \(server.count) rows on the server, \(rows.count) in the file")
            var differences: [String] = []
            for (s, l) in zip(server, rows) where s.count != l.count || zip(s, l).contains(where: { !same($0, $1) }) {
                differences.append("server \(s)\nfile   \(l)")
                if differences.count == 3 { break }
            }
            #expect(differences.isEmpty, "\(view):\n\(differences.joined(separator: "\n"))")
        }
        let comment = try pg.psql("SELECT obj_description('candidacies'::regclass)", url: url)
        #expect(comment.contains("One row per candidacy"), "\(comment)")
    }

    @Test("three generations of one file, one run each, give the same candidacy on PostgreSQL as in a file, in any order")
    func threeGenerationsOnPostgres() throws {
        let pg = try postgresClusterOrSkip()
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // One MG 2018 row in three generations: results SUPLENTE (oldest), ELEITO POR QP, and unknown (newest).
        let script = """
            import sys
            src, out = sys.argv[1], sys.argv[2]
            lines = open(src, encoding='latin-1').read().split('\\n')
            head, row = lines[0].split(';'), lines[1].split(';')
            for name, date, result in [('old', '09/09/2018', 'SUPLENTE'), ('mid', '01/11/2018', 'ELEITO POR QP'), ('new', '22/01/2019', '#NULO#')]:
                r = list(row)
                r[head.index('"DT_GERACAO"')] = '"' + date + '"'
                r[head.index('"DS_SIT_TOT_TURNO"')] = '"' + result + '"'
                open(out + '/' + name + '.csv', 'w', encoding='latin-1').write(lines[0] + '\\n' + ';'.join(r) + '\\n')
            """
        let made = try AnalysisFixtures.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", script, sample.appendingPathComponent("consulta_cand_2018_MG.csv").path, dir.path],
            environment: [:], in: dir)
        try #require(made.code == 0, "python3 builds the three generations: \(made.stderr)")
        for order in [["old", "new", "mid"], ["mid", "new", "old"], ["new", "old", "mid"]] {
            let url = try pg.createDatabase(prefix: "gen")
            for name in order {
                let r = try CLIRunner.run(["import", "--db", url, "--quiet", dir.appendingPathComponent("\(name).csv").path])
                #expect(r.code == 0, "\(r.stderr)")
            }
            #expect(try pg.psql("SELECT result FROM \"Candidate\"", url: url) == "ELEITO POR QP\n", "\(order)")
        }
    }

    @Test("urna sql without --write refuses what a READ ONLY transaction lets through, before connecting")
    func readOnlySQLRefusesSideEffects() throws {
        // No server is needed: the refusal comes first (this URL has none behind it).
        let url = "postgresql://urna@127.0.0.1:9/none"
        let marker = NSTemporaryDirectory() + "urna-readonly-\(getpid())"
        for statement in [
            "COPY (SELECT 1) TO PROGRAM 'id > \(marker)'", "copy \"Candidate\" TO '\(marker)'",
            "SELECT lo_import('/etc/hostname')", "SELECT pg_catalog.lo_unlink(1)", "SELECT \"pg_catalog\".\"lo_create\"(0)",
            "SELECT lo_from_bytea(0, 'x'::bytea)", "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity",
            "SELECT pg_cancel_backend(1)", "SELECT pg_reload_conf()", "SELECT pg_logical_emit_message(true, 'x', 'y')",
            "NOTIFY x", "SELECT pg_notify('x', 'y')", "SELECT pg_advisory_lock(1)", "DO $$ BEGIN PERFORM 1; END $$",
            "SELECT 1; COPY (SELECT 1) TO STDOUT", "WITH x AS (SELECT 1) SELECT lo_export(1, '/tmp/x') FROM x",
            "CALL p()", "LOCK \"Good\"", "SELECT pg_read_file('/etc/passwd')", "SELECT * FROM pg_ls_dir('.')",
            "SELECT U&\"\\006Co_import\"('/etc/hostname')", "SELECT lo_import/* c */ ('/etc/hostname')",
            "SELECT * FROM lo_import('/etc/hostname')", "EXPLAIN ANALYZE SELECT pg_terminate_backend(1)",
            // Tokenizer tricks: a -- comment ended by CR, name'\' (no E-string), a form feed, a non-ASCII $tag$.
            " --\rCOPY (SELECT 1) TO PROGRAM 'id > \(marker)'", "SELECT name'\\' AS a, pg_terminate_backend(1) --'",
            "SELECT length(pg_read_file\u{0C}('/etc/passwd'))", "SELECT $é$'$é$ AS a, pg_read_file($$/etc/hostname$$), '' AS c",
            // Queries given as text, replication, statistics, index maintenance.
            "SELECT query_to_xml('select lo_import(''/etc/passwd'')', true, false, '')",
            "SELECT * FROM ts_stat('select to_tsvector(pg_read_file(''/etc/hostname''))')",
            "SELECT pg_copy_physical_replication_slot('a', 'b')", "SELECT pg_replication_origin_advance('o', '0/AB')",
            "SELECT pg_stat_reset_shared('bgwriter')", "SELECT gin_clean_pending_list('gi')",
        ] {
            let r = try CLIRunner.run(["sql", "--db", url, statement])
            #expect(r.code == 64, "\(statement): \(r.code) \(r.stderr)")
            #expect(r.stderr.contains("read-only") && r.stderr.contains("--write"), "\(statement): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test("a password is never echoed: not from libpq's own messages, not from a --db urna took for a path")
    func passwordsNeverEchoed() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("c.csv").path
        FileManager.default.createFile(atPath: file, contents: Data("x\n".utf8))
        for (db, secrets) in [
            ("postgresql://pwuser:50%off!@127.0.0.1:9/pw", ["50%off!", "off!"]),
            ("Postgresql://pwuser:Upper9Secret@127.0.0.1:9/pw", ["Upper9Secret"]),
            ("host=127.0.0.1 port=9 password=KVsecret dbname=pw", ["KVsecret"]),
        ] {
            for args in [["status", "--db", db], ["import", "--db", db, file]] {
                let r = try CLIRunner.run(args)
                #expect(r.code != 0)
                // The message is still there, with the password masked (not an empty line).
                #expect(r.stderr.hasPrefix("Error: ") && (args[0] != "status" || r.stderr.contains("***")), "\(args): \(r.stderr)")
                for secret in secrets {
                    #expect(!r.stderr.contains(secret) && !r.stdout.contains(secret), "\(args): \(r.stderr)")
                }
            }
        }
    }

    @Test("migrate --dry-run on a people v0 database leaves it as it was; the real run gives v2 with every fullName")
    func migratePeople() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "people")
        let created = try CLIRunner.run(["init", "--db", url, "--family", "people", "--version", "0"])
        #expect(created.code == 0, "\(created.stderr)")
        _ = try pg.psql(
            """
            INSERT INTO "Person"("firstName", "lastName", age)
            SELECT 'First' || i, 'Last' || i, i FROM generate_series(1, 30) AS i
            """, url: url)
        let before = try pg.psql("SELECT * FROM \"Person\" ORDER BY _id", url: url)
        let dry = try CLIRunner.run(["migrate", "--db", url, "--dry-run"])
        #expect(dry.code == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("people v0 → v2"), "\(dry.stdout)")
        #expect(dry.stdout.contains("the database was not changed") && !dry.stdout.contains("file"), "\(dry.stdout)")
        #expect(try pg.psql("SELECT * FROM \"Person\" ORDER BY _id", url: url) == before)
        #expect(try pg.psql("SELECT version FROM _urna_schema", url: url) == "0\n")
        let real = try CLIRunner.run(["migrate", "--db", url])
        #expect(real.code == 0, "\(real.stderr)")
        #expect(try pg.psql("SELECT version FROM _urna_schema", url: url) == "2\n")
        let names = try pg.psql("SELECT count(*) FROM \"Person\" WHERE \"fullName\" = 'First' || age || ' Last' || age", url: url)
        #expect(names == "30\n")
        let history = try pg.psql("SELECT from_version || '->' || to_version FROM _urna_history", url: url)
        #expect(history == "0->2\n")
        // Rows added by psql after the upgrade get fresh identities (the sequence follows the copied rows).
        _ = try pg.psql("INSERT INTO \"Person\"(\"fullName\") VALUES ('Grace Hopper')", url: url)
        #expect(try pg.psql("SELECT _id FROM \"Person\" WHERE \"fullName\" = 'Grace Hopper'", url: url) == "31\n")
        let again = try CLIRunner.run(["migrate", "--db", url])
        #expect(again.code == 0)
        #expect(again.stdout.contains("nothing to do: \(url)"), "\(again.stdout)")
    }

    @Test("a user's foreign key into a table the write rebuilds stops it before any work; the database is not changed")
    func refusedWriteBackSaysNothingChanged() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "fkblock")
        #expect(try CLIRunner.run(["init", "--db", url, "--family", "people", "--version", "0"]).code == 0)
        _ = try pg.psql(
            """
            INSERT INTO "Person"("firstName", "lastName", age) VALUES ('Ana', 'Souza', 30);
            CREATE TABLE notes (person bigint REFERENCES "Person"(_id), body text);
            INSERT INTO notes VALUES (1, 'kept');
            """, url: url)
        let before = try pg.psql("SELECT * FROM \"Person\" ORDER BY _id", url: url)
        let r = try CLIRunner.run(["migrate", "--db", url])
        #expect(r.code != 0, "\(r.stdout)\n\(r.stderr)")
        // Refused before the migration ran on the working copy, naming the key and the fix.
        #expect(
            r.stderr.contains("nothing was changed") && r.stderr.contains("foreign key notes_person_fkey into Person")
                && r.stderr.contains("DROP CONSTRAINT") && !r.stdout.contains("migrated"), "\(r.stderr)")
        #expect(try pg.psql("SELECT * FROM \"Person\" ORDER BY _id", url: url) == before)
        #expect(try pg.psql("SELECT version FROM _urna_schema", url: url) == "0\n")
        #expect(try pg.psql("SELECT body FROM notes", url: url) == "kept\n")
    }

    @Test("adopt brings psql's own plain tables under people v0 (dry run first), then migrate upgrades them")
    func adoptPlainTables() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "adopt")
        _ = try pg.psql(
            """
            CREATE TABLE "Person" ("firstName" varchar(40), "lastName" text, age integer);
            INSERT INTO "Person" VALUES ('Ana', 'Souza', 30), ('José', 'Lima', 41);
            CREATE TABLE notes (body text); INSERT INTO notes VALUES ('kept');
            """, url: url)
        let dry = try CLIRunner.run(["adopt", "--db", url, "--family", "people", "--version", "0", "--dry-run"])
        #expect(dry.code == 0, "\(dry.stdout) \(dry.stderr)")
        // The messages name the database, never the private working copy.
        #expect(dry.stdout.hasPrefix("would adopt \(url): people version 0 (Person 2)"), "\(dry.stdout)")
        #expect(dry.stdout.contains("dry run: \(url) was not changed"), "\(dry.stdout)")
        #expect(!dry.stdout.contains("urna-postgres-") && !dry.stderr.contains("urna-postgres-"), "\(dry.stdout)")
        #expect(try pg.psql("SELECT count(*) FROM information_schema.tables WHERE table_name = '_urna_schema'", url: url) == "0\n")
        let adopt = try CLIRunner.run(["adopt", "--db", url, "--family", "people", "--version", "0"])
        #expect(adopt.code == 0, "\(adopt.stdout) \(adopt.stderr)")
        #expect(adopt.stdout.hasPrefix("adopted \(url): people version 0 (Person 2)"), "\(adopt.stdout)")
        #expect(adopt.stdout.contains("next: urna migrate --db \(url) --dry-run"), "\(adopt.stdout)")
        #expect(!adopt.stdout.contains("urna-postgres-"), "\(adopt.stdout)")
        #expect(try pg.psql("SELECT version FROM _urna_schema", url: url) == "0\n")
        #expect(try pg.psql("SELECT _id, \"firstName\", \"lastName\", age FROM \"Person\" ORDER BY _id", url: url)
            == "1|Ana|Souza|30\n2|José|Lima|41\n")
        #expect(try pg.psql("SELECT body FROM notes", url: url) == "kept\n", "a table of nobody's family stays")
        let migrate = try CLIRunner.run(["migrate", "--db", url])
        #expect(migrate.code == 0, "\(migrate.stderr)")
        #expect(try pg.psql("SELECT \"fullName\" FROM \"Person\" ORDER BY age", url: url) == "Ana Souza\nJosé Lima\n")
    }

    /// Imports AC 2016 into `url`; the Candidate count now, and the count once MG 2018's 2,388 are added.
    func importAC2016(_ pg: PostgresTestCluster, _ url: String) throws -> (before: String, complete: String) {
        let first = try CLIRunner.run(["import", "--db", url, "--quiet", sample.appendingPathComponent("consulta_cand_2016_AC.txt").path])
        #expect(first.code == 0, "\(first.stderr)")
        let before = try pg.psql("SELECT count(*) FROM \"Candidate\"", url: url)
        return (before, "\((Int(before.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) + 2388)\n")
    }

    /// Starts `urna import` of the MG 2018 pair into `url` (rejects in `rejects`), stdout discarded.
    func startMGImport(_ url: String, rejects: URL, stderr: Any) throws -> Process {
        let p = Process()
        p.executableURL = CLIRunner.binary
        p.arguments = [
            "import", "--db", url, "--quiet", "--rejects", rejects.appendingPathComponent("r.csv").path,
            sample.appendingPathComponent("consulta_cand_2018_MG.csv").path,
            sample.appendingPathComponent("bem_candidato_2018_MG.csv").path,
        ]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = stderr
        try p.run()
        return p
    }

    @Test("SIGKILL at any moment of an import into PostgreSQL leaves the database as it was")
    func killedImportChangesNothing() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "kill")
        let (before, complete) = try importAC2016(pg, url)
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var killed: [Int32] = []
        for delay in [0.1, 0.3, 0.5, 0.7, 0.9, 1.2] {
            let p = try startMGImport(url, rejects: dir, stderr: FileHandle.nullDevice)
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            guard p.terminationReason == .uncaughtSignal else { break }  // it finished first: later delays would too
            killed.append(p.processIdentifier)
            // All or nothing: as before, or (a kill that landed after COMMIT, before the process exited)
            // every one of MG's 2,388 candidacies added; never a part.
            let now = try pg.psql("SELECT count(*) FROM \"Candidate\"", url: url)
            #expect([before, complete].contains(now), "killed after \(delay) s: \(now)")
        }
        #expect(killed.count >= 3, "the import finished before most kills, so they tested little")
        // The next run is not blocked by the dead ones' locks, and removes their working copies.
        let next = try CLIRunner.run(["import", "--db", url, "--quiet", "--rejects", dir.appendingPathComponent("r.csv").path,
            sample.appendingPathComponent("consulta_cand_2018_MG.csv").path, sample.appendingPathComponent("bem_candidato_2018_MG.csv").path])
        #expect(next.code == 0, "\(next.stderr)")
        #expect(try CLIRunner.run(["query", "--db", url, "Candidate", "state == 'MG'", "--count"]).stdout == "2388\n")
        let leftovers = (try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())).filter { name in
            killed.contains { name.hasPrefix("urna-postgres-\($0)-") }
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("SIGINT during an import into PostgreSQL: it stops within the grace period and says truly what happened")
    func interruptedImportSaysWhatHappened() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "sigint")
        let (before, complete) = try importAC2016(pg, url)
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var interrupted = 0
        // What "nothing was changed" must find: the AC data alone until one import got through, then all of it.
        var unchanged = before
        for delay in [0.2, 0.5, 0.8, 1.1] {
            let err = Pipe()
            let p = try startMGImport(url, rejects: dir, stderr: err)
            Thread.sleep(forTimeInterval: delay)
            let sent = Date()
            kill(p.processIdentifier, SIGINT)
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            let took = Date().timeIntervalSince(sent)
            let now = try pg.psql("SELECT count(*) FROM \"Candidate\"", url: url)
            if p.terminationStatus == 0 {
                #expect(now == complete, "finished before the signal")
                unchanged = complete
                // A signal that landed after the work was done says it is kept (quiet only if it came too late).
                #expect(message.isEmpty || message.contains("is kept"), "\(message)")
                continue
            }
            interrupted += 1
            #expect(p.terminationStatus == 130, "\(message)")
            #expect(took < 4, "took \(took) s to stop after SIGINT")
            if message.contains("nothing was changed") {
                #expect(now == unchanged, "said nothing was changed after \(delay) s, but the database has \(now)")
            } else if message.contains("it is kept") {
                #expect(now == complete, "said the change was kept after \(delay) s, but the database has \(now)")
            } else {
                #expect(message.contains("may or may not have been committed"), "\(message)")
                #expect([unchanged, complete].contains(now))
            }
        }
        #expect(interrupted >= 2, "the import finished before most signals, so they tested little")
        // A statement running on the server is cancelled at once (PQcancel), not waited for.
        let p = Process()
        p.executableURL = CLIRunner.binary
        p.arguments = ["sql", "--db", url, "SELECT pg_sleep(30)"]
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        try p.run()
        Thread.sleep(forTimeInterval: 0.8)
        let sent = Date()
        kill(p.processIdentifier, SIGINT)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(Date().timeIntervalSince(sent) < 2, "the server statement was not cancelled")
        #expect(p.terminationStatus == 130 && message.contains("interrupted: nothing was changed"), "\(message)")
    }

    @Test("a second writer waits for the first and then gives up with a clear message; nothing changes")
    func writersAreKeptApart() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "locks")
        #expect(try CLIRunner.run(["init", "--db", url, "--family", "people", "--version", "0"]).code == 0)
        // Another session holds urna's advisory lock for a few seconds.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: pg.binDirectory + "/psql")
        holder.arguments = [url, "-X", "-q", "-c", "BEGIN; SELECT pg_advisory_xact_lock(1970433633); SELECT pg_sleep(4); COMMIT"]
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer { holder.waitUntilExit() }
        Thread.sleep(forTimeInterval: 0.8)
        let blocked = try AnalysisFixtures.run(
            CLIRunner.binary, ["migrate", "--db", url], environment: ["URNA_PG_LOCK_TIMEOUT": "500"])
        #expect(blocked.code == 1, "\(blocked.stdout) \(blocked.stderr)")
        #expect(blocked.stderr.contains("being written by another urna run"), "\(blocked.stderr)")
        #expect(try pg.psql("SELECT version FROM _urna_schema", url: url) == "0\n")
    }

    @Test("urna copy: SQLite -> PostgreSQL -> SQLite keeps every object (the JSON exports are equal)")
    func copyRoundTrip() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "copy")
        let (dir, db) = try AnalysisFixtures.mgDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let up = try CLIRunner.run(["copy", "--from", db, "--to", url])
        #expect(up.code == 0, "\(up.stderr)")
        #expect(up.stdout.contains("Candidate 2388"), "\(up.stdout)")
        // The query suite answers the same on both backends ([c] and [d] folding, links, lists, aggregates).
        let queries: [[String]] = [
            ["Candidate", "name CONTAINS[cd] 'jose'", "--sort", "sequence", "--fields", "sequence,name"],
            ["Candidate", "nickname BEGINSWITH[c] 'zé' OR nickname ==[cd] 'ROMEU ZEMA'", "--fields", "nickname", "--sort", "sequence"],
            ["Candidate", "party.acronym IN {'NOVO', 'PT'} AND postCode == 6", "--count"],
            ["Candidate", "goods.@count > 10", "--sort", "sequence", "--limit", "20", "--fields", "sequence,nickname"],
            ["Good", "value > 1000000 AND candidacy.state == 'MG'", "--sort", "value", "--desc", "--limit", "15", "--csv"],
            ["Party", "acronym LIKE[c] 'p*'", "--sort", "acronym", "--json"],
        ]
        for q in queries {
            let a = try CLIRunner.run(["query", "--db", db] + q)
            let b = try CLIRunner.run(["query", "--db", url] + q)
            #expect(a.code == 0 && b.code == 0, "\(q): \(a.stderr) \(b.stderr)")
            #expect(a.stdout == b.stdout, "\(q) answers differently on PostgreSQL")
            #expect(!a.stdout.isEmpty && a.stdout != "0\n", "\(q) matched nothing, so it compares nothing")
        }
        let refused = try CLIRunner.run(["copy", "--from", db, "--to", url])
        #expect(refused.code == 1)
        #expect(refused.stderr.contains("--replace"), "\(refused.stderr)")
        let back = dir.appendingPathComponent("back.sqlite").path
        let down = try CLIRunner.run(["copy", "--from", url, "--to", back])
        #expect(down.code == 0, "\(down.stderr)")
        let occupied = try CLIRunner.run(["copy", "--from", url, "--to", back])
        #expect(occupied.code == 1, "a copy never replaces a file")
        for type in ["Candidate", "Good", "Party", "Coalition", "Election"] {
            let a = try CLIRunner.run(["export", "--db", db, "--format", "json", "--type", type, "--quiet"])
            let b = try CLIRunner.run(["export", "--db", back, "--format", "json", "--type", type, "--quiet"])
            #expect(a.code == 0 && b.code == 0, "\(a.stderr) \(b.stderr)")
            #expect(a.stdout == b.stdout, "\(type) differs after the round trip")
            #expect(a.stdout.count > 100)
        }
        // The copied file is a whole Urna file: its views answer as the original's do.
        let q = "SELECT sum(VR_BEM_CANDIDATO_CENTAVOS) FROM goods"
        #expect(
            try CLIRunner.run(["sql", "--db", back, q, "--csv"]).stdout
                == CLIRunner.run(["sql", "--db", db, q, "--csv"]).stdout)
        let replaced = try CLIRunner.run(["copy", "--from", back, "--to", url, "--replace"])
        #expect(replaced.code == 0, "\(replaced.stderr)")
        #expect(try CLIRunner.run(["query", "--db", url, "Good", "--count"]).stdout == "8583\n")
    }

    @Test("urna copy names the tables and views it leaves behind (not the family's), both ways; the family's own views are not named")
    func copyNamesWhatItLeaves() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "copyleft")
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("p.sqlite").path
        #expect(try CLIRunner.run(["init", "--db", db, "--family", "people", "--version", "0"]).code == 0)
        let sql = try CLIRunner.run([
            "sql", "--db", db, "--write",
            "CREATE TABLE notes AS SELECT 'kept' AS body",
        ])
        #expect(sql.code == 0, "\(sql.stderr)")
        #expect(try CLIRunner.run(["sql", "--db", db, "--write", "CREATE VIEW adults AS SELECT * FROM Person WHERE age > 17"]).code == 0)
        let up = try CLIRunner.run(["copy", "--from", db, "--to", url])
        #expect(up.code == 0, "\(up.stderr)")
        #expect(up.stderr.contains("warning: not copied") && up.stderr.contains("notes (table)") && up.stderr.contains("adults (view)"), "\(up.stderr)")
        #expect(!up.stderr.contains("Person"), "\(up.stderr)")
        _ = try pg.psql("CREATE TABLE server_cache (k text)", url: url)
        let down = try CLIRunner.run(["copy", "--from", url, "--to", dir.appendingPathComponent("back.sqlite").path])
        #expect(down.code == 0, "\(down.stderr)")
        #expect(down.stderr.contains("server_cache (table)") && !down.stderr.contains("Person"), "\(down.stderr)")

        let (mgDir, mg) = try AnalysisFixtures.mgDatabase()
        defer { try? FileManager.default.removeItem(at: mgDir) }
        let elections = try CLIRunner.run(["copy", "--from", mg, "--to", try pg.createDatabase(prefix: "copyviews")])
        #expect(elections.code == 0, "\(elections.stderr)")
        #expect(!elections.stderr.contains("not copied"), "the family's views and lists are its own: \(elections.stderr)")
    }

    @Test("urna sql on PostgreSQL binds :name only outside strings, dollar quotes, comments and ::casts")
    func parametersOnPostgres() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "params")
        let r = try CLIRunner.run([
            "sql", "--db", url,
            "SELECT $$:x$$ AS a, E'it\\'s :y' AS b, 'q'':u' AS d, :z::int + 1 AS c /* :w */ -- :v",
            "--param", "z=5", "--csv",
        ])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout == "a,b,d,c\n:x,it's :y,q':u,6\n", "\(r.stdout)")
        let missing = try CLIRunner.run(["sql", "--db", url, "SELECT :k"])
        #expect(missing.code == 64)
        #expect(missing.stderr.contains("--param k"), "\(missing.stderr)")
    }

    @Test("nothing of the server's is lost by a write: an added column is refused by name, an unstorable date stops the read")
    func serverSideDataIsNeverDropped() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "keep")
        let ac = sample.appendingPathComponent("consulta_cand_2016_AC.txt").path
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLIRunner.run(["import", "--db", url, "--quiet", ac], in: dir).code == 0)
        _ = try pg.psql("ALTER TABLE \"Party\" ADD COLUMN note text; UPDATE \"Party\" SET note = 'checked by desk'", url: url)
        let refused = try CLIRunner.run(["import", "--db", url, "--quiet", ac], in: dir)
        #expect(refused.code != 0)
        #expect(refused.stderr.contains("Party has a column note"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("urna-postgres-"), "\(refused.stderr)")
        #expect(try pg.psql("SELECT count(note) FROM \"Party\"", url: url) != "0\n")
        _ = try pg.psql("ALTER TABLE \"Party\" DROP COLUMN note", url: url)
        _ = try pg.psql("UPDATE \"Candidate\" SET birthdate = 'infinity' WHERE id = (SELECT min(id) FROM \"Candidate\")", url: url)
        // Printed, the date stops the read (never rounded); counted on the server, it prints nothing and is kept.
        let read = try CLIRunner.run(["query", "--db", url, "Candidate", "--fields", "name,birthdate"])
        #expect(read.code != 0)
        #expect(read.stderr.contains("infinity") && read.stderr.contains("birthdate"), "\(read.stderr)")
        let copied = try CLIRunner.runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["URNA_PG_WORKING_COPY=1", CLIRunner.binary.path, "query", "--db", url, "Candidate", "--count"])
        #expect(copied.code != 0 && copied.stderr.contains("infinity"), "\(copied.stderr)")
        let counted = try CLIRunner.run(["query", "--db", url, "Candidate", "birthdate > '2100-01-01'", "--count"])
        #expect(counted.code == 0 && counted.stdout == "1\n", "\(counted.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM \"Candidate\" WHERE birthdate = 'infinity'", url: url) == "1\n")
    }

    @Test("commands that only make sense for files say so on PostgreSQL")
    func fileOnlyCommands() throws {
        let url = "postgresql://urna@127.0.0.1:1/none"
        let restore = try CLIRunner.run(["restore", "--db", url])
        #expect(restore.code == 64)
        #expect(restore.stderr.contains("pg_dump"), "\(restore.stderr)")
        let vacuum = try CLIRunner.run(["migrate", "--db", url, "--vacuum"])
        #expect(vacuum.code == 64)
        let unreachable = try CLIRunner.run(["status", "--db", "postgresql://urna:secret@127.0.0.1:1/none"])
        #expect(unreachable.code == 1)
        #expect(unreachable.stderr.contains("cannot connect"), "\(unreachable.stderr)")
        #expect(!unreachable.stderr.contains("secret"), "the password must never be printed")
        for location in [
            "postgresql://urna:secret1@127.0.0.1:1/none?password=secret2",
            "postgresql://urna:sec/ret@127.0.0.1:1/none",
        ] {
            let r = try CLIRunner.run(["status", "--db", location])
            #expect(r.code == 1)
            #expect(!r.stderr.contains("secret") && !r.stderr.contains("sec/ret") && !r.stderr.contains("ret@"), "\(r.stderr)")
        }
    }
}
