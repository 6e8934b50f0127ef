import Foundation
import UrnaRecords
import UrnaSchemas
import UrnaStore

/// Turns one TSE record (CSV or XML, any layout) into the election objects it implies: the only
/// place that knows TSE semantics (identity, null markers, dates, money, personal data).
///
/// It never writes: the importer decides what is new, changed or held. Records are read by
/// canonical column names, so every layout (and the XML reader's records) goes through the same code.
///
/// ```swift
/// let mapper = ElectionMapper(keepPersonalData: false)
/// switch mapper.map(record) {
/// case .success(.candidacy(let c)): print(c.candidate.id, c.party?.acronym ?? "-")
/// case .success: break
/// case .failure(let problem): print(problem)  // file:line:column: what is wrong and how to fix it
/// }
/// ```
public final class ElectionMapper {
    /// Whether CPF, e-mail and voter-ID number are kept (they are personal data; off by default).
    public let keepPersonalData: Bool

    /// Positions per column set. The entry keeps its ColumnIndex alive: an identifier of a freed index
    /// could be reused by a new one with other columns.
    private var positionsCache: [ObjectIdentifier: (columns: ColumnIndex, positions: MapperColumnPositions)] = [:]
    private var lastColumns: ColumnIndex?
    private var lastPositions: MapperColumnPositions?
    /// The last election read, with the raw fields it came from: rows of one election come together.
    private let lastElection = RawFieldsMemo<ElectionValues>()
    /// The last election an asset row described, with the raw fields it came from.
    private let lastAssetElection = RawFieldsMemo<ElectionValues>()
    /// DS_ELEICAO -> its identity form (upper case, accents folded), for the few descriptions a run sees.
    private var foldedDescriptions: [String: String] = [:]
    /// The last generation stamp read and what it gave: a file has one.
    private var lastGeneration: (date: String?, time: String?, iso: String?)?
    /// The last asset update timestamp read and what it gave: consecutive goods mostly share it.
    private var lastUpdate: (date: String?, time: String?, referenceYear: Int?, parsed: TSEDate.Parsed)?
    /// The last election id an asset row's ANO_ELEICAO and DS_ELEICAO gave.
    private var lastAssetElectionID: (year: Int64, description: String, id: String)?
    /// The last `unitID` made.
    private var lastUnitID: (election: String, unit: String, id: String)?
    private var assetOrdinalFile = ""
    private var assetOrdinals: [String: Int64] = [:]
    private let interner = FieldInterner()
    private let warnings = FieldWarnings()
    /// How the records being mapped write their slash dates (`dd/MM/yyyy` unless their file shows otherwise:
    /// `DateOrderSniffer` decides it per file). Dates remembered from rows read in another order are forgotten.
    public var dateOrder: TSEDate.Order = .dayFirst {
        didSet {
            guard dateOrder != oldValue else { return }
            forgetDates()
        }
    }
    /// The order of each date column whose own values showed one, when the file's columns differ (a column a
    /// spreadsheet re-saved month first beside TSE's day-first ones); the others follow `dateOrder`.
    public var columnDateOrders: [String: TSEDate.Order] = [:] {
        didSet {
            guard columnDateOrders != oldValue else { return }
            forgetDates()
        }
    }
    /// Whether some date of the file showed its order (false: `dateOrder` is TSE's for want of any sign).
    public var dateOrderShown = true
    /// Whether `dateOrder` is the one the person asked for (`ImportOptions.dateOrder`), not one the file showed.
    public var dateOrderAsked = false

    private func forgetDates() {
        lastElection.forget()
        lastAssetElection.forget()
        lastGeneration = nil
        lastUpdate = nil
    }

    /// A mapper; `keepPersonalData` keeps CPF, e-mail and voter ID (they are dropped otherwise).
    public init(keepPersonalData: Bool = false) {
        self.keepPersonalData = keepPersonalData
    }

