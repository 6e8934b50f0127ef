import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

@testable import UrnaImport

/// A `--db` file made by an older urna, then upgraded by the migrator as `urna migrate` runs it (with the app's
/// version, so the run ledger's columns are in `_urna_history`), takes imports again. Found by the sixth
/// real-files trial: every such import was rolled back ("after the import the file does not match its schema
/// (_urna_history: column outcome is not in the descriptor; ...)", exit 65), so a migrated file could never take
/// another file; and an import into an older file named the library's Migrator, not `urna migrate`.
@Suite struct MigratedFileImportTests {
    typealias S = ImportTestSupport

    static let files = [
        "consulta_cand_2014_AC.original-excerpt.txt", "consulta_cand_2014_AC.rereleased-variant.58col.csv",
        "bem_candidato_2014_AC.original-excerpt.txt", "sample_consulta_cand_2018_MG.58col.csv",
        "sample_bem_candidato_2018_MG.csv", "sample_consulta_cand_2012_AC.original-noheader.txt",
    ]

    @Test("an import into a file made by an older urna names `urna migrate` and leaves the file as it was")
    func olderFileIsRefusedNamingTheCommand() throws {
        let folder = try S.scratchFolder()
        let path = folder + "/v3.sqlite"
        try FileManager.default.copyItem(atPath: S.fixture("elections-v3-by-urna-e42b860.sqlite"), toPath: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            try S.importFiles([S.fixture("sample_consulta_cand_2018_MG.58col.csv")], into: path)
        } throws: { error in
            guard let e = error as? ImportError, case .database(_, let reason, let code) = e else { return false }
            return code == 65 && reason.contains("version 3, made by an older urna")
                && reason.contains("`urna migrate --db \(path)`") && !reason.contains("UrnaMigrator's Migrator")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test(
        "a v3 file upgraded as `urna migrate` does takes the files that made it, and gives a fresh import's candidacies"
    )
    func migratedFileTakesImports() throws {
        let folder = try S.scratchFolder()
        let path = folder + "/v3.sqlite"
        try FileManager.default.copyItem(atPath: S.fixture("elections-v3-by-urna-e42b860.sqlite"), toPath: path)
        var migrator = try SchemaFamilies.registry.migrator(forFileAt: path)
        migrator.options.appVersion = "urna test"
        _ = try migrator.run(try migrator.plan(path: path), backup: .none)
        let history = try Connection(path: path, readOnly: true, create: false)
            .rows("SELECT name FROM pragma_table_info('_urna_history')").map { "\($0[0])" }
        #expect(history.contains("app_version"), "the ledger columns this test is about: \(history)")

        let summary = try S.importFiles(Self.files.map(S.fixture), into: path, keepPersonalData: true)
        #expect(summary.rows.inserted == 0, "every candidacy was already there: \(summary.rows)")
        let fresh = try S.newDatabasePath()
        _ = try S.importFiles(Self.files.map(S.fixture), into: fresh, keepPersonalData: true)
        for type in ["Election", "Candidate", "Good", "GoodType", "Coalition"] {
            #expect(try S.counts(path)[type] == S.counts(fresh)[type], "\(type)")
        }
        // Every candidacy column the import writes, the source columns v3 did not keep included, is a fresh
        // import's.
        let sql = "SELECT * FROM Candidate ORDER BY id"
        let migrated = try Connection(path: path, readOnly: true, create: false).rows(sql)
        let imported = try Connection(path: fresh, readOnly: true, create: false).rows(sql)
        #expect(migrated == imported)
        #expect(try S.foreignKeyViolations(path) == 0)
    }
}
