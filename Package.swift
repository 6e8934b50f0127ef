// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Urna",
    products: [
        .library(name: "UrnaStore", targets: ["UrnaStore"]),
        .library(name: "UrnaMigrator", targets: ["UrnaMigrator"]),
        .library(name: "UrnaSchemas", targets: ["UrnaSchemas"]),
        .library(name: "UrnaRecords", targets: ["UrnaRecords"]),
        .library(name: "UrnaImport", targets: ["UrnaImport"]),
        .library(name: "UrnaCommandLine", targets: ["UrnaCommandLine"]),
        .library(name: "UrnaPostgres", targets: ["UrnaPostgres"]),
        .executable(name: "urna", targets: ["urna"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CPostgreSQL", path: "Sources/CPostgreSQL", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        // Paths taken apart without NSString (its deletingLastPathComponent traps on one-character names), for the
        // store and the downloads, which do not depend on each other.
        .target(name: "UrnaPaths"),
        // Schema, objects, queries, transactions and the SQLite storage contract.
        .target(name: "UrnaStore", dependencies: ["CSQLite", "UrnaPaths"]),
        // Descriptors -> plan -> run or dry run.
        .target(name: "UrnaMigrator", dependencies: ["UrnaStore", "CSQLite"]),
        // The schema history (people, elections) as data + closures.
        .target(name: "UrnaSchemas", dependencies: ["UrnaStore", "UrnaMigrator"], path: "Migrations"),
        // Files -> records: byte input, CSV, XML, zip, TSE layouts. Knows nothing of the store.
        .target(name: "UrnaRecords", dependencies: ["CLibXML2", "CZlib"]),
        // Records -> election objects -> store; exports.
        .target(name: "UrnaImport", dependencies: ["UrnaStore", "UrnaMigrator", "UrnaSchemas", "UrnaRecords"]),
        // HTTP downloads of TSE's open-data files (libcurl): resumable, cached, verified.
        .target(name: "UrnaDownload", dependencies: ["CCurl", "UrnaRecords", "UrnaPaths"]),
        // The PostgreSQL backend (libpq): the storage contract on PostgreSQL, COPY both ways between stores.
        .target(name: "UrnaPostgres", dependencies: ["CPostgreSQL", "UrnaStore"]),
        // Every urna command, for any families: `urna` itself and an app's own executable.
        .target(name: "UrnaCommandLine", dependencies: ["UrnaStore", "UrnaMigrator", "UrnaSchemas", "UrnaImport", "UrnaRecords", "UrnaDownload", "UrnaPostgres", "CSQLite"]),
        .executableTarget(name: "urna", dependencies: ["UrnaCommandLine", "UrnaSchemas"]),
        // An app's own family and executable (UrnaCommandLine.main(families:)), for tests and the benchmark.
        .target(name: "LibraryFamily", dependencies: ["UrnaStore", "UrnaMigrator"], path: "Examples/LibraryFamily"),
        .executableTarget(name: "library-app", dependencies: ["UrnaCommandLine", "LibraryFamily"], path: "Examples/library-app"),
        // A third app's family (a clinic: type renamed and changed, merged types, join types, keys with incoming links).
        .target(name: "ClinicFamily", dependencies: ["UrnaStore", "UrnaMigrator"], path: "Examples/ClinicFamily"),
        .executableTarget(name: "clinic-app", dependencies: ["UrnaCommandLine", "ClinicFamily"], path: "Examples/clinic-app"),
        // A fourth app's family (field research: UUID keys, a type renamed, a property moved between types, a list
        // turned into a link and back, int -> double -> string, a re-key with incoming list links).
        .target(name: "FieldworkFamily", dependencies: ["UrnaStore", "UrnaMigrator"], path: "Examples/FieldworkFamily"),
        .executableTarget(name: "fieldwork-app", dependencies: ["UrnaCommandLine", "FieldworkFamily"], path: "Examples/fieldwork-app"),
        // A fifth app's family (a shop's inventory: a type renamed, text to dates, a type split off and merged back,
        // a list turned into a link with objects created, string keys to Int with links following).
        .target(name: "InventoryFamily", dependencies: ["UrnaStore", "UrnaMigrator"], path: "Examples/InventoryFamily"),
        .executableTarget(name: "inventory-app", dependencies: ["UrnaCommandLine", "InventoryFamily"], path: "Examples/inventory-app"),
        // A sixth app's family (a newsroom: a type renamed, a rename inside a re-keyed type, optional <-> required, a
        // list whose element type is renamed, an embedded type gaining and losing a property, a moved property, the
        // app's own FTS5 index kept through SQL steps, a squashed baseline).
        .target(name: "NewsroomFamily", dependencies: ["UrnaStore", "UrnaMigrator"], path: "Examples/NewsroomFamily"),
        .executableTarget(name: "newsroom-app", dependencies: ["UrnaCommandLine", "NewsroomFamily"], path: "Examples/newsroom-app"),
        // A seventh app's family (a hotel: a type and its properties renamed in one step, a link turned into a list
        // and back, two types merged, a type split, a moved property, int -> text keys and enum, user SQL objects).
        .target(name: "HotelFamily", dependencies: ["UrnaStore", "UrnaMigrator"], path: "Examples/HotelFamily"),
        .executableTarget(name: "hotel-app", dependencies: ["UrnaCommandLine", "HotelFamily"], path: "Examples/hotel-app"),
        // An eighth app's family (a school: every stored type, a type renamed, a rename by case, a key added and a
        // key changed with links following, a list turned into objects, a split, a merge, a lossy conversion, SQL).
        .target(name: "SchoolFamily", dependencies: ["UrnaStore", "UrnaMigrator"], path: "Examples/SchoolFamily"),
        .executableTarget(name: "school-app", dependencies: ["UrnaCommandLine", "SchoolFamily"], path: "Examples/school-app"),
        // The fourth threads trial: an app that hammers one store from threads, tasks, actors and processes.
        .executableTarget(name: "threads-trial", dependencies: ["UrnaStore", "UrnaMigrator"], path: "Examples/threads-trial"),
        // The benchmarks; PostgresTestSupport starts the throwaway PostgreSQL server the postgres part measures on.
        .executableTarget(name: "urna-bench", dependencies: ["UrnaStore", "UrnaMigrator", "UrnaSchemas", "UrnaImport", "UrnaPostgres", "UrnaRecords", "CSQLite", "PostgresTestSupport", "LibraryFamily"]),
        // A throwaway PostgreSQL server on 127.0.0.1 for the backend tests (skipped, with the reason, without one).
        .target(name: "PostgresTestSupport", path: "Tests/PostgresTestSupport"),
        .target(name: "UrnaTestSupport", path: "Tests/UrnaTestSupport"),
        .testTarget(name: "UrnaPostgresTests", dependencies: ["UrnaPostgres", "UrnaStore", "UrnaSchemas", "UrnaMigrator", "UrnaImport", "PostgresTestSupport"]),
        .testTarget(name: "UrnaStoreTests", dependencies: ["UrnaStore", "UrnaPostgres", "PostgresTestSupport"]),
        .testTarget(name: "UrnaMigratorTests", dependencies: ["UrnaMigrator", "UrnaSchemas", "UrnaStore", "CSQLite", "LibraryFamily", "ClinicFamily", "FieldworkFamily", "InventoryFamily", "NewsroomFamily", "HotelFamily", "SchoolFamily", "UrnaTestSupport"]),
        .testTarget(name: "UrnaRecordsTests", dependencies: ["UrnaRecords", "UrnaTestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "UrnaImportTests", dependencies: ["UrnaImport", "UrnaSchemas", "UrnaStore", "UrnaRecords"], resources: [.copy("Fixtures")]),
        .testTarget(name: "UrnaCLITests", dependencies: ["PostgresTestSupport", "UrnaCommandLine", "FieldworkFamily"], exclude: ["tse_http_server.py"]),
        // Issue 12's attacks (hostile paths, files, archives, signals) against the built binary.
        .testTarget(name: "UrnaHostileTests", dependencies: ["UrnaStore", "CSQLite", "CZlib"]),
    ]
)
