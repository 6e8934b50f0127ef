import Foundation
import UrnaStore

/// What seed 000's iElections app shows for one candidacy, as text: the candidate cell (number,
/// office and unit, party), the vice (or, for a vice, the head of the ticket), the personal data
/// section, and the declared goods with their types and the total in reais.
///
/// ```swift
/// let store = try Store.openExisting(path: "urna.sqlite", readOnly: true)
/// print(try CandidateCard.render(store: store, sequence: 130000614380, election: nil))
/// ```
public enum CandidateCard {
    /// Why a card cannot be drawn; `exitCode` 64 when the request must name an election or a unit, 66 when
    /// nothing matches.
    public enum CardError: Error, Sendable, CustomStringConvertible, Equatable {
        /// No candidacy has this SQ_CANDIDATO (in this election and unit, when they were named).
        case notFound(sequence: Int64, election: String?, unit: String? = nil)
        /// The SQ_CANDIDATO ran in several elections; `elections` describes each (id, description, round).
        case ambiguous(sequence: Int64, elections: [String])
        /// The SQ_CANDIDATO is several candidacies of one election, in different units (SG_UE): 2004 and earlier
        /// numbered candidacies per municipality. `units` describes each (code and name).
        case ambiguousUnit(sequence: Int64, election: String, units: [String])

        /// The process exit status a command line should use.
        public var exitCode: Int32 {
            switch self {
            case .notFound: 66
            case .ambiguous, .ambiguousUnit: 64
            }
        }

        /// What went wrong and what to pass instead.
        public var description: String {
            switch self {
            case .notFound(let sequence, let election, let unit) where election != nil || unit != nil:
                let scope = [election.map { "election \($0)" }, unit.map { "unit \($0)" }].compactMap { $0 }
                return "no candidacy with SQ_CANDIDATO \(sequence) in \(scope.joined(separator: ", ")): check them, or "
                    + "leave them out to search everywhere"
            case .notFound(let sequence, _, _):
                return "no candidacy with SQ_CANDIDATO \(sequence): import its consulta_cand file first"
            case .ambiguous(let sequence, let elections):
                return "SQ_CANDIDATO \(sequence) is a candidacy in \(elections.count) elections: "
                    + "\(elections.joined(separator: "; ")); name one with --election"
            case .ambiguousUnit(let sequence, let election, let units):
                return "SQ_CANDIDATO \(sequence) is \(units.count) candidacies of election \(election), one per unit "
                    + "(SQ_CANDIDATO restarts in every municipality in 2004 and earlier): \(units.joined(separator: "; ")); "
                    + "name one with --unit SG_UE"
            }
        }
    }

    /// The card of the candidacy with SQ_CANDIDATO `sequence`; `election` (an Election id or CD_ELEICAO)
    /// is needed when the sequence ran in more than one election (both rounds of a run-off), `unit` (SG_UE)
    /// when it is several candidacies of one election (2004 and earlier number them per municipality).
    public static func render(store: Store, sequence: Int64, election: String?, unit: String? = nil) throws -> String {
        let rows = try store.connection.rows(
            "SELECT c.\"id\", c.\"election\", e.\"code\", c.\"unit\", c.\"unitName\" FROM \"Candidate\" c "
                + "LEFT JOIN \"Election\" e ON e.\"id\" = c.\"election\" WHERE c.\"sequence\" = ? ORDER BY c.\"election\", c.\"id\"",
            [.integer(sequence)])
        var matches: [(id: String, election: String, code: Int64?, unit: String, unitName: String)] = rows.compactMap {
            guard case .text(let id) = $0[0], case .text(let e) = $0[1] else { return nil }
            let code: Int64? = if case .integer(let c) = $0[2] { c } else { nil }
            let unit: String = if case .text(let u) = $0[3] { u } else { "" }
            let unitName: String = if case .text(let n) = $0[4] { n } else { "" }
            return (id, e, code, unit, unitName)
        }
        if let election { matches = matches.filter { $0.election == election || $0.code.map(String.init) == election } }
        if let unit {
            // SG_UE as typed: any letter case, and municipality codes with or without their leading zeros.
            let number = Int(unit)
            matches = matches.filter {
                $0.unit.caseInsensitiveCompare(unit) == .orderedSame || (number != nil && Int($0.unit) == number)
            }
        }
        guard let match = matches.first else {
            throw CardError.notFound(sequence: sequence, election: election, unit: unit)
        }
        if matches.count > 1 {
            if Set(matches.map(\.election)).count == 1 {
                throw CardError.ambiguousUnit(
                    sequence: sequence, election: match.election,
                    units: matches.map { $0.unitName.isEmpty ? $0.unit : "\($0.unit) (\($0.unitName))" })
            }
            let described = try matches.map { m -> String in
                guard let e = try store.object(ofType: "Election", forPrimaryKey: .string(m.election)) else {
                    return m.election
                }
                let code = m.code.map { ", CD_ELEICAO \($0)" } ?? ""
                let unit = matches.filter({ $0.election == m.election }).count > 1 ? " unit \(m.unit)" : ""
                return
                    "\(m.election)\(code) (\(try text(e, "electionDescription")), round \(try int(e, "round") ?? 1))\(unit)"
            }
            throw CardError.ambiguous(sequence: sequence, elections: described)
        }
        guard let candidate = try store.object(ofType: "Candidate", forPrimaryKey: .string(match.id)) else {
            throw CardError.notFound(sequence: sequence, election: election, unit: unit)
        }
        return try render(candidate)
    }

