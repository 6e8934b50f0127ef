import Foundation
import Testing
import UrnaImport
import UrnaStore

/// Real TSE files -> database -> export -> fresh database: the two databases hold the same objects, property
/// by property, every type, every list.
@Suite struct ExportRoundTripTests {
    @Test func minasGerais2018ThroughXML() throws {
        let original = try ExportTestFiles.database(
            [ExportTestFiles.sample("consulta_cand_2018_MG.csv"), ExportTestFiles.sample("bem_candidato_2018_MG.csv")])
        let folder = try ImportTestSupport.scratchFolder()
        let xml = try ExportTestFiles.export(original, ExportOptions(format: .xml), to: folder + "/mg.xml")
        #expect(xml.objects == 2388)
        #expect(xml.nestedGoods == 8583)
        let copy = try ExportTestFiles.database([folder + "/mg.xml"])
        let differences = try DatabaseComparison.differences(original, copy)
        #expect(differences.isEmpty, "\(DatabaseComparison.report(differences))")
        #expect(try DatabaseComparison.rowCount(copy, "Good") == 8583)
        #expect(try ImportTestSupport.headsWithVice(copy) == 9)
    }

    @Test func minasGerais2018ThroughCSV() throws {
        let original = try ExportTestFiles.database(
            [ExportTestFiles.sample("consulta_cand_2018_MG.csv"), ExportTestFiles.sample("bem_candidato_2018_MG.csv")])
        let folder = try ImportTestSupport.scratchFolder()
        let candidates = try ExportTestFiles.export(original, ExportOptions(format: .csv), to: folder + "/cand.csv")
        let goods = try ExportTestFiles.export(
            original, ExportOptions(format: .csv, typeName: "Good"), to: folder + "/bens.csv")
        #expect(candidates.objects == 2388)
        #expect(goods.objects == 8583)
        let copy = try ExportTestFiles.database([folder + "/cand.csv", folder + "/bens.csv"])
        let differences = try DatabaseComparison.differences(original, copy)
        #expect(differences.isEmpty, "\(DatabaseComparison.report(differences))")
    }

    /// The header-less 2016 originals: elections without CD_ELEICAO, coalition names from the legend file.
    @Test func acre2016ThroughCSV() throws {
        let original = try ExportTestFiles.database(
            [
                ExportTestFiles.sample("consulta_cand_2016_AC.txt"),
                ExportTestFiles.sample("consulta_legendas_2016_AC.txt"),
            ])
        let folder = try ImportTestSupport.scratchFolder()
        for type in ["Candidate", "Good", "Coalition"] {
            _ = try ExportTestFiles.export(
                original, ExportOptions(format: .csv, typeName: type), to: folder + "/\(type).csv")
        }
        // Every generation names its election by year, round and description: rows of elections without
        // CD_ELEICAO write it as its null marker, in the same layout as the others.
        let csv = try String(contentsOfFile: folder + "/Candidate.csv", encoding: .isoLatin1)
        let lines = csv.split(separator: "\n")
        #expect(lines[0].contains("\"CD_ELEICAO\""))
        #expect(lines[1].split(separator: ";")[6] == "\"-1\"")
        let copy = try ExportTestFiles.database(["Candidate", "Good", "Coalition"].map { folder + "/\($0).csv" })
        let differences = try DatabaseComparison.differences(original, copy)
        #expect(differences.isEmpty, "\(DatabaseComparison.report(differences))")
        #expect(try DatabaseComparison.rowCount(copy, "Party") == 30)
        #expect(try ImportTestSupport.headsWithVice(copy) == 79)
    }