    /// The objects `record` implies, or why it cannot be imported.
    public func map(_ record: Record) -> Result<MappedRecord, MappingProblem> {
        let columns = positions(for: record.columns)
        return record.withEncodedRow { row in
            warnings.list.removeAll(keepingCapacity: true)
            var reader = FieldReader(
                record: record, columns: columns, interner: interner, row: row, warnings: warnings)
            reader.dateOrder = dateOrder
            reader.columnDateOrders = columnDateOrders
            reader.dateOrderShown = dateOrderShown
            reader.dateOrderAsked = dateOrderAsked
            do {
                switch record.kind {
                case .candidate: return .success(.candidacy(try mapCandidacy(reader)))
                case .asset: return .success(.asset(try mapAsset(reader)))
                case .coalition: return .success(.coalitionMember(try mapCoalitionMember(reader)))
                }
            } catch let problem as MappingProblem {
                return .failure(problem)
            } catch {
                return .failure(MappingProblem(location: record.location, reason: "\(error)"))
            }
        }
    }

    private func positions(for columns: ColumnIndex) -> MapperColumnPositions {
        if columns === lastColumns, let p = lastPositions { return p }
        let id = ObjectIdentifier(columns)
        let p = positionsCache[id]?.positions ?? MapperColumnPositions(columns)
        if positionsCache.count > 4096 { positionsCache.removeAll() }  // XML files may vary their columns
        positionsCache[id] = (columns, p)
        lastColumns = columns
        lastPositions = p
        return p
    }

    // MARK: - Candidacy

    private func mapCandidacy(_ r: FieldReader) throws -> CandidacyObjects {
        let generation = self.generation(r)
        let election = try mapElection(r, generation: generation)
        let sequence = try r.requiredInteger(.SQ_CANDIDATO, what: "the candidacy's sequential number")
        guard let unit = r.code(.SG_UE).map({ ElectionMapper.tseUnit($0, r) }) else {
            throw r.problem(
                .SG_UE, "SG_UE is empty: the electoral unit is part of the candidacy's identity; fill it in")
        }
        let referenceYear = Int(election.year)
        let limit = r.money(.VR_DESPESA_MAX_CAMPANHA)
        var candidate = CandidateValues(
            id: ElectionMapper.childID(unitID(election.id, unit), sequence), sequence: sequence,
            electionID: election.id, round: election.round,
            number: r.integer(.NR_CANDIDATO),
            nickname: r.text(.NM_URNA_CANDIDATO) ?? "", name: r.text(.NM_CANDIDATO) ?? "",
            socialName: r.text(.NM_SOCIAL_CANDIDATO),
            post: r.text(.DS_CARGO) ?? "", postCode: r.integer(.CD_CARGO) ?? 0,
            state: r.code(.SG_UF) ?? "", unit: unit, unitName: r.text(.NM_UE) ?? "",
            birthdate: r.birthdate(electionYear: referenceYear),
            sex: r.text(.DS_GENERO) ?? "", colorRace: r.text(.DS_COR_RACA) ?? "",
            maritalStatus: r.text(.DS_ESTADO_CIVIL) ?? "", nationality: r.text(.DS_NACIONALIDADE) ?? "",
            birthState: r.code(.SG_UF_NASCIMENTO), birthCity: r.text(.NM_MUNICIPIO_NASCIMENTO),
            literacy: r.text(.DS_GRAU_INSTRUCAO) ?? "", occupation: r.text(.DS_OCUPACAO) ?? "",
            partyID: nil, coalitionID: nil,
            processNumber: Self.tseProcessNumber(r.code(.NR_PROCESSO), year: election.year, r) ?? "",
            protocolNumber: Self.tseDigits(r.code(.NR_PROTOCOLO_CANDIDATURA), .NR_PROTOCOLO_CANDIDATURA, r) ?? "",
            spendingLimitFirstRound: election.round == 2 ? nil : limit,
            spendingLimitSecondRound: election.round == 2 ? limit : nil,
            email: nil, cpf: nil, voterId: nil,
            status: r.text(.DS_SITUACAO_CANDIDATURA), result: r.text(.DS_SIT_TOT_TURNO), generatedAt: generation)
        if keepPersonalData {
            candidate.email = r.text(.DS_EMAIL)
            candidate.cpf = Self.tseNumber(r.code(.NR_CPF_CANDIDATO), width: 11, .NR_CPF_CANDIDATO, r)
            candidate.voterId = Self.tseNumber(
                r.code(.NR_TITULO_ELEITORAL_CANDIDATO), width: 12, .NR_TITULO_ELEITORAL_CANDIDATO, r)
        }
        candidate.sourceValues = r.sourceValues(referenceYear: referenceYear)
        let party = mapParty(r, year: election.year, generation: generation)
        if party == nil { r.warnLostWith(.NR_PARTIDO, [.SG_PARTIDO, .NM_PARTIDO], "the row's party") }
        let coalition = try mapCoalition(r, year: election.year, unit: unit, generation: generation, required: false)
        if coalition == nil {
            r.warnLostWith(
                .SQ_COLIGACAO, [.TP_AGREMIACAO, .NM_COLIGACAO, .DS_COMPOSICAO_COLIGACAO], "the row's coalition")
        }
        candidate.partyID = party?.id
        candidate.coalitionID = coalition?.id
        return CandidacyObjects(
            election: election, candidate: candidate, party: party, coalition: coalition, warnings: warnings.list)
    }

