import Foundation
import PostgresTestSupport
import Testing

/// `urna query --db postgresql://` answered on the server (compiled SQL, no working copy) prints exactly what
/// the working copy printed (`URNA_PG_WORKING_COPY=1` forces the working copy).
@Suite("urna query on PostgreSQL without a working copy, against a real PostgreSQL server", .serialized)
struct CLIPostgresQueryTests {
    /// The MG 2018 pair imported into a new database (one per test process).
    static func mgDatabase() throws -> String {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "mgquery")
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = AnalysisFixtures.sample
        let r = try CLIRunner.run(
            [
                "import", "--db", url, sample.appendingPathComponent("consulta_cand_2018_MG.csv").path,
                sample.appendingPathComponent("bem_candidato_2018_MG.csv").path,
            ], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        return url
    }

    static func workingCopy(_ args: [String]) throws -> CLIResult {
        try CLIRunner.runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["URNA_PG_WORKING_COPY=1", CLIRunner.binary.path] + args)
    }

    static let queries: [[String]] = [
        ["Candidate", "--count"],
        ["Candidate", "vice != nil", "--count"],
        ["Good", "value > 1000000", "--count"],
        ["Candidate", "name BEGINSWITH[cd] 'jose' AND party.acronym IN {'PT', 'PSL'}", "--json"],
        ["Candidate", "name CONTAINS[c] 'são' OR nickname CONTAINS[d] 'JOAO'", "--sort", "name", "--csv"],
        ["Candidate", "nickname LIKE[c] '*zé*'", "--table"],
        ["Candidate", "birthdate < '1950-01-01'", "--sort", "birthdate,name", "--desc", "--limit", "20"],
        ["Candidate", "birthdate BETWEEN {'1960-01-01', '1961-01-01'}", "--sort", "birthdate,name", "--json"],
        ["Good", "value BETWEEN {1000, 2000}", "--sort", "value,goodDescription", "--limit", "50", "--csv"],
        ["Good", "value == 1000.5 OR value <= 0.01", "--sort", "value", "--csv"],
        ["Good", "goodDescription LIKE[cd] '*imovel?*'", "--count"],
        ["Good", "goodDescription CONTAINS '_' OR goodDescription ENDSWITH '%'", "--count"],
        [
            "Good", "candidacy.party.acronym IN {'PT', 'NOVO'}", "--sort", "candidacy.name,order", "--fields",
            "candidacy.name,order,value,type.name", "--limit", "40",
        ],
        [
            "Candidate", "ANY goods.value > 1000000 AND NOT name CONTAINS 'A'", "--sort", "name", "--limit", "3",
            "--fields", "name,party.acronym,goods.value,goods.@count,goods",
        ],
        ["Candidate", "goods.@sum.value > 10000000", "--fields", "name,total=goods.@count", "--sort", "name"],
        ["Candidate", "ALL goods.value > 100000", "--count"],
        ["Candidate", "NONE goods.value > 100", "--count", "--limit", "5"],
        ["Candidate", "vice.party.acronym == party.acronym", "--fields", "name,vice.name,vice"],
        ["Candidate", "--sort", "socialName,name", "--limit", "5", "--fields", "socialName,name"],
        ["Candidate", "--sort", "socialName", "--desc", "--limit", "5", "--fields", "socialName,name"],
        ["Candidate", "--limit", "3"],
        ["Candidate", "--limit", "2", "--json"],
        ["Party", "--sort", "acronym", "--desc", "--table"],
        ["Election", "--csv"],
        ["GoodType", "name CONTAINS[cd] 'acao'", "--json"],
        // Errors and warnings, word for word.
        ["Candidate", "namex == 1"], ["Candidate", "name == 1"], ["Candidate", "--sort", "goods"],
        ["Candidate", "--fields", "nmae"], ["Candidat"], ["Candidate", "--limit", "-1"],
        ["Candidate", "name LIKE '%JOSE%'", "--count"], ["Candidate", "--json", "--csv"],
    ]

    @Test("every query prints what the working copy printed: values, order, errors, warnings")
    func sameOutputAsTheWorkingCopy() throws {
        let url = try Self.mgDatabase()
        for q in Self.queries {
            let args = ["query", "--db", url] + q
            let native = try CLIRunner.run(args)
            let copy = try Self.workingCopy(args)
            #expect(native.code == copy.code, "\(q)")
            #expect(native.stdout == copy.stdout, "\(q)")
            #expect(native.stderr == copy.stderr, "\(q)")
            #expect(!native.stdout.isEmpty || !native.stderr.isEmpty, "\(q)")
        }
    }

    @Test("status prints what the working copy printed; a database without Urna data gets the same error")
    func statusAndEmptyDatabase() throws {
        let pg = try postgresClusterOrSkip()
        let url = try Self.mgDatabase()
        let empty = try pg.createDatabase(prefix: "empty")
        for args in [
            ["status", "--db", url], ["status", "--db", url, "--json"], ["status", "--db", empty],
            ["query", "--db", empty, "Candidate", "--count"],
        ] {
            let native = try CLIRunner.run(args)
            let copy = try Self.workingCopy(args)
            #expect(native.code == copy.code && native.stdout == copy.stdout && native.stderr == copy.stderr, "\(args)")
        }
        let status = try CLIRunner.run(["status", "--db", url])
        #expect(
            status.stdout.contains("Candidate     2388") && status.stdout.contains("Good          8583"), "\(status)")
    }

    @Test("a query waits while a writer holds _urna_schema (a refill), then answers; a short lock_timeout says why")
    func readersWaitForARefill() throws {
        let pg = try postgresClusterOrSkip()
        let url = try Self.mgDatabase()
        // What a writer's refill holds: _urna_schema locked against readers until it commits.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: pg.binDirectory + "/psql")
        holder.arguments = [
            url, "-X", "-q", "-c",
            "BEGIN; LOCK TABLE _urna_schema IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(3); COMMIT",
        ]
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer { holder.waitUntilExit() }
        Thread.sleep(forTimeInterval: 0.8)
        let impatient = try AnalysisFixtures.run(
            CLIRunner.binary, ["query", "--db", url, "Candidate", "--count"],
            environment: ["URNA_PG_LOCK_TIMEOUT": "300"])
        #expect(impatient.code == 1 && impatient.stderr.contains("being written by another urna run"), "\(impatient)")
        let started = Date()
        let patient = try CLIRunner.run(["query", "--db", url, "Candidate", "--count"])
        #expect(patient.code == 0 && patient.stdout == "2388\n", "\(patient.stderr)")
        #expect(Date().timeIntervalSince(started) > 0.5, "it answered while the refill held the lock")
    }

    @Test("it reads only the tables the query needs: a role without SELECT on the others still gets its answer")
    func runsOnTheServer() throws {
        let pg = try postgresClusterOrSkip()
        let url = try Self.mgDatabase()
        let role = "reader_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try pg.psql(
            """
            CREATE ROLE \(role) LOGIN; GRANT SELECT ON "_urna_schema", "Candidate", "Party", "Good" TO \(role);
            """, url: url)
        let database = url.split(separator: "/").last.map(String.init) ?? ""
        let readerURL = "postgresql://\(role)@\(pg.host):\(pg.port)/\(database)"
        let native = try CLIRunner.run(
            [
                "query", "--db", readerURL, "Candidate", "party.acronym == 'NOVO' AND name CONTAINS[cd] 'joao'",
                "--count",
            ])
        #expect(
            native.code == 0 && native.stdout.range(of: #"^[0-9]+\n$"#, options: .regularExpression) != nil,
            "\(native.stderr)")
        // The working copy copies every table, so it is refused there.
        let copy = try Self.workingCopy(["query", "--db", readerURL, "Candidate", "--count"])
        #expect(copy.code != 0 && copy.stderr.contains("permission denied"), "\(copy.stderr)")
        // Lists and @count read Candidate_goods, which this role cannot: refused, not answered from elsewhere.
        let lists = try CLIRunner.run(["query", "--db", readerURL, "Candidate", "goods.@count > 3", "--count"])
        #expect(lists.code != 0 && lists.stderr.contains("permission denied"), "\(lists.stderr)")
    }
}
