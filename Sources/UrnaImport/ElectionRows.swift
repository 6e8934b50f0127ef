import UrnaSchemas
import UrnaStore

/// The columns the importer writes, per type, key first and `generatedAt` second: names of `ElectionsV6`
/// properties (the storage contract: one column per property). Left out on purpose: `Candidate.vice`
/// (linked after all candidacies are in), `Candidate.image`/`site` and `Party.president` (not in TSE data,
/// so a value set by hand survives a re-import), and lists (written through their list tables).
enum ElectionColumns {
    static let election = [
        "id", "generatedAt", "code", "year", "round", "electionDescription", "kind", "kindCode", "scope", "date",
    ]
    /// The columns of `type`'s rows (Election, Party, Coalition, GoodType).
    static func named(_ type: String) -> [String] {
        switch type {
        case "Election": election
        case "Party": party
        case "Coalition": coalition
        default: goodType
        }
    }
    static let party = ["id", "generatedAt", "year", "number", "acronym", "name"]
    static let coalition = ["id", "generatedAt", "year", "unit", "sequence", "name", "composition", "kind"]
    static let goodType = ["id", "generatedAt", "year", "code", "typedescription"]
    static let good = ["id", "generatedAt", "candidacy", "order", "goodDescription", "type", "value", "updatedAt"]
    static let candidate =
        [
            "id", "generatedAt", "sequence", "election", "round", "number", "nickname", "name", "socialName", "post",
            "postCode", "state", "unit", "unitName", "birthdate", "sex", "colorRace", "maritalStatus", "nationality",
            "birthState", "birthCity", "literacy", "occupation", "party", "coalition", "processNumber",
            "protocolNumber", "spendingLimitFirstRound", "spendingLimitSecondRound", "email", "cpf", "voterId",
            "status", "result",
        ] + ElectionsV4.sourceColumns.map(\.name)
    /// Where Candidate's `ElectionsV4.sourceColumns` start in `candidate`.
    static let candidateSourceStart = candidate.count - ElectionsV4.sourceColumns.count
}

/// A value's row for `UpsertStatements`: every column of its `ElectionColumns` list, in order.
protocol UpsertRow {
    var row: [SQLValue] { get }
}

/// A value that binds its row's columns (parameters 1...n, as `row` lists them) straight from its fields: the
/// insert of a new row, the common case, then builds no `[SQLValue]` (the writing thread retained each of a
/// candidacy's some seventy strings for it, strings the reading thread made and frees).
protocol BindableUpsertRow: UpsertRow {
    func bindRow(to statement: Statement)
}

@inline(__always) func sql(_ v: String?) -> SQLValue { v.map(SQLValue.text) ?? .null }
@inline(__always) func sql(_ v: Int64?) -> SQLValue { v.map(SQLValue.integer) ?? .null }

extension ElectionValues: UpsertRow {
    var row: [SQLValue] {
        [
            .text(id), sql(generatedAt), sql(code), .integer(year), .integer(round), .text(electionDescription),
            sql(kind), sql(kindCode), sql(scope), sql(date),
        ]
    }
}

extension PartyValues: UpsertRow {
    var row: [SQLValue] {
        [.text(id), sql(generatedAt), .integer(year), .integer(number), .text(acronym), .text(name)]
    }
}

extension CoalitionValues: UpsertRow {
    var row: [SQLValue] {
        [
            .text(id), sql(generatedAt), .integer(year), .text(unit), .integer(sequence), .text(name),
            sql(composition), sql(kind),
        ]
    }
}

extension GoodTypeValues: UpsertRow {
    var row: [SQLValue] { [.text(id), sql(generatedAt), .integer(year), .integer(code), .text(typedescription)] }
}

extension GoodValues: UpsertRow {
    var row: [SQLValue] {
        [
            .text(id), sql(generatedAt), .text(candidateID), .integer(order), .text(goodDescription), sql(typeKey),
            sql(valueCents), sql(updatedAt),
        ]
    }
}

