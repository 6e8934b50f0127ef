import Foundation
import UrnaRecords
import UrnaSchemas
import UrnaStore

/// The objects behind one TSE row being written, as the mapper's value types: a candidacy (election,
/// candidate, party, coalition), an asset (its good and type, plus its candidacy's election and candidate),
/// or a coalition membership (coalition and party, plus one of its candidacies for the election columns).
struct TSERowObjects {
    var election: ElectionValues?
    var candidate: CandidateValues?
    var party: PartyValues?
    var coalition: CoalitionValues?
    var good: GoodValues?
    var goodType: GoodTypeValues?
    /// Set for coalition rows: the coalition's own generation (its parties and its row in a legend file).
    var coalitionRow = false

    /// The generation of the row's own object (good, candidacy, coalition or election), when known.
    var generation: String? {
        if let good { return good.generatedAt }
        if coalitionRow { return coalition?.generatedAt }
        return candidate?.generatedAt ?? coalition?.generatedAt ?? election?.generatedAt
    }
}

/// The inverse of `ElectionMapper`, column by column: the TSE text of every `MapperColumn` for the objects
/// of a row, rendered so the mapper reads back the same values (dates `dd/MM/yyyy`, asset values with a
/// decimal comma, spending limits as TSE writes them, nil as the column's null marker).
///
/// Both switches below are exhaustive over `MapperColumn`: a column the mapper starts reading does not
/// compile until it is written here too, and `ExportColumnTests` maps what this writes and checks that
/// the mapper gives back the values it started from.
///
/// ```swift
/// let row = TSERowObjects(election: e, candidate: c, party: p, coalition: k)
/// try TSEColumnWriter.text(.DT_NASCIMENTO, row)   // "27/03/1967"
/// TSEColumnWriter.source(of: .SG_PARTIDO)         // .party
/// ```
enum TSEColumnWriter {
    /// Which object a column's value comes from.
    enum Source: Equatable {
        case election, candidate, party, coalition, good, goodType
        /// DT_GERACAO / HH_GERACAO: the row's object's generation (`TSERowObjects.generation`).
        case generation
    }

    /// A value with no TSE rendering; the caller adds which object and column.
    struct Problem: Error {
        let reason: String
    }

    /// Where the mapper takes each column's value to (and so where the writer takes it from).
    static func source(of column: MapperColumn) -> Source {
        switch column {
        case .DT_GERACAO, .HH_GERACAO: .generation
        case .ANO_ELEICAO, .NR_TURNO, .CD_ELEICAO, .DS_ELEICAO, .DT_ELEICAO, .NM_TIPO_ELEICAO, .CD_TIPO_ELEICAO,
            .TP_ABRANGENCIA:
            .election
        case .SG_UF, .SG_UE, .NM_UE, .CD_CARGO, .DS_CARGO, .SQ_CANDIDATO, .NR_CANDIDATO, .NM_CANDIDATO,
            .NM_URNA_CANDIDATO, .NM_SOCIAL_CANDIDATO, .NR_CPF_CANDIDATO, .DS_EMAIL, .NR_TITULO_ELEITORAL_CANDIDATO,
            .DS_SITUACAO_CANDIDATURA, .DS_SIT_TOT_TURNO, .DS_NACIONALIDADE, .SG_UF_NASCIMENTO,
            .NM_MUNICIPIO_NASCIMENTO, .DT_NASCIMENTO, .DS_GENERO, .DS_GRAU_INSTRUCAO, .DS_ESTADO_CIVIL, .DS_COR_RACA,
            .DS_OCUPACAO, .VR_DESPESA_MAX_CAMPANHA, .NR_PROTOCOLO_CANDIDATURA, .NR_PROCESSO:
            .candidate
        case .NR_PARTIDO, .SG_PARTIDO, .NM_PARTIDO: .party
        case .TP_AGREMIACAO, .SQ_COLIGACAO, .NM_COLIGACAO, .DS_COMPOSICAO_COLIGACAO: .coalition
        case .NR_ORDEM_CANDIDATO, .DS_BEM_CANDIDATO, .VR_BEM_CANDIDATO, .DT_ULTIMA_ATUALIZACAO, .HH_ULTIMA_ATUALIZACAO:
            .good
        case .CD_TIPO_BEM_CANDIDATO, .DS_TIPO_BEM_CANDIDATO: .goodType
        }
    }