    /// The card of one Candidate object.
    public static func render(_ c: DynamicObject) throws -> String {
        var out: [String] = []
        let party = try c.linked("party")
        let election = try c.linked("election")
        // The candidate cell.
        out.append(try text(c, "nickname").isEmpty ? try text(c, "name") : try text(c, "nickname"))
        out.append("  Number \(try int(c, "number").map(String.init) ?? "-") · \(try post(c))")
        if let party {
            out.append(
                "  \(try text(party, "name")) - \(try text(party, "acronym")) (party \(try int(party, "number") ?? 0))")
        }
        if let election {
            var line = "  \(try text(election, "electionDescription")), round \(try int(election, "round") ?? 1)"
            if let d = try date(election, "date") { line += ", \(d)" }
            out.append(line + " (election \(try text(election, "id")))")
        }
        var standing: [String] = []
        if let s = try optionalText(c, "status") { standing.append("registration \(s)") }
        if let r = try optionalText(c, "result") { standing.append("result \(r)") }
        standing.append("SQ_CANDIDATO \(try int(c, "sequence") ?? 0)")
        out.append("  " + standing.joined(separator: " · "))

        // Consultation: the vice, or the head(s) of the ticket.
        out.append("")
        if let vice = try c.linked("vice") {
            out.append("Vice")
            out.append(try "  " + ticketLine(vice, party: vice.linked("party")))
        } else {
            let holders = try c.linkingObjects("holder").objects()
            if holders.isEmpty {
                out.append("Vice: -")
            } else {
                out.append(holders.count == 1 ? "Head of the ticket" : "Heads of the ticket")
                for h in holders { out.append(try "  " + ticketLine(h, party: h.linked("party"))) }
            }
        }

        // Personal data.
        out.append("")
        out.append("Personal data")
        let coalition = try c.linked("coalition")
        let fields: [(String, String)] = [
            ("Full name", try text(c, "name")),
            ("Date of birth", try date(c, "birthdate") ?? "-"),
            ("Sex", try text(c, "sex")),
            ("Color / race", try text(c, "colorRace")),
            ("Marital status", try text(c, "maritalStatus")),
            ("Nationality", try text(c, "nationality")),
            ("Naturalness", try naturalness(c)),
            ("Literacy", try text(c, "literacy")),
            ("Occupation", try text(c, "occupation")),
            ("Coalition", try coalition.map { try text($0, "name") } ?? "-"),
            ("Composition of the coalition", try coalition.map(composition) ?? "-"),
            ("Process number", try text(c, "processNumber")),
            ("Protocol number", try text(c, "protocolNumber")),
            ("Spending limit 1st round", try cents(c, "spendingLimitFirstRound").map(Reais.format) ?? "-"),
            ("Spending limit 2nd round", try cents(c, "spendingLimitSecondRound").map(Reais.format) ?? "-"),
            ("Candidate site", try optionalText(c, "site") ?? "-"),
        ]
        let width = fields.map { $0.0.count }.max() ?? 0
        for (label, value) in fields {
            out.append(
                "  " + label + String(repeating: " ", count: width - label.count + 2) + (value.isEmpty ? "-" : value))
        }

        // List of goods.
        out.append("")
        let goods = try c.list("goods").objects()
        out.append("Declared goods (\(goods.count))")
        var total: Int64 = 0
        for g in goods {
            let value = try cents(g, "value") ?? 0
            total += value
            let type = try g.linked("type").map { try text($0, "typedescription") } ?? "-"
            let description = try text(g, "goodDescription")
            let what = description.isEmpty ? type : "\(type) — \(description)"
            out.append("  \(try int(g, "order") ?? 0). \(what): \(Reais.format(cents: value))")
        }
        out.append("  Total: \(Reais.format(cents: total))")
        return out.joined(separator: "\n") + "\n"
    }

