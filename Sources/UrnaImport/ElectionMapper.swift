import UrnaRecords

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
    private var lastElection: ElectionValues?
    private var lastOriginalElectionKey: (year: Int64, round: Int64, description: String)?
    /// The last asset update timestamp read and what it gave: consecutive goods mostly share it.
    private var lastUpdate: (date: String?, time: String?, referenceYear: Int?, parsed: TSEDate.Parsed)?
    private var assetOrdinalFile = ""
    private var assetOrdinals: [String: Int64] = [:]
    private let interner = FieldInterner()

    /// A mapper; `keepPersonalData` keeps CPF, e-mail and voter ID (they are dropped otherwise).
    public init(keepPersonalData: Bool = false) {
        self.keepPersonalData = keepPersonalData
    }

    /// The objects `record` implies, or why it cannot be imported.
    public func map(_ record: Record) -> Result<MappedRecord, MappingProblem> {
        let columns = positions(for: record.columns)
        return record.withEncodedRow { row in
            let reader = FieldReader(record: record, columns: columns, interner: interner, row: row)
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
        let election = try mapElection(r)
        let sequence = try r.requiredInteger(.SQ_CANDIDATO, what: "the candidacy's sequential number")
        let referenceYear = Int(election.year)
        let limit = try r.money(.VR_DESPESA_MAX_CAMPANHA)
        var candidate = CandidateValues(
            id: ElectionMapper.childID(election.id, sequence), sequence: sequence, electionID: election.id,
            number: try r.integer(.NR_CANDIDATO),
            nickname: r.text(.NM_URNA_CANDIDATO) ?? "", name: r.text(.NM_CANDIDATO) ?? "",
            socialName: r.text(.NM_SOCIAL_CANDIDATO),
            post: r.text(.DS_CARGO) ?? "", postCode: try r.integer(.CD_CARGO) ?? 0,
            state: r.code(.SG_UF) ?? "", unit: r.code(.SG_UE) ?? "", unitName: r.text(.NM_UE) ?? "",
            birthdate: try r.date(.DT_NASCIMENTO, referenceYear: referenceYear),
            sex: r.text(.DS_GENERO) ?? "", colorRace: r.text(.DS_COR_RACA) ?? "",
            maritalStatus: r.text(.DS_ESTADO_CIVIL) ?? "", nationality: r.text(.DS_NACIONALIDADE) ?? "",
            birthState: r.code(.SG_UF_NASCIMENTO), birthCity: r.text(.NM_MUNICIPIO_NASCIMENTO),
            literacy: r.text(.DS_GRAU_INSTRUCAO) ?? "", occupation: r.text(.DS_OCUPACAO) ?? "",
            partyNumber: nil, coalitionID: nil,
            processNumber: r.code(.NR_PROCESSO) ?? "", protocolNumber: r.code(.NR_PROTOCOLO_CANDIDATURA) ?? "",
            spendingLimitFirstRound: election.round == 2 ? nil : limit,
            spendingLimitSecondRound: election.round == 2 ? limit : nil,
            email: nil, cpf: nil, voterId: nil,
            status: r.text(.DS_SITUACAO_CANDIDATURA), result: r.text(.DS_SIT_TOT_TURNO))
        if keepPersonalData {
            candidate.email = r.text(.DS_EMAIL)
            candidate.cpf = r.code(.NR_CPF_CANDIDATO)
            candidate.voterId = r.code(.NR_TITULO_ELEITORAL_CANDIDATO)
        }
        let party = try mapParty(r)
        let coalition = try mapCoalition(r, required: false)
        candidate.partyNumber = party?.number
        candidate.coalitionID = coalition?.id
        return CandidacyObjects(election: election, candidate: candidate, party: party, coalition: coalition)
    }

    /// The election of a record: CD_ELEICAO when the layout has it, else year + round + description.
    private func mapElection(_ r: FieldReader) throws -> ElectionValues {
        let year = try r.integer(.ANO_ELEICAO) ?? 0
        let round = try r.integer(.NR_TURNO) ?? 1
        let description = r.text(.DS_ELEICAO) ?? ""
        if r.columns.has(.CD_ELEICAO) {
            let code = try r.requiredInteger(.CD_ELEICAO, what: "the election code")
            if let last = lastElection, last.code == code, last.year == year, last.round == round,
                last.electionDescription == description
            {
                return last
            }
            let election = ElectionValues(
                id: String(code), code: code, year: year, round: round, electionDescription: description,
                kind: r.text(.NM_TIPO_ELEICAO), date: try r.date(.DT_ELEICAO, referenceYear: Int(year)))
            lastElection = election
            return election
        }
        guard year > 0, !description.isEmpty else {
            throw r.problem(
                year > 0 ? .DS_ELEICAO : .ANO_ELEICAO,
                "a file without CD_ELEICAO names its election by ANO_ELEICAO + NR_TURNO + DS_ELEICAO, and this row "
                    + "lacks one of them: fill it in")
        }
        if let last = lastElection, last.code == nil, let key = lastOriginalElectionKey, key.year == year,
            key.round == round, key.description == description
        {
            return last
        }
        let election = ElectionValues(
            id: "\(year)/\(round)/\(description.uppercased())", code: nil, year: year, round: round,
            electionDescription: description, kind: r.text(.NM_TIPO_ELEICAO),
            date: try r.date(.DT_ELEICAO, referenceYear: Int(year)))
        lastElection = election
        lastOriginalElectionKey = (year, round, description)
        return election
    }

    private func mapParty(_ r: FieldReader) throws -> PartyValues? {
        guard let number = try r.integer(.NR_PARTIDO) else { return nil }
        return PartyValues(number: number, acronym: r.text(.SG_PARTIDO) ?? "", name: r.text(.NM_PARTIDO) ?? "")
    }

    private func mapCoalition(_ r: FieldReader, required: Bool) throws -> CoalitionValues? {
        let id: Int64
        if required {
            id = try r.requiredInteger(.SQ_COLIGACAO, what: "the coalition's sequential number")
        } else {
            guard let v = try r.integer(.SQ_COLIGACAO) else { return nil }
            id = v
        }
        return CoalitionValues(
            id: id, name: r.text(.NM_COLIGACAO) ?? "", composition: r.text(.DS_COMPOSICAO_COLIGACAO),
            kind: r.text(.TP_AGREMIACAO))
    }

    // MARK: - Asset

    private func mapAsset(_ r: FieldReader) throws -> AssetObjects {
        let electionID: String
        if r.columns.has(.CD_ELEICAO) {
            electionID = String(try r.requiredInteger(.CD_ELEICAO, what: "the election code"))
        } else {
            // Header-less asset files name no round: a declaration belongs to the first-round candidacy.
            let year = try r.requiredInteger(.ANO_ELEICAO, what: "the election year")
            guard let description = r.text(.DS_ELEICAO) else {
                throw r.problem(
                    .DS_ELEICAO, "DS_ELEICAO is empty: without CD_ELEICAO it names the election; fill it in")
            }
            electionID = "\(year)/1/\(description.uppercased())"
        }
        let sequence = try r.requiredInteger(.SQ_CANDIDATO, what: "the candidacy's sequential number")
        let candidateID = ElectionMapper.childID(electionID, sequence)
        let order: Int64
        if r.columns.has(.NR_ORDEM_CANDIDATO) {
            order = try r.requiredInteger(.NR_ORDEM_CANDIDATO, what: "the asset's order number")
        } else {
            order = nextOrdinal(candidateID: candidateID, file: r.record.location.file)
        }
        let cents: Int64
        switch Reais.parseCents(r.raw(.VR_BEM_CANDIDATO)) {
        case .cents(let c): cents = c
        case .null: cents = 0
        case .invalid:
            throw r.problem(
                .VR_BEM_CANDIDATO,
                "VR_BEM_CANDIDATO is not an amount in reais like 3669,04 (digits, a decimal comma "
                    + "and two decimals): correct it")
        }
        let year = try r.integer(.ANO_ELEICAO)
        let updatedAt: String?
        switch updateTimestamp(
            date: r.raw(.DT_ULTIMA_ATUALIZACAO), time: r.raw(.HH_ULTIMA_ATUALIZACAO),
            referenceYear: year.map { Int($0) + 1 })
        {
        case .date(let d): updatedAt = d
        case .null: updatedAt = nil
        case .invalid: throw r.dateProblem(.DT_ULTIMA_ATUALIZACAO)
        }
        let typeID = try r.integer(.CD_TIPO_BEM_CANDIDATO)
        let good = GoodValues(
            id: ElectionMapper.childID(candidateID, order), candidateID: candidateID, order: order,
            goodDescription: r.text(.DS_BEM_CANDIDATO) ?? "", typeID: typeID, valueCents: cents, updatedAt: updatedAt)
        let type = typeID.map { GoodTypeValues(id: $0, typedescription: r.text(.DS_TIPO_BEM_CANDIDATO) ?? "") }
        return AssetObjects(good: good, goodType: type)
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
        let parsed = TSEDate.parse(date: date, time: time, referenceYear: referenceYear)
        lastUpdate = (date, time, referenceYear, parsed)
        return parsed
    }

    // MARK: - Identifiers

    /// `"\(parent)/\(number)"` (a candidacy's id from its election's, an asset's from its candidacy's),
    /// written in one allocation: interpolation costs several calls and a growing buffer, for two ids a row.
    static func childID(_ parent: String, _ number: Int64) -> String {
        var parent = parent
        return parent.withUTF8 { prefix in
            String(unsafeUninitializedCapacity: prefix.count + 21) { out in
                var n = prefix.count
                if let base = prefix.baseAddress { out.baseAddress!.update(from: base, count: n) }
                out[n] = UInt8(ascii: "/")
                n += 1
                if number < 0 {
                    out[n] = UInt8(ascii: "-")
                    n += 1
                }
                // Digits of the magnitude, written backwards after a count of them.
                var magnitude = number.magnitude
                var digits = 1
                var rest = magnitude / 10
                while rest > 0 {
                    digits += 1
                    rest /= 10
                }
                for k in stride(from: n + digits - 1, through: n, by: -1) {
                    out[k] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                }
                return n + digits
            }
        }
    }

    // MARK: - Coalition legend

    private func mapCoalitionMember(_ r: FieldReader) throws -> CoalitionMemberObjects {
        guard let coalition = try mapCoalition(r, required: true) else {
            throw r.problem(.SQ_COLIGACAO, "SQ_COLIGACAO is empty: fill it in")
        }
        return CoalitionMemberObjects(coalition: coalition, party: try mapParty(r))
    }
}

