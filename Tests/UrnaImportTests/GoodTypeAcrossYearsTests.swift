import Foundation
import Testing
import UrnaStore

@testable import UrnaImport

/// A fifth real-files trial (issue 11) found one code of CD_TIPO_BEM_CANDIDATO described differently in
/// different years: 73 is "Fundo de capitalização" in the 2014 goods files and "Fundo de Investimento
/// Imobiliário" from 2018 on (71 and 74 changed too). Up to elections v5 `GoodType` was keyed by the code alone
/// and took the newest generation's description, so once a newer year's goods were imported the older year's
/// goods read a description their file never had (in the trial 6 of the 4,115 goods of 2014 and 2016). From v6 a
/// good type is one code in one election year (`<year>/<code>`), so each year's goods keep their files' text,
/// in any import order.
@Suite struct GoodTypeAcrossYearsTests {
    typealias S = ImportTestSupport

    /// Two elections of different years, one good each with code 73 under each year's own description.
    static func twoYears(in folder: String) throws -> [String] {
        let year2014 = [
            "DT_GERACAO": "20/09/2018", "HH_GERACAO": "09:50:32", "ANO_ELEICAO": "2014", "CD_ELEICAO": "143",
            "DS_ELEICAO": "Eleições Gerais 2014", "DT_ELEICAO": "05/10/2014",
        ]
        let candidates = try S.candidateFile(
            [year2014.merging(["SQ_CANDIDATO": "1"]) { $1 }, ["SQ_CANDIDATO": "2"]], in: folder)
        let goods2014 = try S.assetFile(
            [
                year2014.merging([
                    "SQ_CANDIDATO": "1", "CD_TIPO_BEM_CANDIDATO": "73",
                    "DS_TIPO_BEM_CANDIDATO": "Fundo de capitalização", "DS_BEM_CANDIDATO": "TITULO",
                ]) { $1 }
            ], named: "bem_candidato_2014.csv", in: folder)
        let goods2018 = try S.assetFile(
            [
                [
                    "SQ_CANDIDATO": "2", "CD_TIPO_BEM_CANDIDATO": "73",
                    "DS_TIPO_BEM_CANDIDATO": "Fundo de Investimento Imobiliário", "DS_BEM_CANDIDATO": "COTAS",
                ]
            ], named: "bem_candidato_2018.csv", in: folder)
        return [candidates, goods2014, goods2018]
    }

    /// The DS_TIPO_BEM_CANDIDATO an export of the goods gives for each year.
    static func exportedTypeDescriptions(_ db: String) throws -> [String: String] {
        let bytes = try ExportTestFiles.exportBytes(db, ExportOptions(format: .csv, typeName: "Good", encoding: .utf8))
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: ["\""]) }
        }
        guard let header = lines.first, let year = header.firstIndex(of: "ANO_ELEICAO"),
            let type = header.firstIndex(of: "DS_TIPO_BEM_CANDIDATO")
        else { return [:] }
        var out: [String: String] = [:]
        for row in lines.dropFirst() where row.count == header.count { out[row[year]] = row[type] }
        return out
    }

    @Test func eachYearsGoodKeepsItsYearsTypeDescription() throws {
        let folder = try S.scratchFolder()
        let db = folder + "/urna.sqlite"
        _ = try S.importFiles(try Self.twoYears(in: folder), into: db)
        #expect(try S.counts(db)["Good"] == 2)
        let described = try Self.exportedTypeDescriptions(db)
        #expect(described["2018"] == "Fundo de Investimento Imobiliário")
        #expect(described["2014"] == "Fundo de capitalização")
        #expect(
            try S.value(db, "SELECT group_concat(id || '=' || year || '/' || code, ' ') FROM GoodType")
                == .text("2014/73=2014/73 2018/73=2018/73"))
        // The goods view gives the code and each year's text.
        #expect(
            try S.value(
                db,
                "SELECT group_concat(ANO_ELEICAO || ':' || CD_TIPO_BEM_CANDIDATO || ':' || DS_TIPO_BEM_CANDIDATO, ' | ') "
                    + "FROM (SELECT * FROM goods ORDER BY ANO_ELEICAO)")
                == .text("2014:73:Fundo de capitalização | 2018:73:Fundo de Investimento Imobiliário"))
        #expect(try S.foreignKeyViolations(db) == 0)
    }

    /// A v5 file migrated to v6 holds, for 2014's goods, the text v5 kept (2018's) without a generation
    /// (`ElectionsV6.step`); importing 2014's goods file again puts 2014's own text back.
    @Test func reimportingAYearRestoresItsTextAfterTheMigration() throws {
        let folder = try S.scratchFolder()
        let db = folder + "/urna.sqlite"
        let files = try Self.twoYears(in: folder)
        _ = try S.importFiles(files, into: db)
        try Connection(path: db).run(
            "UPDATE GoodType SET typedescription = 'Fundo de Investimento Imobiliário', generatedAt = NULL "
                + "WHERE id = '2014/73'")
        #expect(try Self.exportedTypeDescriptions(db)["2014"] == "Fundo de Investimento Imobiliário")
        _ = try S.importFiles([files[1]], into: db)
        #expect(try Self.exportedTypeDescriptions(db)["2014"] == "Fundo de capitalização")
        #expect(try Self.exportedTypeDescriptions(db)["2018"] == "Fundo de Investimento Imobiliário")
    }

    /// The result is the same whichever year's goods come first, in one run or in separate runs: every table
    /// row for row (the store's own metadata aside, which records when the file was made).
    @Test func importOrderDoesNotMatter() throws {
        let folder = try S.scratchFolder()
        let files = try Self.twoYears(in: folder)
        let (candidates, goods2014, goods2018) = (files[0], files[1], files[2])
        var dumps: [[String]] = []
        for (n, runs) in [
            [[candidates, goods2014], [goods2018]], [[candidates, goods2018], [goods2014]],
            [[goods2018], [goods2014], [candidates]], [[candidates, goods2018, goods2014]],
        ].enumerated() {
            let db = folder + "/order\(n).sqlite"
            for files in runs { _ = try S.importFiles(files, into: db) }
            #expect(try S.counts(db)["Good"] == 2, "order \(n)")
            #expect(try Self.exportedTypeDescriptions(db)["2014"] == "Fundo de capitalização", "order \(n)")
            dumps.append(try S.dump(db).filter { !$0.hasPrefix("_urna") })
        }
        for (n, d) in dumps.enumerated().dropFirst() { #expect(d == dumps[0], "order \(n)") }
    }
}