    // MARK: - Pieces

    /// `DEPUTADO FEDERAL - MINAS GERAIS/MG`, as the seed's `post` reads ("Prefeito - BELO HORIZONTE/MG").
    static func post(_ c: DynamicObject) throws -> String {
        let unitName = try text(c, "unitName")
        let state = try text(c, "state")
        var place = unitName.isEmpty ? try text(c, "unit") : unitName
        if !state.isEmpty { place += "/\(state)" }
        return "\(try text(c, "post")) - \(place)"
    }

    static func ticketLine(_ c: DynamicObject, party: DynamicObject?) throws -> String {
        var line =
            "\(try int(c, "number").map(String.init) ?? "-") \(try text(c, "nickname")) (\(try text(c, "name"))) · \(try post(c))"
        if let party { line += " · \(try text(party, "acronym"))" }
        if let s = try optionalText(c, "status") { line += " · \(s)" }
        return line + " · SQ_CANDIDATO \(try int(c, "sequence") ?? 0)"
    }

    /// `MG-BOA ESPERANÇA`, like the seed's `naturalness`.
    static func naturalness(_ c: DynamicObject) throws -> String {
        let state = try optionalText(c, "birthState")
        let city = try optionalText(c, "birthCity")
        switch (state, city) {
        case (let s?, let c?): return "\(s)-\(c)"
        case (let s?, nil): return s
        case (nil, let c?): return c
        default: return "-"
        }
    }

    /// The linked parties' acronyms joined by " / " (the seed's way), or the published composition when
    /// some of its parties are not linked.
    static func composition(_ coalition: DynamicObject) throws -> String {
        let linked = try coalition.list("parties").objects().map { try text($0, "acronym") }
        let published = try optionalText(coalition, "composition")
        if let published, CoalitionComposition(published).partyAcronyms.count != linked.count { return published }
        return linked.isEmpty ? (published ?? "-") : linked.joined(separator: " / ")
    }

    static func text(_ o: DynamicObject, _ name: String) throws -> String {
        try o.value(forKey: name).stringValue ?? ""
    }

    static func optionalText(_ o: DynamicObject, _ name: String) throws -> String? {
        guard let s = try o.value(forKey: name).stringValue, !s.isEmpty else { return nil }
        return s
    }

    static func int(_ o: DynamicObject, _ name: String) throws -> Int64? { try o.value(forKey: name).intValue }

    /// A decimal(2) property as exact cents.
    static func cents(_ o: DynamicObject, _ name: String) throws -> Int64? {
        guard let d = try o.value(forKey: name).decimalValue else { return nil }
        return try? ValueCodec.scaledInteger(d, scale: 2, type: o.type.name, property: name)
    }

    /// A date property as dd/MM/yyyy (UTC, as stored).
    static func date(_ o: DynamicObject, _ name: String) throws -> String? {
        guard let d = try o.value(forKey: name).dateValue else { return nil }
        let iso = ISODate.format(d)
        let parts = iso.prefix(10).split(separator: "-")
        guard parts.count == 3 else { return nil }
        return "\(parts[2])/\(parts[1])/\(parts[0])"
    }
}

/// The card of one candidacy (see `CandidateCard`); KEY is SQ_CANDIDATO, `election` and `unit` (SG_UE) disambiguate.
public func renderCandidate(store: Store, sequence: Int64, election: String?, unit: String? = nil) throws -> String {
    try CandidateCard.render(store: store, sequence: sequence, election: election, unit: unit)
}