extension GoodValues: BindableUpsertRow {
    func bindRow(to s: Statement) {
        s.bind(id, 1)
        s.bind(generatedAt, 2)
        s.bind(candidateID, 3)
        s.bind(order, 4)
        s.bind(goodDescription, 5)
        s.bind(typeKey, 6)
        s.bind(valueCents, 7)
        s.bind(updatedAt, 8)
    }
}

extension CandidateValues: BindableUpsertRow {
    func bindRow(to s: Statement) {
        s.bind(id, 1)
        s.bind(generatedAt, 2)
        s.bind(sequence, 3)
        s.bind(electionID, 4)
        s.bind(round, 5)
        s.bind(number, 6)
        s.bind(nickname, 7)
        s.bind(name, 8)
        s.bind(socialName, 9)
        s.bind(post, 10)
        s.bind(postCode, 11)
        s.bind(state, 12)
        s.bind(unit, 13)
        s.bind(unitName, 14)
        s.bind(birthdate, 15)
        s.bind(sex, 16)
        s.bind(colorRace, 17)
        s.bind(maritalStatus, 18)
        s.bind(nationality, 19)
        s.bind(birthState, 20)
        s.bind(birthCity, 21)
        s.bind(literacy, 22)
        s.bind(occupation, 23)
        s.bind(partyID, 24)
        s.bind(coalitionID, 25)
        s.bind(processNumber, 26)
        s.bind(protocolNumber, 27)
        s.bind(spendingLimitFirstRound, 28)
        s.bind(spendingLimitSecondRound, 29)
        s.bind(email, 30)
        s.bind(cpf, 31)
        s.bind(voterId, 32)
        s.bind(status, 33)
        s.bind(result, 34)
        let start = Int32(ElectionColumns.candidateSourceStart)
        if sourceValues.count == ElectionsV4.sourceColumns.count {
            for i in sourceValues.indices { s.bindValue(sourceValues[i], start + 1 + Int32(i)) }
        } else {
            for i in 0..<ElectionsV4.sourceColumns.count { s.bindNull(at: start + 1 + Int32(i)) }
        }
    }
}

extension CandidateValues: UpsertRow {
    var row: [SQLValue] {
        var r: [SQLValue] = [
            .text(id), sql(generatedAt), .integer(sequence), .text(electionID), .integer(round), sql(number),
            .text(nickname), .text(name), sql(socialName), .text(post), .integer(postCode), .text(state), .text(unit),
            .text(unitName), sql(birthdate), .text(sex), .text(colorRace), .text(maritalStatus), .text(nationality),
            sql(birthState), sql(birthCity), .text(literacy), .text(occupation), sql(partyID), sql(coalitionID),
            .text(processNumber), .text(protocolNumber), sql(spendingLimitFirstRound), sql(spendingLimitSecondRound),
            sql(email), sql(cpf), sql(voterId), sql(status), sql(result),
        ]
        r.reserveCapacity(ElectionColumns.candidate.count)
        if sourceValues.count == ElectionsV4.sourceColumns.count {
            r += sourceValues
        } else {
            r += repeatElement(SQLValue.null, count: ElectionsV4.sourceColumns.count)
        }
        return r
    }
}

extension Statement {
    @inline(__always) func bind(_ v: String?, _ index: Int32) {
        if let v { bindText(v, at: index) } else { bindNull(at: index) }
    }

    @inline(__always) func bind(_ v: String, _ index: Int32) { bindText(v, at: index) }

    @inline(__always) func bind(_ v: Int64?, _ index: Int32) {
        if let v { bindInt(v, at: index) } else { bindNull(at: index) }
    }

    @inline(__always) func bind(_ v: Int64, _ index: Int32) { bindInt(v, at: index) }

    /// Binds one value of a row (no real numbers or blobs occur in election rows).
    @inline(__always) func bindValue(_ v: SQLValue, _ index: Int32) {
        switch v {
        case .null: bindNull(at: index)
        case .integer(let i): bindInt(i, at: index)
        case .text(let s): bindText(s, at: index)
        case .real(let d): bindDouble(d, at: index)
        case .blob: _ = try? bind(v, at: index)
        }
    }
}