    /// DT_GERACAO + HH_GERACAO as ISO text (nil when the layout has none or it is unreadable).
    private func generation(_ r: FieldReader) -> String? {
        let date = r.raw(.DT_GERACAO)
        let time = r.raw(.HH_GERACAO)
        if let last = lastGeneration, last.date == date, last.time == time { return last.iso }
        let iso: String?
        switch TSEDate.parse(date: date, time: time, order: r.dateOrder("DT_GERACAO")) {
        case .date(let d): iso = d
        case .null: iso = nil
        case .invalid:
            if let p = r.columns.position(.DT_GERACAO), let reason = r.orderReason(at: p, name: "DT_GERACAO") {
                r.warn(.DT_GERACAO, reason + "the row counts as the oldest generation")
                return nil
            }
            r.warn(.DT_GERACAO, "DT_GERACAO is not a date (dd/MM/yyyy): the row counts as the oldest generation")
            return nil
        }
        if iso != nil, let time {
            var cleaned = TSEField.clean(time)
            let marker = cleaned.isEmpty || TSEField.isTextNullMarker(cleaned) || TSEField.isNumericNullMarker(cleaned)
            if !marker, cleaned.withUTF8(TSEDate.timeOfDay) == nil {
                // Not cached: every such row says so, as a bad DT_GERACAO does.
                r.warn(
                    .HH_GERACAO,
                    "HH_GERACAO is not a time of day (HH:mm:ss): the row's generation is DT_GERACAO at midnight")
                return iso
            }
        }
        lastGeneration = (date, time, iso)
        return iso
    }

    /// The election's identity form of DS_ELEICAO: upper case, accents folded, spaces collapsed, so the
    /// original and re-released generations ("ELEIÇÃO MUNICIPAL 2012", "Eleição Municipal 2012") meet.
    private func folded(_ description: String) -> String {
        if let f = foldedDescriptions[description] { return f }
        let f = ElectionMapper.fold(description)
        if foldedDescriptions.count > 4096 { foldedDescriptions.removeAll() }
        foldedDescriptions[description] = f
        return f
    }

    static func fold(_ text: String) -> String { ElectionsV4.foldedDescription(text) }

    /// The years an ANO_ELEICAO may hold: four digits (`20018` or `999` would each make an election of its own).
    static let years: ClosedRange<Int64> = 1000...9999