    @Test func acre2016ThroughXML() throws {
        let original = try ExportTestFiles.database(
            [
                ExportTestFiles.sample("consulta_cand_2016_AC.txt"),
                ExportTestFiles.sample("consulta_legendas_2016_AC.txt"),
            ])
        let folder = try ImportTestSupport.scratchFolder()
        let xml = try ExportTestFiles.export(original, ExportOptions(format: .xml), to: folder + "/ac.xml")
        #expect(xml.coalitionRows == 650)
        let copy = try ExportTestFiles.database([folder + "/ac.xml"])
        let differences = try DatabaseComparison.differences(original, copy)
        #expect(differences.isEmpty, "\(DatabaseComparison.report(differences))")
        // PPL (54) is named only by the legend file: it comes back through the <coligacao> records.
        #expect(try DatabaseComparison.rowCount(copy, "Party", where: "id = '2016/54'") == 1)
        #expect(try DatabaseComparison.rowCount(copy, "Party") == 30)
        #expect(
            try DatabaseComparison.rowCount(copy, "Coalition_parties")
                == DatabaseComparison.rowCount(original, "Coalition_parties"))
    }

    /// Both rounds of the 2018 general election (CD_ELEICAO 297..., 298...), run-off spending limits, vices.
    @Test func brasil2018ThroughXML() throws {
        let original = try ExportTestFiles.database([ExportTestFiles.sample("consulta_cand_2018_BRASIL.zip")])
        let folder = try ImportTestSupport.scratchFolder()
        _ = try ExportTestFiles.export(original, ExportOptions(format: .xml), to: folder + "/br.xml")
        let copy = try ExportTestFiles.database([folder + "/br.xml"])
        let differences = try DatabaseComparison.differences(original, copy)
        #expect(differences.isEmpty, "\(DatabaseComparison.report(differences))")
        #expect(try DatabaseComparison.rowCount(copy, "Candidate") == 29145)
        #expect(try ImportTestSupport.headsWithVice(copy) == 246)
    }

    /// CPF, e-mail and voter ID go out only when the file has them, and come back with --keep-personal-data.
    @Test func personalDataTravelsOnlyWhenStored() throws {
        let files = [ExportTestFiles.sample("consulta_cand_2018_MG.csv")]
        let folder = try ImportTestSupport.scratchFolder()
        let without = try ExportTestFiles.database(files)
        _ = try ExportTestFiles.export(without, ExportOptions(format: .xml), to: folder + "/plain.xml")
        let plain = try String(contentsOfFile: folder + "/plain.xml", encoding: .isoLatin1)
        #expect(!plain.contains("<NR_CPF_CANDIDATO>"))
        #expect(!plain.contains("<DS_EMAIL>"))

        let with = try ExportTestFiles.database(files, keepPersonalData: true)
        _ = try ExportTestFiles.export(with, ExportOptions(format: .xml), to: folder + "/personal.xml")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/personal.xml")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let copy = try ExportTestFiles.database([folder + "/personal.xml"], keepPersonalData: true)
        let differences = try DatabaseComparison.differences(with, copy)
        #expect(differences.isEmpty, "\(DatabaseComparison.report(differences))")
        #expect(try DatabaseComparison.rowCount(copy, "Candidate", where: "cpf IS NOT NULL") == 2388)
    }

    /// One database holding elections with and without CD_ELEICAO (re-released 2018, original 2016): XML and
    /// CSV both carry every row back.
    @Test func mixedGenerationsRoundTripThroughXMLAndCSV() throws {
        let original = try ExportTestFiles.database(
            [ExportTestFiles.sample("consulta_cand_2018_MG.csv"), ExportTestFiles.sample("consulta_cand_2016_AC.txt")])
        let folder = try ImportTestSupport.scratchFolder()
        _ = try ExportTestFiles.export(original, ExportOptions(format: .xml), to: folder + "/mixed.xml")
        let copy = try ExportTestFiles.database([folder + "/mixed.xml"])
        let differences = try DatabaseComparison.differences(original, copy)
        // Party 77 is SOLIDARIEDADE in the 2018 file and SD in the 2016 one: each year keeps its own label, so
        // the compositions of both years name it.
        #expect(differences.isEmpty, "\(DatabaseComparison.report(differences))")
        #expect(
            try DatabaseComparison.rowCount(copy, "Party", where: "id = '2018/77' AND acronym = 'SOLIDARIEDADE'") == 1)
        #expect(try DatabaseComparison.rowCount(copy, "Party", where: "id = '2016/77' AND acronym = 'SD'") == 1)
        #expect(
            try DatabaseComparison.rowCount(copy, "Coalition_parties", where: "target LIKE '%/77'")
                == DatabaseComparison.rowCount(original, "Coalition_parties", where: "target LIKE '%/77'"))
        for type in ["Candidate", "Coalition"] {
            _ = try ExportTestFiles.export(
                original, ExportOptions(format: .csv, typeName: type), to: folder + "/mixed-\(type).csv")
        }
        let fromCSV = try ExportTestFiles.database(["Candidate", "Coalition"].map { folder + "/mixed-\($0).csv" })
        let csvDifferences = try DatabaseComparison.differences(original, fromCSV)
        #expect(csvDifferences.isEmpty, "\(DatabaseComparison.report(csvDifferences))")
    }
}

/// Sample files, databases and exports for the export tests.
enum ExportTestFiles {
    /// A file of SampleData/ (the real TSE files the README describes).
    static func sample(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("SampleData/\(name)").path
    }

    /// A file of Fixtures/export/.
    static func fixture(_ name: String) -> String { ImportTestSupport.fixture("export/" + name) }

    /// A fresh database with `files` imported (nothing rejected).
    static func database(_ files: [String], keepPersonalData: Bool = false) throws -> String {
        let db = try ImportTestSupport.newDatabasePath()
        let summary = try ImportTestSupport.importFiles(files, into: db, keepPersonalData: keepPersonalData)
        guard summary.rejected == 0 else {
            throw ExportTestError(
                "\(summary.rejected) rows of \(files) were rejected; see \(summary.rejectsFile ?? "-")")
        }
        return db
    }

