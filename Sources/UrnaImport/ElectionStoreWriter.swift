import UrnaStore

/// Writes mapped election objects into a store's tables with prepared statements, following the
/// storage contract (`StorageLayout`): a table per type, a column per property, links holding the
/// target's key, lists in `<Type>_<property>(owner, position, target)`.
///
/// Must run inside one write transaction; it counts what it inserted, updated and left unchanged.
final class ElectionStoreWriter {
    let connection: Connection
    private let candidates: UpsertStatements
    /// Candidacies whose stored CPF, e-mail or voter ID (kept by an earlier run) this run erased.
    var personalDataErased: Int { candidates.replacedErased }
    /// The last candidacy's and the last good's values that disagreed with a stored row of the same generation.
    var candidateTies: [(column: String, kept: SQLValue, other: SQLValue)] { candidates.ties }
    var goodTies: [(column: String, kept: SQLValue, other: SQLValue)] { goods.ties }
    /// Values of the run's elections, parties, coalitions and good types that disagreed with the stored row of the
    /// same generation (type, key, column, kept, other), found by `flush`.
    var catalogueTies: [(type: String, id: String, column: String, kept: SQLValue, other: SQLValue)] = []
    private let goods: UpsertStatements
    let elections: UpsertStatements
    let parties: UpsertStatements
    let coalitions: UpsertStatements
    let goodTypes: UpsertStatements
    private let findCandidate: Statement
    private let appendGood: Statement
    private let goodIsListed: Statement
    let coalitionMembers: Statement
    let coalitionComposition: Statement
    let appendCoalitionMember: Statement
    let deleteCoalitionMembers: Statement
    let partiesOfYear: Statement
    let storedCoalitions: Statement
    private let ticketMembers: Statement
    private let setVice: Statement
    private let candidatesOfElection: Statement
    private let electionByCode: Statement
    /// For goods of layouts without SG_UE: per election, SQ_CANDIDATO -> the candidacy's id, or nil when
    /// two candidacies of the election share it (2004: SQ_CANDIDATO restarts in every municipality).
    private var sequenceIndex: [String: [Int64: String?]] = [:]

    private(set) var candidateRows: RunRowTracker
    private(set) var goodRows: RunRowTracker
    var catalogueCounts: [String: ObjectCounts] = [:]
    /// Candidacies that received goods in this run, with where their next good goes. TSE asset files
    /// are not sorted by candidacy (consecutive rows share one in under 10% of MG 2018), so remembering
    /// only the last one missed almost always and every asset paid a SELECT. Bounded: emptied when it
    /// reaches `slotCacheLimit` entries (about 100 bytes each, so 26 MB at most; the benchmark's million
    /// assets use about 100,000).
    private var slots: [String: GoodsSlot] = [:]
    static let slotCacheLimit = 1 << 18
    /// The candidacy the last good went to, and its slot (kept here, not in `slots`, while its goods keep
    /// coming): asset rows reach the writer in candidacy order, so most goods skip two dictionary lookups.
    private var lastSlot: (id: String, slot: GoodsSlot)?
    /// Set when this run's goods lists are written at the end, in one statement (see `GoodsListBulk`).
    let goodsListBulk: GoodsListBulk