    /// The election of a record: `year/round/DESCRIPTION` in every generation; CD_ELEICAO is kept beside it.
    private func mapElection(_ r: FieldReader, generation: String?) throws -> ElectionValues {
        let rawKey = r.columns.electionKey
        if lastElection.matches(r, rawKey), let last = lastElection.value,
            !r.columns.has(.DT_ELEICAO) || last.date != nil
        {
            return last
        }
        let year = try r.requiredInteger(.ANO_ELEICAO, what: "the election year")
        guard Self.years.contains(year) else { throw r.problem(.ANO_ELEICAO, "ANO_ELEICAO is not a year: correct it") }
        let round = r.columns.has(.NR_TURNO) ? try r.requiredInteger(.NR_TURNO, what: "the round") : 1
        guard (1...2).contains(round) else {
            throw r.problem(.NR_TURNO, "NR_TURNO is not a round (1 or 2): correct it")
        }
        let code = r.integer(.CD_ELEICAO)
        let description = r.text(.DS_ELEICAO)
        // Without DS_ELEICAO (some XML dumps) CD_ELEICAO stands in: such an election meets no other generation.
        guard let key = description.map(folded) ?? code.map({ "CD_ELEICAO \($0)" }) else {
            throw r.problem(
                .DS_ELEICAO, "DS_ELEICAO is empty: with ANO_ELEICAO and NR_TURNO it names the election; fill it in")
        }
        let election = ElectionValues(
            id: "\(year)/\(round)/\(key)", code: code, year: year, round: round,
            electionDescription: description ?? "", kind: r.text(.NM_TIPO_ELEICAO),
            kindCode: r.integer(.CD_TIPO_ELEICAO),
            scope: r.text(.TP_ABRANGENCIA), date: r.date(.DT_ELEICAO, referenceYear: Int(year)),
            generatedAt: generation)
        lastElection.store(election, r, rawKey)
        return election
    }

    private func mapParty(_ r: FieldReader, year: Int64, generation: String?) -> PartyValues? {
        guard let number = r.integer(.NR_PARTIDO) else { return nil }
        return PartyValues(
            id: ElectionMapper.childID(String(year), number), year: year, number: number,
            acronym: r.text(.SG_PARTIDO) ?? "", name: r.text(.NM_PARTIDO) ?? "", generatedAt: generation)
    }

    private func mapCoalition(
        _ r: FieldReader, year: Int64, unit: String, generation: String?, required: Bool
    ) throws -> CoalitionValues? {
        let sequence: Int64
        if required {
            sequence = try r.requiredInteger(.SQ_COLIGACAO, what: "the coalition's sequential number")
        } else {
            guard let v = r.integer(.SQ_COLIGACAO) else { return nil }
            sequence = v
        }
        return CoalitionValues(
            id: ElectionMapper.childID(String(year) + "/" + unit, sequence), year: year, unit: unit,
            sequence: sequence, name: r.text(.NM_COLIGACAO) ?? "", composition: r.text(.DS_COMPOSICAO_COLIGACAO),
            kind: r.text(.TP_AGREMIACAO), generatedAt: generation)
    }

    // MARK: - Asset