    /// Exports `db` to `path`.
    @discardableResult
    static func export(_ db: String, _ options: ExportOptions, to path: String) throws -> ExportSummary {
        let store = try Store.openExisting(path: db, readOnly: true)
        return try ElectionExporter(store: store, options: options).export(toPath: path)
    }

    /// Exports `db` and returns the bytes.
    static func exportBytes(_ db: String, _ options: ExportOptions) throws -> [UInt8] {
        let path = try ImportTestSupport.scratchFolder() + "/export.out"
        try export(db, options, to: path)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

struct ExportTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Compares two Urna files table by table, row by row (matched by primary key), column by column.
enum DatabaseComparison {
    /// One property of one object (or one list entry) that differs.
    struct Difference: CustomStringConvertible {
        let table: String
        let key: String
        let column: String
        let left: String
        let right: String

        var description: String { "\(table)[\(key)].\(column): \(left) != \(right)" }
    }

    /// Every difference between the objects of `a` and `b` (the schema tables' timestamps aside).
    static func differences(_ a: String, _ b: String) throws -> [Difference] {
        let left = try Connection(path: a, readOnly: true, create: false)
        let right = try Connection(path: b, readOnly: true, create: false)
        var out: [Difference] = []
        for column in ["family", "version", "descriptor"] {
            let sql = "SELECT \"\(column)\" FROM \"\(StorageLayout.schemaTable)\""
            let l = try left.scalar(sql)?.description ?? "-"
            let r = try right.scalar(sql)?.description ?? "-"
            if l != r {
                out.append(Difference(table: StorageLayout.schemaTable, key: "1", column: column, left: l, right: r))
            }
        }
        let tables = Set(try objectTables(left)).union(try objectTables(right)).sorted()
        for table in tables {
            let l = try rows(left, table)
            let r = try rows(right, table)
            for key in Set(l.rows.keys).union(r.rows.keys).sorted() {
                guard let lr = l.rows[key] else {
                    out.append(Difference(table: table, key: key, column: "*", left: "(missing)", right: "(present)"))
                    continue
                }
                guard let rr = r.rows[key] else {
                    out.append(Difference(table: table, key: key, column: "*", left: "(present)", right: "(missing)"))
                    continue
                }
                for (i, name) in l.columns.enumerated() {
                    let lv = lr[i]
                    let rv = r.columns.firstIndex(of: name).map { rr[$0] } ?? "(no column)"
                    if lv != rv { out.append(Difference(table: table, key: key, column: name, left: lv, right: rv)) }
                }
            }
        }
        return out
    }

    /// The first differences, one per line, for failure messages.
    static func report(_ differences: [Difference]) -> String {
        "\(differences.count) differences:\n" + differences.prefix(20).map(\.description).joined(separator: "\n")
    }

    static func rowCount(_ db: String, _ table: String, where condition: String = "1") throws -> Int64 {
        try ImportTestSupport.integer(db, "SELECT count(*) FROM \"\(table)\" WHERE \(condition)")
    }

    private static func objectTables(_ c: Connection) throws -> [String] {
        try c.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND name NOT LIKE '\\_urna%' ESCAPE '\\'"
        ).compactMap { if case .text(let s) = $0[0] { s } else { nil } }
    }

    /// The table's rows keyed by primary key (all key columns joined), values typed (`SQLValue.description`
    /// keeps 1 and '1' apart).
    private static func rows(_ c: Connection, _ table: String) throws -> (columns: [String], rows: [String: [String]]) {
        let info = try c.rows("PRAGMA table_info(\"\(table)\")")
        let columns = info.map { $0[1].description }
        var keyColumns = info.filter { if case .integer(let pk) = $0[5] { pk > 0 } else { false } }
            .sorted { $0[5].description < $1[5].description }.map { $0[1].description }
        if keyColumns.isEmpty { keyColumns = columns }
        let keyIndexes = keyColumns.compactMap { columns.firstIndex(of: $0) }
        var out: [String: [String]] = [:]
        for row in try c.rows("SELECT * FROM \"\(table)\"") {
            let values = row.map(typed)
            let key = keyIndexes.map { plain(row[$0]) }.joined(separator: "/")
            out[key] = values
        }
        return (columns, out)
    }

    private static func typed(_ v: SQLValue) -> String {
        switch v {
        case .null: "NULL"
        case .integer(let i): "int \(i)"
        case .real(let d): "real \(d)"
        case .text(let s): "text '\(s)'"
        case .blob(let b): "blob \(b)"
        }
    }

    private static func plain(_ v: SQLValue) -> String {
        switch v {
        case .text(let s): s
        case .integer(let i): String(i)
        default: v.description
        }
    }
}