/// Reads one record's fields by position, turning TSE conventions into values or problems.
struct FieldReader {
    let record: Record
    let columns: MapperColumnPositions
    let interner: FieldInterner
    /// The record's bytes (a CSV row's, or an XML record's column texts), lent for the time of one `map`
    /// call (nil for records built from strings).
    let row: EncodedRowView?

    /// A field's text as read (not cleaned); nil when the layout lacks the column.
    @inline(__always) func raw(_ c: MapperColumn) -> String? {
        guard let p = columns.position(c) else { return nil }
        if let row, let bytes = row.field(p) { return row.encoding.decode(bytes) }
        return record.value(at: p)
    }

    @inline(__always) func text(_ c: MapperColumn) -> String? { remembered(c, .text) }

    @inline(__always) func code(_ c: MapperColumn) -> String? { remembered(c, .code) }

    /// Columns that repeat from row to row go through the interner; the others are decoded each time.
    @inline(__always) private func remembered(_ c: MapperColumn, _ reading: FieldInterner.Reading) -> String? {
        if c.repeatsAcrossRows, let p = columns.position(c), let row, let bytes = row.field(p) {
            return interner.value(c, reading, bytes: bytes, encoding: row.encoding)
        }
        return FieldInterner.read(reading, raw(c))
    }