    private func mapAsset(_ r: FieldReader) throws -> AssetObjects {
        // Goods belong to an election, not a round: a declaration belongs to the first-round candidacy.
        var electionID: String?
        var electionCode: Int64?
        var electionYear: Int64?
        if let yearText = r.code(.ANO_ELEICAO), let description = r.text(.DS_ELEICAO) {
            let year = try r.requiredInteger(.ANO_ELEICAO, what: "the election year")
            guard Self.years.contains(year) else {
                throw r.problem(.ANO_ELEICAO, "ANO_ELEICAO \(yearText) is not a year: correct it")
            }
            electionYear = year
            if let last = lastAssetElectionID, last.year == year,
                ElectionMapper.sameBytes(last.description, description)
            {
                electionID = last.id
            } else {
                let id = "\(year)/1/\(folded(description))"
                lastAssetElectionID = (year, description, id)
                electionID = id
            }
        } else if let code = r.integer(.CD_ELEICAO) {
            electionCode = code
        } else {
            throw r.problem(
                r.columns.has(.DS_ELEICAO) ? .DS_ELEICAO : .ANO_ELEICAO,
                "an asset names its election by ANO_ELEICAO + DS_ELEICAO (or CD_ELEICAO), and this row lacks them: "
                    + "fill them in")
        }
        let sequence = try r.requiredInteger(.SQ_CANDIDATO, what: "the candidacy's sequential number")
        let unit = r.columns.has(.SG_UE) ? r.code(.SG_UE).map { ElectionMapper.tseUnit($0, r) } : nil
        if r.columns.has(.SG_UE) && unit == nil {
            throw r.problem(
                .SG_UE, "SG_UE is empty: the electoral unit is part of the candidacy's identity; fill it in")
        }
        let candidateID = ElectionMapper.childID(
            unitID(electionID ?? "CD_ELEICAO \(electionCode ?? 0)", unit ?? "?"), sequence)
        let order: Int64
        if r.columns.has(.NR_ORDEM_CANDIDATO) {
            order = try r.requiredInteger(.NR_ORDEM_CANDIDATO, what: "the asset's order number")
        } else {
            order = nextOrdinal(candidateID: candidateID, file: r.record.location.file)
        }
        let cents = r.money(.VR_BEM_CANDIDATO)
        let updatedAt: String?
        let year = r.integer(.ANO_ELEICAO).map { Int($0) }
        switch updateTimestamp(
            date: r.raw(.DT_ULTIMA_ATUALIZACAO), time: r.raw(.HH_ULTIMA_ATUALIZACAO), referenceYear: year.map { $0 + 1 }
        )
        {
        case .date(let d):
            updatedAt = d
            // An unreadable time leaves midnight: only then can the time column hold something else.
            if d.hasSuffix("T00:00:00.000Z") {
                r.checkTime(.HH_ULTIMA_ATUALIZACAO, "the update time is left at midnight")
            }
        case .null:
            r.warnLostWith(.DT_ULTIMA_ATUALIZACAO, [.HH_ULTIMA_ATUALIZACAO], "the update's timestamp")
            updatedAt = nil
        case .invalid:
            r.warnDate(.DT_ULTIMA_ATUALIZACAO)
            r.warnLostWith(.DT_ULTIMA_ATUALIZACAO, [.HH_ULTIMA_ATUALIZACAO], "the update's timestamp")
            updatedAt = nil
        }
        let typeID = r.integer(.CD_TIPO_BEM_CANDIDATO)
        if typeID == nil { r.warnLostWith(.CD_TIPO_BEM_CANDIDATO, [.DS_TIPO_BEM_CANDIDATO], "the good's type") }
        let generation = self.generation(r)
        var good = GoodValues(
            id: ElectionMapper.childID(candidateID, order), candidateID: candidateID, order: order,
            goodDescription: r.text(.DS_BEM_CANDIDATO) ?? "", typeID: typeID, valueCents: cents, updatedAt: updatedAt,
            generatedAt: generation)
        good.sequence = sequence
        if let electionYear, let typeID { good.typeKey = ElectionsV6.goodTypeKey(year: electionYear, code: typeID) }
        if let electionCode {
            good.lookupElectionCode = electionCode
            good.lookupUnit = unit
        } else if unit == nil {
            good.lookupElectionID = electionID
        }
        let type = typeID.map {
            GoodTypeValues(
                year: electionYear ?? 0, code: $0, typedescription: r.text(.DS_TIPO_BEM_CANDIDATO) ?? "",
                generatedAt: generation)
        }
        let election = electionID.map { assetElection(r, id: $0) }
        return AssetObjects(good: good, goodType: type, election: election, warnings: warnings.list)
    }