    /// Prepares every statement; throws when the store's schema is not the elections schema the
    /// importer writes (so a wrong file is refused before any row is read).
    /// `keepsPersonalData` false: CPF, e-mail and voter ID are erased from the candidacies the run reads
    /// (the mapper dropped them), not kept from an earlier run. `listsGoodsInBulk`: write the goods lists at
    /// the end when the file holds no goods yet (`GoodsListBulk`); false (triggers run) lists each good as it comes.
    init(store: Store, keepsPersonalData: Bool = false, listsGoodsInBulk: Bool = true) throws {
        try ElectionStoreWriter.checkSchema(store.schema)
        let c = store.connection
        connection = c
        let name = ElectionColumns.candidate.firstIndex(of: "name")!
        let postCode = ElectionColumns.candidate.firstIndex(of: "postCode")!
        let g = try FieldGenerations(connection: c)
        candidates = try UpsertStatements(
            connection: c, table: "Candidate", columns: ElectionColumns.candidate,
            conflict: { stored, incoming in
                ElectionStoreWriter.identityConflict(stored, incoming, name: name, postCode: postCode)
            }, replacing: keepsPersonalData ? [] : ["email", "cpf", "voterId"], fieldGenerations: g)
        let description = ElectionColumns.good.firstIndex(of: "goodDescription")!
        goods = try UpsertStatements(
            connection: c, table: "Good", columns: ElectionColumns.good,
            conflict: { stored, incoming in ElectionStoreWriter.goodConflict(stored, incoming, description: description)
            },
            fieldGenerations: g)
        elections = try UpsertStatements(
            connection: c, table: "Election", columns: ElectionColumns.election, fieldGenerations: g)
        parties = try UpsertStatements(
            connection: c, table: "Party", columns: ElectionColumns.party, fieldGenerations: g)
        coalitions = try UpsertStatements(
            connection: c, table: "Coalition", columns: ElectionColumns.coalition, fieldGenerations: g)
        goodTypes = try UpsertStatements(
            connection: c, table: "GoodType", columns: ElectionColumns.goodType, fieldGenerations: g)
        let goodsList = Identifier.quoted(StorageLayout.listTable(type: "Candidate", property: "goods"))
        let partiesList = Identifier.quoted(StorageLayout.listTable(type: "Coalition", property: "parties"))
        findCandidate = try c.prepare(
            "SELECT c.rowid, (SELECT coalesce(max(l.position) + 1, 0) FROM \(goodsList) l WHERE l.owner = c.\"id\") "
                + "FROM \"Candidate\" c WHERE c.\"id\" = ?1")
        appendGood = try c.prepare("INSERT INTO \(goodsList)(owner, position, target) VALUES (?1, ?2, ?3)")
        goodIsListed = try c.prepare("SELECT 1 FROM \(goodsList) WHERE target = ?1 LIMIT 1")
        coalitionMembers = try c.prepare("SELECT target FROM \(partiesList) WHERE owner = ?1 ORDER BY position")
        coalitionComposition = try c.prepare("SELECT \"composition\" FROM \"Coalition\" WHERE \"id\" = ?1")
        appendCoalitionMember = try c.prepare(
            "INSERT INTO \(partiesList)(owner, position, target) VALUES (?1, ?2, ?3)")
        deleteCoalitionMembers = try c.prepare("DELETE FROM \(partiesList) WHERE owner = ?1")
        partiesOfYear = try c.prepare("SELECT \"id\", \"acronym\" FROM \"Party\" WHERE \"year\" = ?1")
        storedCoalitions = try c.prepare(
            "SELECT \"id\", \"composition\" FROM \"Coalition\" WHERE \"year\" = ?1 AND \"composition\" IS NOT NULL "
                + "ORDER BY \"id\"")
        ticketMembers = try c.prepare(
            "SELECT rowid, \"id\", \"unit\", \"number\", \"postCode\", \"status\", \"sequence\", \"vice\" FROM \"Candidate\" "
                + "WHERE \"election\" = ?1 AND \"postCode\" IN (1, 2, 3, 4, 11, 12) AND \"number\" IS NOT NULL")
        setVice = try c.prepare("UPDATE \"Candidate\" SET \"vice\" = ?2 WHERE rowid = ?1")
        electionByCode = try c.prepare("SELECT min(\"id\") FROM \"Election\" WHERE \"code\" = ?1")
        candidatesOfElection = try c.prepare(
            "SELECT \"sequence\", \"id\" FROM \"Candidate\" WHERE \"election\" = ?1")
        candidateRows = RunRowTracker(startMaxRowid: try c.integer("SELECT max(rowid) FROM \"Candidate\""))
        goodRows = RunRowTracker(startMaxRowid: try c.integer("SELECT max(rowid) FROM \"Good\""))
        goodsListBulk = try GoodsListBulk(connection: c, allowed: listsGoodsInBulk)
    }

    /// The store must be the `elections` family with every column this writer fills.
    static func checkSchema(_ schema: Schema) throws {
        guard schema.family == "elections" else {
            throw StoreError.schemaMismatch(
                "the file holds the '\(schema.family)' family, not 'elections': import into an elections file")
        }
        let wanted: [(String, [String])] = [
            ("Election", ElectionColumns.election), ("Party", ElectionColumns.party),
            ("Coalition", ElectionColumns.coalition + ["parties"]), ("GoodType", ElectionColumns.goodType),
            ("Good", ElectionColumns.good), ("Candidate", ElectionColumns.candidate + ["vice", "goods"]),
        ]
        for (type, columns) in wanted {
            guard let t = schema[type: type] else { throw StoreError.unknownType(type) }
            for column in columns where t[property: column] == nil {
                throw StoreError.unknownProperty(type: type, property: column)
            }
        }
    }

