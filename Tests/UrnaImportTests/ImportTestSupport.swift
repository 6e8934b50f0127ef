import Foundation
import UrnaImport
import UrnaRecords
import UrnaSchemas
import UrnaStore

/// Fixture paths, scratch folders and database helpers for the importer tests.
enum ImportTestSupport {
    /// The path of a file in Fixtures/.
    static func fixture(_ name: String) -> String {
        guard let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            fatalError("Fixtures folder missing from the test bundle")
        }
        return folder.appendingPathComponent(name).path
    }

    /// A fresh private folder.
    static func scratchFolder() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("urna-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// A database path in a fresh folder (the file does not exist yet).
    static func newDatabasePath() throws -> String { try scratchFolder() + "/urna.sqlite" }

    /// Writes Latin-1 text (scalars up to U+00FF) to a file in `folder`.
    @discardableResult
    static func write(_ text: String, named name: String, in folder: String) throws -> String {
        let path = folder + "/" + name
        let bytes = text.unicodeScalars.map { scalar -> UInt8 in
            precondition(scalar.value <= 0xFF, "not Latin-1: \(scalar)")
            return UInt8(scalar.value)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Imports `files` into `db` with default options (plus the given ones).
    static func importFiles(
        _ files: [String], into db: String, keepPersonalData: Bool = false, maxErrors: Int? = nil,
        progress: ImportProgress? = nil
    ) throws -> ImportSummary {
        let options = ImportOptions(dbPath: db, maxErrors: maxErrors, keepPersonalData: keepPersonalData)
        return try Importer(options: options, progress: progress).run(files: files)
    }

    /// One integer from SQL on the file.
    static func integer(_ db: String, _ sql: String, _ bindings: [SQLValue] = []) throws -> Int64 {
        try Connection(path: db, readOnly: true, create: false).integer(sql, bindings)
    }

    /// One value from SQL on the file.
    static func value(_ db: String, _ sql: String, _ bindings: [SQLValue] = []) throws -> SQLValue? {
        try Connection(path: db, readOnly: true, create: false).scalar(sql, bindings)
    }

    /// Objects per type in the file.
    static func counts(_ db: String) throws -> [String: Int] {
        let c = try Connection(path: db, readOnly: true, create: false)
        var out: [String: Int] = [:]
        for t in ImportSummary.types { out[t] = Int(try c.integer("SELECT count(*) FROM \"\(t)\"")) }
        return out
    }

    /// Heads of ticket whose vice link is set.
    static func headsWithVice(_ db: String) throws -> Int64 {
        try integer(db, "SELECT count(*) FROM Candidate WHERE vice IS NOT NULL")
    }

    /// Rows that break a foreign key (must be none).
    static func foreignKeyViolations(_ db: String) throws -> Int {
        try Connection(path: db, readOnly: true, create: false).rows("PRAGMA foreign_key_check").count
    }

    /// Every row of every table, in a stable order: equal dumps mean equal databases.
    static func dump(_ db: String) throws -> [String] {
        let c = try Connection(path: db, readOnly: true, create: false)
        var out: [String] = []
        let tables = try c.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap {
            if case .text(let name) = $0[0] { name } else { nil }
        }
        for t in tables {
            let rows = try c.rows("SELECT * FROM \"\(t)\"").map { $0.map(\.description).joined(separator: "|") }
            out.append("\(t): " + rows.sorted().joined(separator: "\n"))
        }
        return out
    }

    /// The header of a 58-column consulta_cand file, for hand-made rows.
    static let candidateHeader58 = TSELayouts.candidate58.fileColumns.map { "\"\($0)\"" }.joined(separator: ";")

    /// The header of a 19-column bem_candidato file.
    static let assetHeader19 = TSELayouts.asset19.fileColumns.map { "\"\($0)\"" }.joined(separator: ";")

    /// One 58-column candidacy row: `overrides` replace the defaults by column name.
    static func candidateRow(_ overrides: [String: String]) -> String {
        var values: [String: String] = [
            "DT_GERACAO": "27/09/2018", "HH_GERACAO": "19:04:59", "ANO_ELEICAO": "2018", "CD_TIPO_ELEICAO": "2",
            "NM_TIPO_ELEICAO": "ELEIÇÃO ORDINÁRIA", "NR_TURNO": "1", "CD_ELEICAO": "297",
            "DS_ELEICAO": "Eleições Gerais Estaduais 2018", "DT_ELEICAO": "07/10/2018", "TP_ABRANGENCIA": "ESTADUAL",
            "SG_UF": "MG", "SG_UE": "MG", "NM_UE": "MINAS GERAIS", "CD_CARGO": "6", "DS_CARGO": "DEPUTADO FEDERAL",
            "SQ_CANDIDATO": "1", "NR_CANDIDATO": "1234", "NM_CANDIDATO": "FULANO DE TAL", "NM_URNA_CANDIDATO": "FULANO",
            "NM_SOCIAL_CANDIDATO": "#NULO#", "NR_CPF_CANDIDATO": "12345678901", "NM_EMAIL": "FULANO@EXAMPLE.COM",
            "CD_SITUACAO_CANDIDATURA": "12", "DS_SITUACAO_CANDIDATURA": "APTO", "CD_DETALHE_SITUACAO_CAND": "2",
            "DS_DETALHE_SITUACAO_CAND": "DEFERIDO", "TP_AGREMIACAO": "PARTIDO ISOLADO", "NR_PARTIDO": "27",
            "SG_PARTIDO": "DC", "NM_PARTIDO": "DEMOCRACIA CRISTÃ", "SQ_COLIGACAO": "900",
            "NM_COLIGACAO": "PARTIDO ISOLADO",
            "DS_COMPOSICAO_COLIGACAO": "DC", "CD_NACIONALIDADE": "1", "DS_NACIONALIDADE": "BRASILEIRA NATA",
            "SG_UF_NASCIMENTO": "MG", "CD_MUNICIPIO_NASCIMENTO": "-3", "NM_MUNICIPIO_NASCIMENTO": "RIO VERMELHO",
            "DT_NASCIMENTO": "27/03/1967", "NR_IDADE_DATA_POSSE": "51", "NR_TITULO_ELEITORAL_CANDIDATO": "092264880230",
            "CD_GENERO": "2", "DS_GENERO": "MASCULINO", "CD_GRAU_INSTRUCAO": "4",
            "DS_GRAU_INSTRUCAO": "ENSINO MÉDIO COMPLETO",
            "CD_ESTADO_CIVIL": "3", "DS_ESTADO_CIVIL": "CASADO(A)", "CD_COR_RACA": "03", "DS_COR_RACA": "PARDA",
            "CD_OCUPACAO": "233", "DS_OCUPACAO": "POLICIAL MILITAR", "NR_DESPESA_MAX_CAMPANHA": "0",
            "CD_SIT_TOT_TURNO": "-1", "DS_SIT_TOT_TURNO": "#NULO#", "ST_REELEICAO": "N", "ST_DECLARAR_BENS": "S",
            "NR_PROTOCOLO_CANDIDATURA": "-1", "NR_PROCESSO": "06024229720186130000",
        ]
        for (k, v) in overrides { values[k] = v }
        return TSELayouts.candidate58.fileColumns.map { "\"\(values[$0] ?? "")\"" }.joined(separator: ";")
    }

    /// One 19-column asset row.
    static func assetRow(_ overrides: [String: String]) -> String {
        var values: [String: String] = [
            "DT_GERACAO": "27/09/2018", "HH_GERACAO": "19:04:45", "ANO_ELEICAO": "2018", "CD_TIPO_ELEICAO": "2",
            "NM_TIPO_ELEICAO": "Eleição Ordinária", "CD_ELEICAO": "297", "DS_ELEICAO": "Eleições Gerais Estaduais 2018",
            "DT_ELEICAO": "07/10/2018", "SG_UF": "MG", "SG_UE": "MG", "NM_UE": "MINAS GERAIS", "SQ_CANDIDATO": "1",
            "NR_ORDEM_CANDIDATO": "1", "CD_TIPO_BEM_CANDIDATO": "41", "DS_TIPO_BEM_CANDIDATO": "Caderneta de poupança",
            "DS_BEM_CANDIDATO": "#NULO#", "VR_BEM_CANDIDATO": "2005,27", "DT_ULTIMA_ATUALIZACAO": "19/09/2018",
            "HH_ULTIMA_ATUALIZACAO": "10:12:53",
        ]
        for (k, v) in overrides { values[k] = v }
        return TSELayouts.asset19.fileColumns.map { "\"\(values[$0] ?? "")\"" }.joined(separator: ";")
    }

    /// A 58-column candidate file (header + rows).
    static func candidateFile(
        _ rows: [[String: String]], named name: String = "consulta_cand_test.csv", in folder: String
    ) throws -> String {
        try write(
            ([candidateHeader58] + rows.map(candidateRow)).joined(separator: "\n") + "\n", named: name, in: folder)
    }

    /// A 19-column asset file (header + rows).
    static func assetFile(_ rows: [[String: String]], named name: String = "bem_candidato_test.csv", in folder: String)
        throws -> String
    {
        try write(([assetHeader19] + rows.map(assetRow)).joined(separator: "\n") + "\n", named: name, in: folder)
    }
}
