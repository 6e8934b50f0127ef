import UrnaSchemas
import UrnaStore

/// Reads stored rows back into the mapper's value types: the inverse of the `bind(to:)`s in
/// `ElectionRows.swift`, column for column in `ElectionColumns` order (checked by `ExportColumnTests`).
struct StoredRowReader {
    let statement: Statement
    private(set) var index: Int

    init(_ statement: Statement, from index: Int = 0) {
        self.statement = statement
        self.index = index
    }

    mutating func skip() { index += 1 }

    /// The next value as stored.
    mutating func next() -> SQLValue {
        defer { index += 1 }
        return statement.value(at: index)
    }

    mutating func text() throws -> String {
        try optionalText() ?? ""
    }

    mutating func optionalText() throws -> String? {
        defer { index += 1 }
        switch statement.value(at: index) {
        case .null: return nil
        case .text(let s): return s
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .blob: throw TSEColumnWriter.Problem(reason: "holds bytes where text was expected")
        }
    }

    mutating func integer() throws -> Int64 {
        try optionalInteger() ?? 0
    }

    mutating func optionalInteger() throws -> Int64? {
        defer { index += 1 }
        switch statement.value(at: index) {
        case .null: return nil
        case .integer(let i): return i
        case .text(let s):
            guard let i = Int64(s) else {
                throw TSEColumnWriter.Problem(reason: "holds '\(s)' where a number was expected")
            }
            return i
        case .real(let d):
            guard let i = Int64(exactly: d) else {
                throw TSEColumnWriter.Problem(reason: "holds \(d), not a whole number")
            }
            return i
        case .blob: throw TSEColumnWriter.Problem(reason: "holds bytes where a number was expected")
        }
    }
}

/// SQL select lists over `ElectionColumns`, for rows the `init(_ r:)`s below read.
enum StoredColumns {
    /// `alias."a", alias."b", ...` for `columns`.
    static func list(_ columns: [String], alias: String) -> String {
        columns.map { "\(alias).\(Identifier.quoted($0))" }.joined(separator: ", ")
    }
}

extension ElectionValues {
    /// The election in `ElectionColumns.election` order.
    init(_ r: inout StoredRowReader) throws {
        let id = try r.text()
        let generatedAt = try r.optionalText()
        self.init(
            id: id, code: try r.optionalInteger(), year: try r.integer(), round: try r.integer(),
            electionDescription: try r.text(), kind: try r.optionalText(), kindCode: try r.optionalInteger(),
            scope: try r.optionalText(), date: try r.optionalText(), generatedAt: generatedAt)
    }
}

extension PartyValues {
    /// The party in `ElectionColumns.party` order.
    init(_ r: inout StoredRowReader) throws {
        let id = try r.text()
        let generatedAt = try r.optionalText()
        self.init(
            id: id, year: try r.integer(), number: try r.integer(), acronym: try r.text(), name: try r.text(),
            generatedAt: generatedAt)
    }
}

extension CoalitionValues {
    /// The coalition in `ElectionColumns.coalition` order.
    init(_ r: inout StoredRowReader) throws {
        let id = try r.text()
        let generatedAt = try r.optionalText()
        self.init(
            id: id, year: try r.integer(), unit: try r.text(), sequence: try r.integer(), name: try r.text(),
            composition: try r.optionalText(), kind: try r.optionalText(), generatedAt: generatedAt)
    }
}

extension GoodTypeValues {
    /// The good type in `ElectionColumns.goodType` order.
    init(_ r: inout StoredRowReader) throws {
        r.skip()  // id: `<year>/<code>`, made of the two columns after generatedAt
        let generatedAt = try r.optionalText()
        self.init(year: try r.integer(), code: try r.integer(), typedescription: try r.text(), generatedAt: generatedAt)
    }
}

extension GoodValues {
    /// The good in `ElectionColumns.good` order; its candidacy comes from the list that holds it.
    init(_ r: inout StoredRowReader, candidateID: String) throws {
        let id = try r.text()
        let generatedAt = try r.optionalText()
        r.skip()  // candidacy: the list's owner is the one that counts
        let order = try r.integer()
        let description = try r.text()
        let typeKey = try r.optionalText()  // the type's code is its GoodType's `code`
        self.init(
            id: id, candidateID: candidateID, order: order, goodDescription: description, typeID: nil,
            valueCents: try r.optionalInteger(), updatedAt: try r.optionalText(), generatedAt: generatedAt)
        self.typeKey = typeKey
    }
}

extension CandidateValues {
    /// The candidacy in `ElectionColumns.candidate` order.
    init(_ r: inout StoredRowReader) throws {
        let id = try r.text()
        let generatedAt = try r.optionalText()
        self.init(
            id: id, sequence: try r.integer(), electionID: try r.text(), round: try r.integer(),
            number: try r.optionalInteger(), nickname: try r.text(), name: try r.text(),
            socialName: try r.optionalText(), post: try r.text(), postCode: try r.integer(), state: try r.text(),
            unit: try r.text(), unitName: try r.text(), birthdate: try r.optionalText(), sex: try r.text(),
            colorRace: try r.text(), maritalStatus: try r.text(), nationality: try r.text(),
            birthState: try r.optionalText(), birthCity: try r.optionalText(), literacy: try r.text(),
            occupation: try r.text(), partyID: try r.optionalText(), coalitionID: try r.optionalText(),
            processNumber: try r.text(), protocolNumber: try r.text(),
            spendingLimitFirstRound: try r.optionalInteger(), spendingLimitSecondRound: try r.optionalInteger(),
            email: try r.optionalText(), cpf: try r.optionalText(), voterId: try r.optionalText(),
            status: try r.optionalText(), result: try r.optionalText(), generatedAt: generatedAt)
        sourceValues = (0..<ElectionsV4.sourceColumns.count).map { _ in r.next() }
    }
}

/// A few hundred rows of a catalogue type (elections, parties, coalitions, good types) looked up by key with a
/// prepared statement and kept; cleared past `limit` entries, so memory stays bounded on any file.
final class CatalogueLookup<Key: Hashable, Value> {
    private var cache: [Key: Value?] = [:]
    private let statement: Statement
    private let bind: (Statement, Key) -> Void
    private let decode: (inout StoredRowReader) throws -> Value
    private let limit: Int

    init(
        _ connection: Connection, table: String, columns: [String], limit: Int = 4096,
        bind: @escaping (Statement, Key) -> Void, decode: @escaping (inout StoredRowReader) throws -> Value
    ) throws {
        statement = try connection.prepare(
            "SELECT \(StoredColumns.list(columns, alias: "t")) FROM \(Identifier.quoted(table)) t "
                + "WHERE t.\(Identifier.quoted(columns[0])) = ?1")
        self.bind = bind
        self.decode = decode
        self.limit = limit
    }

    /// The row with this key, or nil when there is none.
    func value(_ key: Key) throws -> Value? {
        if let hit = cache[key] { return hit }
        bind(statement, key)
        defer { statement.reset() }
        var value: Value?
        if try statement.step() {
            var r = StoredRowReader(statement)
            value = try decode(&r)
        }
        if cache.count >= limit { cache.removeAll(keepingCapacity: true) }
        cache[key] = value
        return value
    }
}