    func integer(_ c: MapperColumn) throws -> Int64? {
        // Most integer fields are plain digits: read them from the row's bytes without building a string.
        if let p = columns.position(c), let row, let bytes = row.field(p), let v = FieldReader.plainDigits(bytes) {
            return v
        }
        switch TSEField.integer(raw(c)) {
        case .null: return nil
        case .value(let v): return v
        case .invalid: throw problem(c, "\(c.name) is not a whole number: correct it (or empty it if unknown)")
        }
    }

    /// The value of 1 to 18 ASCII digits and nothing else (cannot overflow); nil for anything else,
    /// which then takes `TSEField.integer`'s full path (blanks, signs, null markers, errors).
    static func plainDigits(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count > 0, bytes.count <= 18 else { return nil }
        var v: Int64 = 0
        for b in bytes {
            let d = b &- 0x30
            guard d <= 9 else { return nil }
            v = v &* 10 &+ Int64(d)
        }
        return v
    }

    func requiredInteger(_ c: MapperColumn, what: String) throws -> Int64 {
        guard columns.has(c) else {
            throw problem(c, "\(c.name) is missing from this layout: it holds \(what), which identifies the row")
        }
        guard let v = try integer(c) else {
            throw problem(c, "\(c.name) is empty: it holds \(what), which identifies the row; fill it in")
        }
        return v
    }

    func date(_ c: MapperColumn, referenceYear: Int?) throws -> String? {
        switch TSEDate.parse(raw(c), referenceYear: referenceYear) {
        case .null: return nil
        case .date(let d): return d
        case .invalid: throw dateProblem(c)
        }
    }

    func money(_ c: MapperColumn) throws -> Int64? {
        switch Reais.parseCents(raw(c)) {
        case .null: return nil
        case .cents(let v): return v
        case .invalid:
            throw problem(c, "\(c.name) is not an amount in reais (like 1270629.01 or 3669,04): correct it")
        }
    }

    func dateProblem(_ c: MapperColumn) -> MappingProblem {
        problem(
            c,
            "\(c.name) is not a date (expected dd/MM/yyyy, dd/MM/yyyy HH:mm:ss or 22-MAR-52): correct it, "
                + "or empty it if unknown")
    }

    func problem(_ c: MapperColumn, _ reason: String) -> MappingProblem {
        var location = record.location
        location.column = columns.fieldNumber(c)
        return MappingProblem(location: location, reason: reason)
    }
}