    // MARK: - Candidacies and goods

    /// Upserts a candidacy; returns what happened to it.
    @discardableResult
    func write(candidate: CandidateValues) throws -> UpsertStatements.Outcome {
        if !sequenceIndex.isEmpty { sequenceIndex.removeAll() }
        let outcome = try candidates.upsert(candidate)
        candidateRows.record(outcome)
        return outcome
    }

    /// Warnings for elections this run touched that share their CD_ELEICAO and round with another stored
    /// election of another description: the files name one election two ways (a re-release that renamed
    /// DS_ELEICAO), so their candidacies are counted in both. Said, since they cannot be told apart safely.
    func electionsSharingCode(touched: [String]) throws -> [String] {
        guard !touched.isEmpty else { return [] }
        let touchedSet = Set(touched)
        var warnings: [String] = []
        let groups = try connection.rows(
            "SELECT \"code\", \"round\", group_concat(\"id\", char(10)) FROM (SELECT \"code\", \"round\", \"id\" FROM "
                + "\"Election\" WHERE \"code\" IS NOT NULL ORDER BY \"id\") GROUP BY \"code\", \"round\" HAVING count(*) > 1"
        )
        for g in groups {
            guard case .integer(let code) = g[0], case .text(let joined) = g[2] else { continue }
            let ids = joined.split(separator: "\n").map(String.init)
            guard ids.contains(where: touchedSet.contains) else { continue }
            let round = if case .integer(let r) = g[1] { " round \(r)" } else { "" }
            warnings.append(
                "CD_ELEICAO \(code)\(round) names \(ids.count) elections with different descriptions ("
                    + ids.map { "'\($0)'" }.joined(separator: ", ")
                    + "): their candidacies are kept apart and may count twice; check DS_ELEICAO in the files")
        }
        return warnings
    }

    /// How two rows with one candidacy key are not one candidacy (office or name differ), or nil.
    static func identityConflict(_ stored: [SQLValue], _ incoming: [SQLValue], name: Int, postCode: Int) -> String? {
        if case .integer(let a) = stored[postCode], case .integer(let b) = incoming[postCode], a != 0, b != 0, a != b {
            return "two rows hold this candidacy key (election/SG_UE/SQ_CANDIDATO), one for office CD_CARGO \(a) and "
                + "one for \(b) (this row)"
        }
        if case .text(let a) = stored[name], case .text(let b) = incoming[name], !a.isEmpty, !b.isEmpty,
            ElectionMapper.fold(a) != ElectionMapper.fold(b)
        {
            return "two rows hold this candidacy key (election/SG_UE/SQ_CANDIDATO), one under NM_CANDIDATO '\(a)' "
                + "and one under '\(b)' (this row)"
        }
        return nil
    }

    /// How two rows with one good key (its candidacy and NR_ORDEM_CANDIDATO, or its position among the candidacy's
    /// rows in a 12-column original, which has no asset number) are not one good: their descriptions differ
    /// (case, accents and spaces aside), as when a file lists a candidacy's assets in another order or one fewer.
    static func goodConflict(_ stored: [SQLValue], _ incoming: [SQLValue], description: Int) -> String? {
        guard case .text(let a) = stored[description], case .text(let b) = incoming[description], !a.isEmpty,
            !b.isEmpty, ElectionMapper.fold(a) != ElectionMapper.fold(b)
        else { return nil }
        func cut(_ s: String) -> String { s.count > 40 ? String(s.prefix(37)) + "..." : s }
        return "two rows hold this good's key (its candidacy and NR_ORDEM_CANDIDATO, or its position among the "
            + "candidacy's rows where the layout has no asset number), one for '\(cut(a))' and one for '\(cut(b))' (this row)"
    }

    /// Replaces a list's rows: `delete` (owner as ?1) removes them, `insert` (owner, position, target) adds the
    /// members at positions 0, 1, 2...
    static func rewriteList(owner: String, members: [SQLValue], delete: Statement, insert: Statement) throws {
        delete.bind(owner, 1)
        _ = try delete.step()
        delete.reset()
        for (position, member) in members.enumerated() {
            insert.bind(owner, 1)
            insert.bind(Int64(position), 2)
            insert.bindValue(member, 3)
            _ = try insert.step()
            insert.reset()
        }
    }