    /// The text of `column` for `row`, or nil when the column holds no value (written as its null marker).
    static func text(_ column: MapperColumn, _ row: TSERowObjects) throws -> String? {
        let e = row.election
        let c = row.candidate
        let g = row.good
        switch column {
        case .DT_GERACAO: return try row.generation.map { try TSEText.date($0, withTime: false) }
        case .HH_GERACAO: return try row.generation.map { try TSEText.time($0) }
        case .ANO_ELEICAO: return (e?.year ?? row.coalition?.year ?? row.party?.year).map { String($0) }
        case .NR_TURNO: return e.map { String($0.round) }
        case .CD_ELEICAO: return e?.code.map { String($0) }
        case .DS_ELEICAO: return nonEmpty(e?.electionDescription)
        case .DT_ELEICAO: return try e?.date.map { try TSEText.date($0, withTime: true) }
        case .NM_TIPO_ELEICAO: return e?.kind
        case .CD_TIPO_ELEICAO: return e?.kindCode.map { String($0) }
        case .TP_ABRANGENCIA: return e?.scope
        case .SG_UF: return nonEmpty(c?.state)
        case .SG_UE: return nonEmpty(c?.unit ?? row.coalition?.unit)
        case .NM_UE: return nonEmpty(c?.unitName)
        // 0 is no TSE office: the code was empty or unreadable in the source, so it goes out blank (-1), not as 0.
        case .CD_CARGO: return c.flatMap { $0.postCode == 0 ? nil : String($0.postCode) }
        case .DS_CARGO: return nonEmpty(c?.post)
        case .SQ_CANDIDATO: return c.map { String($0.sequence) }
        case .NR_CANDIDATO: return c?.number.map { String($0) }
        case .NM_CANDIDATO: return nonEmpty(c?.name)
        case .NM_URNA_CANDIDATO: return nonEmpty(c?.nickname)
        case .NM_SOCIAL_CANDIDATO: return c?.socialName
        case .NR_CPF_CANDIDATO: return c?.cpf
        case .DS_EMAIL: return c?.email
        case .NR_TITULO_ELEITORAL_CANDIDATO: return c?.voterId
        case .DS_SITUACAO_CANDIDATURA: return c?.status
        case .DS_SIT_TOT_TURNO: return c?.result
        case .DS_NACIONALIDADE: return nonEmpty(c?.nationality)
        case .SG_UF_NASCIMENTO: return c?.birthState
        case .NM_MUNICIPIO_NASCIMENTO: return c?.birthCity
        case .DT_NASCIMENTO: return try c?.birthdate.map { try TSEText.date($0, withTime: true) }
        case .DS_GENERO: return nonEmpty(c?.sex)
        case .DS_GRAU_INSTRUCAO: return nonEmpty(c?.literacy)
        case .DS_ESTADO_CIVIL: return nonEmpty(c?.maritalStatus)
        case .DS_COR_RACA: return nonEmpty(c?.colorRace)
        case .DS_OCUPACAO: return nonEmpty(c?.occupation)
        case .VR_DESPESA_MAX_CAMPANHA:
            // The mapper files one limit per row under the row's round.
            guard let c else { return nil }
            let limit = e?.round == 2 ? c.spendingLimitSecondRound : c.spendingLimitFirstRound
            return limit.map(TSEText.spendingLimit)
        case .NR_PROTOCOLO_CANDIDATURA: return nonEmpty(c?.protocolNumber)
        case .NR_PROCESSO: return nonEmpty(c?.processNumber)
        case .TP_AGREMIACAO: return row.coalition?.kind
        case .NR_PARTIDO: return row.party.map { String($0.number) }
        case .SG_PARTIDO: return nonEmpty(row.party?.acronym)
        case .NM_PARTIDO: return nonEmpty(row.party?.name)
        case .SQ_COLIGACAO: return row.coalition.map { String($0.sequence) }
        case .NM_COLIGACAO: return nonEmpty(row.coalition?.name)
        case .DS_COMPOSICAO_COLIGACAO: return row.coalition?.composition
        case .NR_ORDEM_CANDIDATO: return g.map { String($0.order) }
        case .CD_TIPO_BEM_CANDIDATO: return row.goodType.map { String($0.code) }
        case .DS_TIPO_BEM_CANDIDATO: return nonEmpty(row.goodType?.typedescription)
        case .DS_BEM_CANDIDATO: return nonEmpty(g?.goodDescription)
        case .VR_BEM_CANDIDATO: return g?.valueCents.map(TSEText.assetValue)
        case .DT_ULTIMA_ATUALIZACAO: return try g?.updatedAt.map { try TSEText.date($0, withTime: false) }
        case .HH_ULTIMA_ATUALIZACAO: return try g?.updatedAt.map { try TSEText.time($0) }
        }
    }

