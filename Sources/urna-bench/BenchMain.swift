import Foundation

enum BenchMain {
    static func run(_ args: [String]) -> Int32 {
        var sections = Set(["store", "typed", "list", "migrate", "chain", "import", "xml", "postgres"])
        var rows = 1_000_000
        var candidates = 500_000
        var assets = 1_000_000
        var rounds = 3
        var baseline: String?
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--only":
                i += 1
                sections = Set(args[i].split(separator: ",").map(String.init))
            case "--rows":
                i += 1
                rows = Int(args[i]) ?? rows
            case "--candidates":
                i += 1
                candidates = Int(args[i]) ?? candidates
            case "--assets":
                i += 1
                assets = Int(args[i]) ?? assets
            case "--rounds":
                i += 1
                rounds = max(Int(args[i]) ?? rounds, 1)
            case "--baseline":
                i += 1
                baseline = args[i]
            case "--help":
                print(
                    """
                    urna-bench [--only store,typed,list,migrate,chain,import,xml,postgres,postgres-import] [--rows N] [--candidates N]
                               [--assets N] [--rounds N] [--baseline URNA]
                    Prints urna's time against a real peer on the same data, as a ratio. The migration, import and
                    XML parts run both sides --rounds times (default 3), taking turns, and compare the medians.
                    postgres-import is the PostgreSQL import alone (no migration part); --baseline names another
                    urna executable (an older build) that the PostgreSQL import runs in every round too, in turn.
                    """)
                return 0
            default:
                print("unknown argument \(args[i])")
                return 64
            }
            i += 1
        }
        do {
            print(
                "# urna benchmarks (\(ProcessInfo.processInfo.activeProcessorCount) cores); each part runs in its own process"
            )
            if sections.contains("store") { try StoreBench.run(rows: rows) }
            if sections.contains("typed") { try TypedIterationBench.run(rows: 100_000, rounds: rounds) }
            if sections.contains("list") { try ListBench.run(rounds: rounds) }
            if sections.contains("migrate") {
                print("\n## Migration: \(rows) Person objects, people v0 -> v2 through the closures")
                try runMigrationBench(rows: rows, rounds: rounds, directory: try BenchHarness.temporaryDirectory().path)
            }
            if sections.contains("chain") { try LibraryChainBench.run(books: rows, rounds: rounds) }
            if sections.contains("import") {
                let urna = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                    .appendingPathComponent("urna").path
                try ImportBench.run(candidates: candidates, assets: assets, urna: urna, rounds: rounds)
            }
            if sections.contains("xml") {
                let urna = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                    .appendingPathComponent("urna").path
                try XMLBench.run(urna: urna, candidates: candidates, assets: assets, rounds: rounds)
            }
            if sections.contains("postgres") || sections.contains("postgres-import") {
                let urna = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                    .appendingPathComponent("urna").path
                try PostgresBench.run(
                    candidates: candidates, assets: assets, rows: rows, urna: urna, rounds: rounds, baseline: baseline,
                    importOnly: !sections.contains("postgres"))
            }
        } catch {
            print("benchmark failed: \(error)")
            return 1
        }
        return 0
    }
}

enum BenchChildren {
    static func run(_ name: String, _ args: [String]) -> Int32 {
        do {
            switch name {
            case "child-store-insert": try StoreBench.childStore(path: args[0], rows: Int(args[1])!)
            case "child-raw-insert": try StoreBench.childRaw(path: args[0], rows: Int(args[1])!)
            // The migration bench's sides one at a time (for profilers): build a v0 file, then migrate it
            // with the migrator or with the hand-written SQL.
            case "child-migrate-build": try MigrationBench.buildPeopleV0(at: args[0], rows: Int(args[1])!)
            case "child-migrate-migrator": try MigrationBench.migrateOnly(at: args[0])
            case "child-migrate-sql": try MigrationBench.handWrittenV0ToV2(at: args[0])
            // The chain's v0 file (for profilers): PATH BOOKS.
            case "child-chain-build": try LibraryChainBench.build(at: args[0], books: Int(args[1])!)
            case "child-chain-migrator": try LibraryChainBench.childMigrator(args[0])
            case "child-chain-sql": try LibraryChainBench.childSQL(args[0])
            case "child-chain-checked-sql": try LibraryChainBench.childSQL(args[0], checked: true)
            case "child-chain-stepwise-sql": try LibraryChainBench.childStepwiseSQL(args[0])
            // An import's phases with the seconds each took (reading + writing, held assets, catalogues and
            // index builds, vice links, commit), for finding where its time goes: DB FILE...
            case "child-import-phases": try ImportBench.phases(db: args[0], files: Array(args.dropFirst()))
            // The PostgreSQL push of an Urna file alone, table by table: FILE URL binary|text.
            case "child-pg-push": try PostgresPushPhases.run(file: args[0], url: args[1], binary: args[2] == "binary")
            // The import workload's two files, kept for profilers: DIR CANDIDATES ASSETS.
            case "child-import-workload":
                let files = try ImportWorkload.build(
                    in: URL(fileURLWithPath: args[0]), candidates: Int(args[1])!, assets: Int(args[2])!,
                    candidateSource: try ImportBench.readZipMember("SampleData/consulta_cand_2018_BRASIL.zip"),
                    assetSource: [UInt8](
                        try Data(contentsOf: URL(fileURLWithPath: "SampleData/bem_candidato_2018_MG.csv"))))
                print(files.candidates, files.assets)
            default:
                print("unknown child \(name)")
                return 64
            }
        } catch {
            print("child \(name) failed: \(error)")
            return 1
        }
        return 0
    }
}