    /// Puts the goods lists that got a good out of order in asset order (NR_ORDEM_CANDIDATO, then key), so a
    /// candidacy's list is the same whatever order its files came in. Returns how many lists it sorted.
    @discardableResult
    func sortGoodsLists() throws -> Int {
        guard !unsortedGoodsLists.isEmpty else { return 0 }
        let list = Identifier.quoted(StorageLayout.listTable(type: "Candidate", property: "goods"))
        let read = try connection.prepare(
            "SELECT l.target FROM \(list) l JOIN \"Good\" g ON g.\"id\" = l.target WHERE l.owner = ?1 "
                + "ORDER BY g.\"order\", g.\"id\"")
        let clear = try connection.prepare("DELETE FROM \(list) WHERE owner = ?1")
        for owner in unsortedGoodsLists.sorted() {
            read.bind(owner, 1)
            var targets: [SQLValue] = []
            while try read.step() { targets.append(read.value(at: 0)) }
            read.reset()
            try Self.rewriteList(owner: owner, members: targets, delete: clear, insert: appendGood)
        }
        let sorted = unsortedGoodsLists.count
        unsortedGoodsLists.removeAll()
        slots.removeAll()
        lastSlot = nil
        return sorted
    }

    /// The candidacy a good of a layout without SG_UE belongs to: the one candidacy of its election with its
    /// SQ_CANDIDATO. `.none` when there is none yet, `.ambiguous` when several units share the number.
    enum Resolution {
        case found(String)
        case none
        case ambiguous
    }

    /// The stored election with this CD_ELEICAO (the smallest id if several), or nil.
    func electionID(code: Int64) throws -> String? {
        electionByCode.bind(code, 1)
        defer { electionByCode.reset() }
        guard try electionByCode.step(), case .text(let id) = electionByCode.value(at: 0) else { return nil }
        return id
    }

    func resolve(_ good: GoodValues) throws -> Resolution {
        guard let election = good.lookupElectionID else { return .found(good.candidateID) }
        if sequenceIndex[election] == nil {
            var index: [Int64: String?] = [:]
            candidatesOfElection.bind(election, 1)
            while try candidatesOfElection.step() {
                guard case .text(let id) = candidatesOfElection.value(at: 1) else { continue }
                let sequence = candidatesOfElection.int(at: 0)
                index[sequence] = index[sequence] == nil ? .some(id) : .some(nil)
            }
            candidatesOfElection.reset()
            if sequenceIndex.count > 64 { sequenceIndex.removeAll() }
            sequenceIndex[election] = index
        }
        switch sequenceIndex[election]?[good.sequence] {
        case .none: return .none
        case .some(.none): return .ambiguous
        case .some(.some(let id)): return .found(id)
        }
    }

    /// A candidacy's row and the next free position of its `goods` list.
    struct GoodsSlot {
        var candidateRowid: Int64
        var nextPosition: Int64
        /// The asset order (NR_ORDEM_CANDIDATO) of the good appended last in this run; nil before one.
        var lastOrder: Int64? = nil
    }

    /// Candidacies whose goods list got a good out of asset order (a file not sorted by NR_ORDEM_CANDIDATO, or an
    /// earlier run's list appended to): renumbered by `sortGoodsLists`, so the list does not follow import order.
    private var unsortedGoodsLists: Set<String> = []

    /// Where the goods of a candidacy already in the database (this run's rows included) go, or nil.
    func goodsSlot(candidateID id: String) throws -> GoodsSlot? {
        if let last = lastSlot, last.id == id { return last.slot }
        if let slot = slots[id] { return slot }
        findCandidate.bind(id, 1)
        defer { findCandidate.reset() }
        guard try findCandidate.step() else { return nil }
        let slot = GoodsSlot(candidateRowid: findCandidate.int(at: 0), nextPosition: findCandidate.int(at: 1))
        remember(slot, for: id)
        return slot
    }

