import UrnaStore

/// The columns the importer writes, per type, key first: names of `ElectionsV3` properties (the
/// storage contract: one column per property). Left out on purpose: `Candidate.vice` (linked after all
/// candidacies are in), `Candidate.image`/`site` and `Party.president` (not in TSE data, so a value set
/// by hand survives a re-import), and lists (written through their list tables).
enum ElectionColumns {
    static let election = ["id", "code", "year", "round", "electionDescription", "kind", "date"]
    static let party = ["id", "number", "acronym", "name"]
    static let coalition = ["id", "name", "composition", "kind"]
    static let goodType = ["id", "typedescription"]
    static let good = ["id", "order", "goodDescription", "type", "value", "updatedAt"]
    static let candidate = [
        "id", "sequence", "election", "number", "nickname", "name", "socialName", "post", "postCode", "state", "unit",
        "unitName", "birthdate", "sex", "colorRace", "maritalStatus", "nationality", "birthState", "birthCity",
        "literacy", "occupation", "party", "coalition", "processNumber", "protocolNumber", "spendingLimitFirstRound",
        "spendingLimitSecondRound", "email", "cpf", "voterId", "status", "result",
    ]
}

extension ElectionValues: UpsertRow {
    func bind(to s: Statement) {
        s.bind(id, 1)
        s.bind(code, 2)
        s.bind(year, 3)
        s.bind(round, 4)
        s.bind(electionDescription, 5)
        s.bind(kind, 6)
        s.bind(date, 7)
    }
}

extension PartyValues: UpsertRow {
    func bind(to s: Statement) {
        s.bind(number, 1)
        s.bind(number, 2)
        s.bind(acronym, 3)
        s.bind(name, 4)
    }
}

extension CoalitionValues: UpsertRow {
    func bind(to s: Statement) {
        s.bind(id, 1)
        s.bind(name, 2)
        s.bind(composition, 3)
        s.bind(kind, 4)
    }
}

extension GoodTypeValues: UpsertRow {
    func bind(to s: Statement) {
        s.bind(id, 1)
        s.bind(typedescription, 2)
    }
}

extension GoodValues: UpsertRow {
    func bind(to s: Statement) {
        s.bind(id, 1)
        s.bind(order, 2)
        s.bind(goodDescription, 3)
        s.bind(typeID, 4)
        s.bind(valueCents, 5)
        s.bind(updatedAt, 6)
    }
}

extension CandidateValues: UpsertRow {
    func bind(to s: Statement) {
        s.bind(id, 1)
        s.bind(sequence, 2)
        s.bind(electionID, 3)
        s.bind(number, 4)
        s.bind(nickname, 5)
        s.bind(name, 6)
        s.bind(socialName, 7)
        s.bind(post, 8)
        s.bind(postCode, 9)
        s.bind(state, 10)
        s.bind(unit, 11)
        s.bind(unitName, 12)
        s.bind(birthdate, 13)
        s.bind(sex, 14)
        s.bind(colorRace, 15)
        s.bind(maritalStatus, 16)
        s.bind(nationality, 17)
        s.bind(birthState, 18)
        s.bind(birthCity, 19)
        s.bind(literacy, 20)
        s.bind(occupation, 21)
        s.bind(partyNumber, 22)
        s.bind(coalitionID, 23)
        s.bind(processNumber, 24)
        s.bind(protocolNumber, 25)
        s.bind(spendingLimitFirstRound, 26)
        s.bind(spendingLimitSecondRound, 27)
        s.bind(email, 28)
        s.bind(cpf, 29)
        s.bind(voterId, 30)
        s.bind(status, 31)
        s.bind(result, 32)
    }
}