    /// The text of source column `k` (`ElectionsV4.sourceColumns`) of the row's candidacy, or nil.
    static func sourceText(_ k: Int, _ row: TSERowObjects) throws -> String? {
        guard let c = row.candidate, k < c.sourceValues.count else { return nil }
        switch c.sourceValues[k] {
        case .null: return nil
        case .integer(let i): return String(i)
        case .text(let t):
            if ElectionsV4.sourceColumns[k].type == .date { return try TSEText.date(t, withTime: true) }
            return t
        case .real(let d): return String(d)
        case .blob: throw Problem(reason: "holds bytes where a TSE value was expected")
        }
    }

    /// The null marker TSE writes in a column: `-1` in number, code and money columns (CD_, NR_, SQ_, VR_),
    /// `#NULO#` in the others.
    static func nullText(_ name: String) -> StaticString {
        name.hasPrefix("CD_") || name.hasPrefix("NR_") || name.hasPrefix("SQ_") || name.hasPrefix("VR_")
            ? "-1" : "#NULO#"
    }

    /// The mapper column of a canonical TSE column name, if the mapper reads it.
    static func mapperColumn(named name: String) -> MapperColumn? { columnsByName[name] }

    private static let columnsByName: [String: MapperColumn] = Dictionary(
        uniqueKeysWithValues: MapperColumn.allCases.map { ($0.name, $0) })

    /// Required text properties keep "" for "unknown"; the mapper reads the null marker back as "".
    @inline(__always) private static func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        return s
    }
}

/// TSE's textual forms of the store's dates and amounts.
enum TSEText {
    /// `dd/MM/yyyy` (plus ` HH:mm:ss` when `withTime` and the time is not midnight) from the store's
    /// `yyyy-MM-ddTHH:mm:ss.SSSZ`.
    static func date(_ iso: String, withTime: Bool) throws -> String {
        let p = try parts(iso)
        var out = two(p.day) + "/" + two(p.month) + "/" + four(p.year)
        if withTime && (p.hour, p.minute, p.second) != (0, 0, 0) {
            out += " " + two(p.hour) + ":" + two(p.minute) + ":" + two(p.second)
        }
        return out
    }

    /// `HH:mm:ss` of a stored timestamp.
    static func time(_ iso: String) throws -> String {
        let p = try parts(iso)
        return two(p.hour) + ":" + two(p.minute) + ":" + two(p.second)
    }

    /// A spending limit as TSE writes it: whole reais as an integer (files up to 2020), otherwise with a
    /// decimal point and two decimals (2022 on). Negative amounts always carry decimals, so `-1` (a null
    /// marker) is never written for minus one real.
    static func spendingLimit(_ cents: Int64) -> String {
        if cents >= 0 && cents % 100 == 0 { return String(cents / 100) }
        return amount(cents, mark: ".")
    }

    /// An asset value: decimal comma, two decimals, no thousands separator (`3669,04`).
    static func assetValue(_ cents: Int64) -> String { amount(cents, mark: ",") }

    private static func amount(_ cents: Int64, mark: String) -> String {
        let magnitude = cents.magnitude
        let fraction = magnitude % 100
        return (cents < 0 ? "-" : "") + String(magnitude / 100) + mark + (fraction < 10 ? "0" : "") + String(fraction)
    }

    private struct Parts {
        var year, month, day, hour, minute, second: Int
    }

    /// Fields of the store's ISO text, read by position; other forms go through `ISODate` first.
    private static func parts(_ iso: String) throws -> Parts {
        if let p = fixedParts(iso) { return p }
        if let d = ISODate.parse(iso), let p = fixedParts(ISODate.format(d)) { return p }
        throw TSEColumnWriter.Problem(reason: "holds '\(iso)', which is not a date TSE files can carry")
    }

    private static func fixedParts(_ iso: String) -> Parts? {
        let b = Array(iso.utf8)
        guard b.count == 24, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A,
            b[19] == 0x2E, b[23] == 0x5A
        else { return nil }
        func n(_ from: Int, _ length: Int) -> Int? {
            var v = 0
            for i in from..<(from + length) {
                let d = b[i] &- 0x30
                guard d <= 9 else { return nil }
                v = v * 10 + Int(d)
            }
            return v
        }
        // TSE files have no milliseconds: a date with some would come back without them.
        guard let year = n(0, 4), let month = n(5, 2), let day = n(8, 2), let hour = n(11, 2), let minute = n(14, 2),
            let second = n(17, 2), n(20, 3) == 0, year > 0
        else { return nil }
        return Parts(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    @inline(__always) private static func two(_ v: Int) -> String { v < 10 ? "0" + String(v) : String(v) }

    @inline(__always) private static func four(_ v: Int) -> String {
        v >= 1000 ? String(v) : String(repeating: "0", count: 4 - String(v).count) + String(v)
    }
}