    /// Upserts a good and makes sure it is in its candidacy's `goods` list (appended at the end).
    @discardableResult
    func write(good: GoodValues, slot: GoodsSlot) throws -> UpsertStatements.Outcome {
        let outcome = try goods.upsert(good)
        goodRows.record(outcome)
        let listed: Bool
        switch outcome {
        case .inserted: listed = false
        case .conflict: return outcome
        case .updated(let r), .unchanged(let r), .superseded(let r):
            if r > goodRows.startMaxRowid {
                listed = true  // inserted earlier in this run, and listed then
            } else {
                goodIsListed.bind(good.id, 1)
                listed = try goodIsListed.step()
                goodIsListed.reset()
            }
        }
        guard !listed else { return outcome }
        if !goodsListBulk.isActive {
            appendGood.bind(good.candidateID, 1)
            appendGood.bind(slot.nextPosition, 2)
            appendGood.bind(good.id, 3)
            _ = try appendGood.step()
            appendGood.reset()
        }
        candidateRows.markChanged(slot.candidateRowid)
        if !goodsListBulk.isActive, slot.nextPosition > 0, slot.lastOrder.map({ good.order < $0 }) ?? true {
            unsortedGoodsLists.insert(good.candidateID)
        }
        var next = slot
        next.nextPosition += 1
        next.lastOrder = good.order
        if let last = lastSlot, last.id == good.candidateID {
            lastSlot = (last.id, next)
        } else {
            if let last = lastSlot { remember(last.slot, for: last.id) }
            lastSlot = (good.candidateID, next)
        }
        return outcome
    }

    /// Keeps a slot in `slots`, emptied first when full.
    private func remember(_ slot: GoodsSlot, for id: String) {
        if slots.count >= Self.slotCacheLimit && slots[id] == nil { slots.removeAll(keepingCapacity: true) }
        slots[id] = slot
    }

    // MARK: - Vices

    /// Re-pairs every head of ticket of `election` with its vice (see `VicePairing`); returns how many
    /// heads have a vice.
    func linkVices(election: String) throws -> Int {
        struct Row {
            var rowid: Int64, id: String, unit: String, number: Int64, postCode: Int64, valid: Bool, sequence: Int64
            var vice: String?
        }
        var rows: [Row] = []
        ticketMembers.bind(election, 1)
        while try ticketMembers.step() {
            let unit: String? = if case .text(let s) = ticketMembers.value(at: 2) { s } else { nil }
            let status: String? = if case .text(let s) = ticketMembers.value(at: 5) { s } else { nil }
            let vice: String? = if case .text(let s) = ticketMembers.value(at: 7) { s } else { nil }
            guard case .text(let id) = ticketMembers.value(at: 1) else { continue }
            rows.append(
                Row(
                    rowid: ticketMembers.int(at: 0), id: id, unit: unit ?? "", number: ticketMembers.int(at: 3),
                    postCode: ticketMembers.int(at: 4), valid: VicePairing.isValidStatus(status),
                    sequence: ticketMembers.int(at: 6), vice: vice))
        }
        ticketMembers.reset()
        struct Ticket: Hashable {
            var unit: String, number: Int64, headOffice: Int64
        }
        var heads: [Ticket: [VicePairing.Member]] = [:]
        var vices: [Ticket: [VicePairing.Member]] = [:]
        for (i, r) in rows.enumerated() {
            let member = VicePairing.Member(index: i, sequence: r.sequence, valid: r.valid)
            if VicePairing.viceOffice(ofHead: r.postCode) != nil {
                heads[Ticket(unit: r.unit, number: r.number, headOffice: r.postCode), default: []].append(member)
            } else if let head = VicePairing.headOffice(ofVice: r.postCode) {
                vices[Ticket(unit: r.unit, number: r.number, headOffice: head), default: []].append(member)
            }
        }
        var linked = 0
        for ticket in heads.keys.sorted(by: {
            ($0.unit, $0.number, $0.headOffice) < ($1.unit, $1.number, $1.headOffice)
        }) {
            let ticketHeads = heads[ticket]!
            let pairs = VicePairing.pair(heads: ticketHeads, vices: vices[ticket] ?? [])
            for head in ticketHeads {
                let row = rows[head.index]
                let vice = pairs[head.index].map { rows[$0].id }
                if vice != nil { linked += 1 }
                guard vice != row.vice else { continue }
                setVice.bind(row.rowid, 1)
                setVice.bind(vice, 2)
                _ = try setVice.step()
                setVice.reset()
                candidateRows.markChanged(row.rowid)
            }
        }
        return linked
    }
}