    /// What an asset row says of its first-round election (CD_ELEICAO, CD/NM_TIPO_ELEICAO, DT_ELEICAO), without
    /// a generation, so that it only fills what the election's candidate rows left unknown (a goods file whose
    /// candidacies came from an original file brought CD_ELEICAO and DT_ELEICAO, which were dropped).
    private func assetElection(_ r: FieldReader, id: String) -> ElectionValues {
        let key = r.columns.assetElectionKey
        if lastAssetElection.matches(r, key, extra: id), let last = lastAssetElection.value,
            !r.columns.has(.DT_ELEICAO) || last.date != nil
        {
            return last
        }
        let year = r.integer(.ANO_ELEICAO) ?? 0
        let election = ElectionValues(
            id: id, code: r.integer(.CD_ELEICAO), year: year, round: 1,
            electionDescription: r.text(.DS_ELEICAO) ?? "", kind: r.text(.NM_TIPO_ELEICAO),
            kindCode: r.integer(.CD_TIPO_ELEICAO), scope: nil,
            date: r.date(.DT_ELEICAO, referenceYear: Int(year)), generatedAt: nil)
        lastAssetElection.store(election, r, key, extra: id)
        return election
    }

    /// Starts the records of another input: assets without NR_ORDEM_CANDIDATO are numbered from 1 again, even
    /// when the input has the name of the one before it (one path named twice, or two generations of
    /// `bem_candidato_2016_AC.txt` in two folders: numbered on, every good was stored twice). Call it before
    /// each file's records when one mapper reads several files.
    public func startFile() {
        assetOrdinalFile = ""
        assetOrdinals.removeAll()
    }

    /// 1, 2, 3... per candidacy within one file, for layouts without NR_ORDEM_CANDIDATO.
    private func nextOrdinal(candidateID: String, file: String) -> Int64 {
        if file != assetOrdinalFile {
            assetOrdinalFile = file
            assetOrdinals.removeAll()
        }
        let n = (assetOrdinals[candidateID] ?? 0) + 1
        assetOrdinals[candidateID] = n
        return n
    }

    /// `TSEDate.parse(date:time:referenceYear:)`, remembered for the last inputs.
    private func updateTimestamp(date: String?, time: String?, referenceYear: Int?) -> TSEDate.Parsed {
        if let last = lastUpdate, last.date == date, last.time == time, last.referenceYear == referenceYear {
            return last.parsed
        }
        let parsed = TSEDate.parse(
            date: date, time: time, referenceYear: referenceYear,
            order: columnDateOrders["DT_ULTIMA_ATUALIZACAO"] ?? dateOrder)
        lastUpdate = (date, time, referenceYear, parsed)
        return parsed
    }

    // MARK: - Identifiers

    /// `childID(electionID, unit)`, remembered for the last pair: consecutive rows mostly share both.
    private func unitID(_ electionID: String, _ unit: String) -> String {
        if let last = lastUnitID, ElectionMapper.sameBytes(last.election, electionID),
            ElectionMapper.sameBytes(last.unit, unit)
        {
            return last.id
        }
        let id = ElectionMapper.childID(electionID, unit)
        lastUnitID = (electionID, unit, id)
        return id
    }

    // MARK: - Coalition legend

    private func mapCoalitionMember(_ r: FieldReader) throws -> CoalitionMemberObjects {
        let year = try r.requiredInteger(.ANO_ELEICAO, what: "the election year")
        guard year > 0 else { throw r.problem(.ANO_ELEICAO, "ANO_ELEICAO is not a year: correct it") }
        guard let unit = r.code(.SG_UE).map({ ElectionMapper.tseUnit($0, r) }) else {
            throw r.problem(
                .SG_UE, "SG_UE is empty: the electoral unit is part of the coalition's identity; fill it in")
        }
        let generation = self.generation(r)
        guard let coalition = try mapCoalition(r, year: year, unit: unit, generation: generation, required: true)
        else {
            throw r.problem(.SQ_COLIGACAO, "SQ_COLIGACAO is empty: fill it in")
        }
        let party = mapParty(r, year: year, generation: generation)
        if party == nil { r.warnLostWith(.NR_PARTIDO, [.SG_PARTIDO, .NM_PARTIDO], "the row's party") }
        return CoalitionMemberObjects(coalition: coalition, party: party, warnings: warnings.list)
    }
}
