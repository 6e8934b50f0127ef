import Foundation
import Testing
import UrnaMigrator
import UrnaRecords
import UrnaSchemas
import UrnaStore

@testable import UrnaImport

/// Identity in every year and generation, precedence of the newest generation, and the v3 -> v4 upgrade.
@Suite struct GenerationsAndIdentityTests {
    typealias S = ImportTestSupport

    /// ../shared/tse/more, when this checkout sits beside it (tests using it skip otherwise).
    static let more: String? = {
        let here = URL(fileURLWithPath: #filePath)
        for up in 3...6 {
            var u = here
            for _ in 0..<up { u = u.deletingLastPathComponent() }
            let p = u.appendingPathComponent("shared/tse/more").path
            if FileManager.default.fileExists(atPath: p + "/consulta_cand_2004_AC.txt") { return p }
        }
        return nil
    }()

    /// Three generations of one candidacy where the newest does not know a value the two older ones disagree on:
    /// the middle generation's value wins in every order, in one run (parties merged in memory) or one run per
    /// file (merged in the file), because a value an older snapshot filled in keeps that snapshot's generation.
    @Test func threeGenerationsGiveTheSameDatabaseInEveryOrder() throws {
        let folder = try S.scratchFolder()
        func generation(_ date: String, result: String, party: String, city: String) throws -> String {
            let row = S.candidateRow([
                "SQ_CANDIDATO": "1", "DS_SIT_TOT_TURNO": result, "NM_PARTIDO": party, "NM_MUNICIPIO_NASCIMENTO": city,
            ]).replacingOccurrences(of: "\"27/09/2018\";\"19:04:59\"", with: "\"\(date)\";\"10:00:00\"")
            return try S.write(
                S.candidateHeader58 + "\n" + row + "\n", named: "g-\(date.replacingOccurrences(of: "/", with: "")).csv",
                in: folder)
        }
        let files = [
            try generation("09/09/2018", result: "SUPLENTE", party: "PARTIDO ANTIGO", city: "ARAXÁ"),
            try generation("01/11/2018", result: "ELEITO POR QP", party: "PARTIDO DO MEIO", city: "#NULO#"),
            try generation("22/01/2019", result: "#NULO#", party: "", city: "#NULO#"),
        ]
        var dumps: [[String]] = []
        for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            for oneRun in [true, false] {
                let db = folder + "/g\(order.map(String.init).joined())\(oneRun ? "-one" : "-each").sqlite"
                if oneRun {
                    _ = try S.importFiles(order.map { files[$0] }, into: db)
                } else {
                    for i in order { _ = try S.importFiles([files[i]], into: db) }
                }
                let label = "order \(order), \(oneRun ? "one run" : "a run per file")"
                #expect(try S.value(db, "SELECT result FROM Candidate") == .text("ELEITO POR QP"), "\(label)")
                #expect(try S.value(db, "SELECT name FROM Party") == .text("PARTIDO DO MEIO"), "\(label)")
                #expect(try S.value(db, "SELECT birthCity FROM Candidate") == .text("ARAXÁ"), "\(label)")
                #expect(
                    try S.value(db, "SELECT generatedAt FROM Candidate") == .text("2019-01-22T10:00:00.000Z"),
                    "\(label)")
                dumps.append(try Self.data(db) + S.dump(db).filter { $0.hasPrefix(FieldGenerations.table) })
            }
        }
        for d in dumps.dropFirst() { #expect(d == dumps[0], "\(Self.difference(d, dumps[0]))") }
    }

    /// The merge is a join: any snapshots, folded in any order, give the same values and generations, and each
    /// field holds the newest generation's known value (the greater of two of one generation).
    @Test func theMergeIsIndependentOfOrderForAnyNumberOfSnapshots() {
        var rng = SystemRandomNumberGenerator()
        let values: [SQLValue] = [.null, .text(""), .text("a"), .text("b"), .integer(1), .integer(2)]
        let generations: [SQLValue] = [.null, .text("2016"), .text("2017"), .text("2018")]
        func permutations(_ xs: [Int]) -> [[Int]] {
            guard xs.count > 1 else { return [xs] }
            return xs.indices.flatMap { i in
                permutations(xs.enumerated().filter { $0.offset != i }.map(\.element)).map { [xs[i]] + $0 }
            }
        }
        for _ in 0..<300 {
            let n = Int.random(in: 2...4, using: &rng)
            let snapshots: [[SQLValue]] = (0..<n).map { _ in
                [.text("k"), generations.randomElement(using: &rng)!]
                    + (0..<4).map { _ in values.randomElement(using: &rng)! }
            }
            var results: Set<String> = []
            for order in permutations(Array(0..<n)) {
                var row = snapshots[order[0]]
                var gens: [Int: SQLValue] = [:]
                for i in order.dropFirst() {
                    (row, gens) = GenerationMerge.merge(
                        stored: row, storedGenerations: gens, incoming: snapshots[i], incomingGenerations: [:])
                }
                results.insert("\(row) \(gens.sorted { $0.key < $1.key })")
                // Each field: the greatest (generation, value) among the snapshots that know it.
                for f in 2..<6 {
                    let known = snapshots.filter { !GenerationMerge.isUnknown($0[f]) }
                    guard
                        let best = known.max(by: {
                            let g = GenerationMerge.compare($0[1], $1[1])
                            return g < 0 || (g == 0 && GenerationMerge.compare($0[f], $1[f]) < 0)
                        })
                    else { continue }
                    #expect(row[f] == best[f], "\(snapshots) in order \(order): field \(f) is \(row[f])")
                }
            }
            #expect(results.count == 1, "\(snapshots): \(results)")
        }
    }

    /// With a placeholder value ("PARTIDO ISOLADO") the merge is still independent of order, and a placeholder
    /// is kept only when no snapshot knows a real value.
    @Test func theMergeWithAPlaceholderIsIndependentOfOrder() {
        var rng = SystemRandomNumberGenerator()
        let values: [SQLValue] = [.null, .text(""), .text("PARTIDO ISOLADO"), .text("A"), .text("Z")]
        let generations: [SQLValue] = [.null, .text("2016"), .text("2017")]
        let placeholders: [Int: Set<SQLValue>] = [2: [.text("PARTIDO ISOLADO")]]
        for _ in 0..<300 {
            let snapshots: [[SQLValue]] = (0..<3).map { _ in
                [.text("k"), generations.randomElement(using: &rng)!, values.randomElement(using: &rng)!]
            }
            var results: Set<String> = []
            for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
                var row = snapshots[order[0]]
                var gens: [Int: SQLValue] = [:]
                for i in order.dropFirst() {
                    (row, gens) = GenerationMerge.merge(
                        stored: row, storedGenerations: gens, incoming: snapshots[i], incomingGenerations: [:],
                        placeholders: placeholders)
                }
                results.insert("\(row) \(gens.sorted { $0.key < $1.key })")
                let real = snapshots.contains {
                    if case .text(let t) = $0[2] { !t.isEmpty && t != "PARTIDO ISOLADO" } else { false }
                }
                if real { #expect(row[2] != .text("PARTIDO ISOLADO"), "\(snapshots) in order \(order)") }
            }
            #expect(results.count == 1, "\(snapshots): \(results)")
        }
    }

    /// Two generations of one state's file (the older before the vote: no results) and a newer national
    /// file: every order of the three gives the same database, row for row, and results are never erased.
    @Test func everyPermutationOfThreeOverlappingFilesGivesTheSameDatabase() throws {
        let folder = try S.scratchFolder()
        let old = S.candidateRow(["SQ_CANDIDATO": "1", "DS_SIT_TOT_TURNO": "#NULO#", "NM_URNA_CANDIDATO": "FULANO"])
            .replacingOccurrences(of: "\"27/09/2018\";\"19:04:59\"", with: "\"10/09/2018\";\"08:00:00\"")
        let old2 = S.candidateRow(["SQ_CANDIDATO": "2", "DS_SIT_TOT_TURNO": "#NULO#"])
            .replacingOccurrences(of: "\"27/09/2018\";\"19:04:59\"", with: "\"10/09/2018\";\"08:00:00\"")
        let mid = S.candidateRow([
            "SQ_CANDIDATO": "1", "DS_SIT_TOT_TURNO": "ELEITO", "NM_URNA_CANDIDATO": "FULANO DE X",
        ])
        let mid3 = S.candidateRow(["SQ_CANDIDATO": "3", "DS_SIT_TOT_TURNO": "SUPLENTE"])
        let national = [
            S.candidateRow(["SQ_CANDIDATO": "1", "DS_SIT_TOT_TURNO": "#NULO#", "NM_URNA_CANDIDATO": "FULANO NOVO"]),
            S.candidateRow(["SQ_CANDIDATO": "2", "DS_SIT_TOT_TURNO": "NÃO ELEITO"]),
            S.candidateRow(["SQ_CANDIDATO": "3", "DS_SIT_TOT_TURNO": "#NULO#"]),
        ].map { $0.replacingOccurrences(of: "\"27/09/2018\";\"19:04:59\"", with: "\"27/11/2019\";\"10:00:00\"") }
        let files = [
            try S.write(
                ([S.candidateHeader58, old, old2].joined(separator: "\n")) + "\n", named: "state-old.csv", in: folder),
            try S.write(
                ([S.candidateHeader58, mid, mid3].joined(separator: "\n")) + "\n", named: "state.csv", in: folder),
            try S.write(
                ([S.candidateHeader58] + national).joined(separator: "\n") + "\n", named: "brasil.csv", in: folder),
        ]
        var dumps: [[String]] = []
        for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            let db = folder + "/p\(order.map(String.init).joined()).sqlite"
            var rows = ImportSummary.RowOutcomes()
            for i in order {  // one run per file, so each order is really applied in sequence
                let s = try S.importFiles([files[i]], into: db)
                rows.inserted += s.rows.inserted
                #expect(
                    s.rows.inserted + s.rows.updated + s.rows.unchanged + s.rows.superseded + s.rows.conflicts
                        + s.rejected == s.rowsRead)
            }
            #expect(rows.inserted == 3)
            dumps.append(try Self.data(db))
            // Newest non-null value wins: the 2019 nickname, and results only the 2018 state file knew.
            #expect(try S.value(db, "SELECT nickname FROM Candidate WHERE sequence = 1") == .text("FULANO NOVO"))
            #expect(try S.value(db, "SELECT result FROM Candidate WHERE sequence = 1") == .text("ELEITO"))
            #expect(try S.value(db, "SELECT result FROM Candidate WHERE sequence = 2") == .text("NÃO ELEITO"))
            #expect(try S.value(db, "SELECT result FROM Candidate WHERE sequence = 3") == .text("SUPLENTE"))
            #expect(
                try S.value(db, "SELECT generatedAt FROM Candidate WHERE sequence = 1")
                    == .text("2019-11-27T10:00:00.000Z"))
        }
        for d in dumps.dropFirst() {
            #expect(d == dumps[0], "\(Self.difference(d, dumps[0]))")
        }
        // An older file read again into the newest database is superseded, not an update.
        let db = folder + "/p012.sqlite"
        let again = try S.importFiles([files[0]], into: db)
        #expect(again.rows.superseded == 2 && again.rows.updated == 0)
    }

    /// A coalition's parties follow its composition whatever runs the files come in: a party first read in a
    /// later run (one with candidacies only in another coalition, or a legend file's) takes its published
    /// place, not the end of the list, and a coalition stored by an earlier run gets it too.
    @Test func coalitionPartiesFollowTheCompositionWhateverTheRuns() throws {
        let folder = try S.scratchFolder()
        let coalition = ["SQ_COLIGACAO": "900", "NM_COLIGACAO": "FRENTE", "DS_COMPOSICAO_COLIGACAO": "PP / DC / PT"]
        let a = try S.candidateFile(
            [
                coalition.merging(["SQ_CANDIDATO": "1", "NM_CANDIDATO": "ANA"]) { $1 },
                coalition.merging([
                    "SQ_CANDIDATO": "2", "NM_CANDIDATO": "BIA", "NR_PARTIDO": "13", "SG_PARTIDO": "PT",
                    "NM_PARTIDO": "PARTIDO DOS TRABALHADORES",
                ]) { $1 },
            ], named: "a.csv", in: folder)
        // PP's only candidacy is in a coalition of its own: coalition 900 is not in this file.
        let b = try S.candidateFile(
            [
                [
                    "SQ_CANDIDATO": "3", "NM_CANDIDATO": "CAIO", "NR_PARTIDO": "11", "SG_PARTIDO": "PP",
                    "NM_PARTIDO": "PROGRESSISTAS", "SQ_COLIGACAO": "901", "DS_COMPOSICAO_COLIGACAO": "PP",
                ]
            ], named: "b.csv", in: folder)
        var dumps: [[String]] = []
        for (n, runs) in [[[a, b]], [[b, a]], [[a], [b]], [[b], [a]]].enumerated() {
            let db = folder + "/r\(n).sqlite"
            for files in runs { _ = try S.importFiles(files, into: db) }
            let c = try Connection(path: db, readOnly: true, create: false)
            let list = try c.rows(
                "SELECT p.acronym FROM Coalition_parties m JOIN Party p ON p.id = m.target "
                    + "WHERE m.owner = '2018/MG/900' ORDER BY m.position"
            ).map { $0[0] }
            #expect(list == [.text("PP"), .text("DC"), .text("PT")], "runs \(n): \(list)")
            dumps.append(try Self.data(db))
        }
        for d in dumps.dropFirst() {
            #expect(d == dumps[0], "\(Self.difference(d, dumps[0]))")
        }
    }

    /// Second-round rows of 2012 name a coalition "PARTIDO ISOLADO" whose first-round rows (same code, same
    /// composition, same generation) give its real name: the real name is kept whatever the order or the runs.
    @Test func aSecondRoundPlaceholderNeverReplacesTheCoalitionsName() throws {
        let folder = try S.scratchFolder()
        let coalition = ["SQ_COLIGACAO": "902", "DS_COMPOSICAO_COLIGACAO": "PT / PC do B", "CD_CARGO": "11"]
        let first = try S.candidateFile(
            [coalition.merging(["SQ_CANDIDATO": "1", "NM_COLIGACAO": "FRENTE POPULAR"]) { $1 }],
            named: "first.csv", in: folder)
        let second = try S.candidateFile(
            [
                coalition.merging([
                    "SQ_CANDIDATO": "1", "NM_COLIGACAO": "PARTIDO ISOLADO", "NR_TURNO": "2", "CD_ELEICAO": "298",
                ]) { $1 }
            ], named: "second.csv", in: folder)
        for (n, runs) in [[[first, second]], [[second, first]], [[first], [second]], [[second], [first]]].enumerated() {
            let db = folder + "/p\(n).sqlite"
            for files in runs { _ = try S.importFiles(files, into: db) }
            let c = try Connection(path: db, readOnly: true, create: false)
            #expect(
                try c.rows("SELECT name FROM Coalition WHERE id = '2018/MG/902'").map { $0[0] } == [
                    .text("FRENTE POPULAR")
                ],
                "runs \(n)")
        }
        // A coalition only the placeholder names keeps it.
        let db = folder + "/only.sqlite"
        _ = try S.importFiles([second], into: db)
        let c = try Connection(path: db, readOnly: true, create: false)
        #expect(try c.scalar("SELECT name FROM Coalition WHERE id = '2018/MG/902'") == .text("PARTIDO ISOLADO"))
    }

    /// A column no TSE layout has (a new release's, a user's own) is named in a warning: its values are not
    /// stored, and the rest of each row is.
    @Test func aColumnNoLayoutHasIsNamedInAWarning() throws {
        let folder = try S.scratchFolder()
        let text =
            [
                S.candidateHeader58 + ";\"NOVA_COLUNA\"", S.candidateRow(["SQ_CANDIDATO": "5"]) + ";\"valor\"",
            ].joined(separator: "\n") + "\n"
        let file = try S.write(text, named: "consulta_cand_nova.csv", in: folder)
        let summary = try S.importFiles([file], into: folder + "/n.sqlite")
        #expect(summary.inserted["Candidate"] == 1)
        #expect(
            summary.warnings.contains {
                $0.contains(
                    "consulta_cand_nova.csv: column NOVA_COLUNA is in no TSE layout urna knows; its values were not stored"
                )
            }, "\(summary.warnings)")
        let known = try S.candidateFile([["SQ_CANDIDATO": "6"]], in: folder)
        #expect(
            !(try S.importFiles([known], into: folder + "/k.sqlite").warnings.contains { $0.contains("no TSE layout") })
        )
    }

    /// Two rows under one candidacy key that are not one candidacy (another name, another office): one is kept
    /// whole, the other reported as a conflict, never merged; which one never depends on the import order (the
    /// newer generation's, else a fixed rule), in one run or two.
    @Test func aKeyThatNamesAnotherCandidacyIsAConflictNotAMergeInAnyOrder() throws {
        let folder = try S.scratchFolder()
        let a = try S.candidateFile([["SQ_CANDIDATO": "7", "NM_CANDIDATO": "ANA"]], named: "a.csv", in: folder)
        let b = try S.candidateFile([["SQ_CANDIDATO": "7", "NM_CANDIDATO": "BRUNO"]], named: "b.csv", in: folder)
        let newer = try S.candidateFile(
            [["SQ_CANDIDATO": "7", "NM_CANDIDATO": "ANA", "DS_CARGO": "DEPUTADO FEDERAL", "DT_GERACAO": "01/10/2018"]],
            named: "newer.csv", in: folder)
        var n = 0
        var replacements = 0
        for (files, kept) in [([a, b], "BRUNO"), ([b, a], "BRUNO"), ([b, newer], "ANA"), ([newer, b], "ANA")] {
            for oneRun in [true, false] {
                n += 1
                let db = folder + "/urna-\(n).sqlite"
                let conflicts =
                    oneRun
                    ? try S.importFiles(files, into: db).rows.conflicts
                    : try files.map { try S.importFiles([$0], into: db).rows.conflicts }.reduce(0, +)
                #expect(conflicts == 1, "\(files) one run: \(oneRun)")
                #expect(
                    try S.value(db, "SELECT group_concat(name) FROM Candidate") == .text(kept), "\(files) \(oneRun)")
                let rejects = try RejectTests.readRejects(db + ".rejects.csv").dropFirst().map { $0[3] }
                #expect(
                    rejects.contains {
                        $0.hasPrefix("conflict: two rows hold this candidacy key") && $0.contains("'ANA'")
                    },
                    "\(rejects)")
                // A stored row the conflict replaced is kept in the rejects file, value by value.
                for reason in rejects where reason.contains("this row replaced the stored one") {
                    replacements += 1
                    #expect(reason.contains("the replaced row held id='") && reason.contains("name='ANA'"), "\(reason)")
                }
            }
        }
        #expect(replacements > 0)
    }

    /// Two rows of one generation under one key that disagree on a value (not on the name or office): one value
    /// is kept by the merge's fixed rule, the same in any order, and each such value is said.
    @Test func oneGenerationDisagreeingOnAValueIsSaid() throws {
        let folder = try S.scratchFolder()
        let a = try S.candidateFile([["SQ_CANDIDATO": "9", "NM_URNA_CANDIDATO": "ANINHA"]], named: "a.csv", in: folder)
        let b = try S.candidateFile(
            [["SQ_CANDIDATO": "9", "NM_URNA_CANDIDATO": "ANA DO POVO"]], named: "b.csv", in: folder)
        for (n, files) in [[a, b], [b, a]].enumerated() {
            let db = folder + "/ties-\(n).sqlite"
            let s = try S.importFiles(files, into: db)
            #expect(s.rows.conflicts == 0 && s.rejected == 0)
            #expect(try S.value(db, "SELECT nickname FROM Candidate") == .text("ANINHA"), "\(files)")
            #expect(
                s.warnings.contains { $0.hasPrefix("1 values disagreed between rows of one generation") },
                "\(s.warnings)")
            let rejects = try RejectTests.readRejects(db + ".rejects.csv").dropFirst().map { $0[3] }
            #expect(
                rejects == [
                    "warning: a row of the same generation (DT_GERACAO + HH_GERACAO) gives Candidate.nickname another "
                        + "value: kept 'ANINHA', not 'ANA DO POVO' (a fixed rule, the same in any import order); check "
                        + "which file is right"
                ], "\(rejects)")
        }
        let again = try S.importFiles([a], into: folder + "/ties-0.sqlite")
        #expect(!again.warnings.contains { $0.contains("disagreed") }, "the same file again agrees with itself")
    }

    /// One CD_ELEICAO and round under two DS_ELEICAO texts cannot be told apart from two elections safely, so
    /// the candidacies stay apart, and the summary says so (in either order, and when the second comes later).
    @Test func oneElectionCodeUnderTwoDescriptionsIsNamedInAWarning() throws {
        let folder = try S.scratchFolder()
        let a = try S.candidateFile([["SQ_CANDIDATO": "8"]], named: "a.csv", in: folder)
        let b = try S.candidateFile(
            [["SQ_CANDIDATO": "8", "DS_ELEICAO": "ELEICAO GERAL RENOMEADA 2018"]], named: "b.csv", in: folder)
        for (i, files) in [[a, b], [b, a]].enumerated() {
            let summary = try S.importFiles(files, into: folder + "/one-run-\(i).sqlite")
            let warning = summary.warnings.first { $0.contains("names 2 elections with different descriptions") }
            #expect(warning?.contains("ELEICAO GERAL RENOMEADA 2018") == true, "\(summary.warnings)")
        }
        let db = folder + "/two-runs.sqlite"
        #expect(!(try S.importFiles([a], into: db).warnings.contains { $0.contains("different descriptions") }))
        #expect(try S.importFiles([b], into: db).warnings.contains { $0.contains("different descriptions") })
    }

    @Test func fieldsThatCannotBeReadAreNulledWithAWarning() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            [
                ["SQ_CANDIDATO": "1", "DT_NASCIMENTO": "26081957"],  // 2004's ddMMyyyy
                ["SQ_CANDIDATO": "2", "DT_NASCIMENTO": "1061970"], ["SQ_CANDIDATO": "3", "DT_NASCIMENTO": "6 21981"],
                ["SQ_CANDIDATO": "4", "NR_CANDIDATO": "-12", "NR_DESPESA_MAX_CAMPANHA": "-5"],
                ["SQ_CANDIDATO": "5", "NM_URNA_CANDIDATO": "\u{A0}ANA\u{A0}\u{A0}MARIA "],
            ], in: folder)
        let db = folder + "/urna.sqlite"
        let s = try S.importFiles([file], into: db)
        #expect(s.rejected == 0)
        #expect(s.fieldsNulled == 4)
        #expect(
            try S.value(db, "SELECT birthdate FROM Candidate WHERE sequence = 1") == .text("1957-08-26T00:00:00.000Z"))
        #expect(try S.integer(db, "SELECT count(*) FROM Candidate WHERE birthdate IS NULL") == 2)
        #expect(try S.value(db, "SELECT number FROM Candidate WHERE sequence = 4") == .null)
        #expect(try S.value(db, "SELECT nickname FROM Candidate WHERE sequence = 5") == .text("ANA MARIA"))
    }

    /// A generation that cannot be read is said once per row: an impossible HH_GERACAO (25:61:00) was taken as
    /// midnight without a word, a bad DT_GERACAO gave two warning rows for one row.
    @Test func anUnreadableGenerationIsOneWarningPerRow() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            [
                ["SQ_CANDIDATO": "1", "HH_GERACAO": "25:61:00"], ["SQ_CANDIDATO": "2", "HH_GERACAO": "25:61:00"],
                ["SQ_CANDIDATO": "3", "DT_GERACAO": "32/13/2018"], ["SQ_CANDIDATO": "4", "HH_GERACAO": "#NULO#"],
            ], in: folder)
        let db = folder + "/urna.sqlite"
        let s = try S.importFiles([file], into: db)
        #expect(s.rejected == 0 && s.inserted["Candidate"] == 4)
        let rejects = try RejectTests.readRejects(db + ".rejects.csv").dropFirst().map { $0[3] }
        #expect(rejects.filter { $0.contains("HH_GERACAO is not a time of day") }.count == 2, "\(rejects)")
        #expect(rejects.filter { $0.contains("DT_GERACAO is not a date") }.count == 1, "\(rejects)")
        #expect(rejects.count == 3, "\(rejects)")
        #expect(
            try S.value(db, "SELECT generatedAt FROM Candidate WHERE sequence = 1") == .text("2018-09-27T00:00:00.000Z")
        )
        #expect(try S.value(db, "SELECT generatedAt FROM Candidate WHERE sequence = 3") == .null)
    }

    /// Bytes 0x80-0x9F in a file read as Latin-1 are control characters there: the summary points at cp1252, and
    /// with `--encoding cp1252` they are the curly quotes they were.
    @Test func windows1252BytesInALatin1FileAreNamed() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile([["SQ_CANDIDATO": "1", "NM_URNA_CANDIDATO": "\u{93}ZE\u{94}"]], in: folder)
        let s = try S.importFiles([file], into: folder + "/a.sqlite")
        #expect(s.warnings.contains { $0.contains("--encoding cp1252") }, "\(s.warnings)")
        let plain = try S.candidateFile(
            [["SQ_CANDIDATO": "1", "NM_URNA_CANDIDATO": "JOSÉ"]], named: "p.csv", in: folder)
        #expect(!(try S.importFiles([plain], into: folder + "/b.sqlite").warnings.contains { $0.contains("cp1252") }))
    }

    /// A candidacy's goods list is in asset order (NR_ORDEM_CANDIDATO) whatever order its files and rows came in,
    /// in one run or two: the list positions followed the first file read.
    @Test func aGoodsListIsInAssetOrderWhateverTheFileOrder() throws {
        let folder = try S.scratchFolder()
        let candidates = try S.candidateFile([["SQ_CANDIDATO": "1"]], in: folder)
        let rows = (1...4).map {
            ["SQ_CANDIDATO": "1", "NR_ORDEM_CANDIDATO": "\($0)", "DS_BEM_CANDIDATO": "BEM \($0)"]
        }
        let forward = try S.assetFile(rows, named: "bem_f.csv", in: folder)
        let backward = try S.assetFile(rows.reversed(), named: "bem_b.csv", in: folder)
        let partial = try S.assetFile([rows[3], rows[1]], named: "bem_p.csv", in: folder)
        var lists: [String] = []
        for (n, files) in [
            [candidates, forward, backward], [candidates, backward, forward], [candidates, partial, forward],
        ]
        .enumerated() {
            let one = folder + "/one-\(n).sqlite"
            _ = try S.importFiles(files, into: one)
            let two = folder + "/two-\(n).sqlite"
            for f in files { _ = try S.importFiles([f], into: two) }
            for db in [one, two] {
                let list = try Connection(path: db, readOnly: true, create: false).rows(
                    "SELECT group_concat(target, '|') FROM (SELECT target FROM Candidate_goods ORDER BY position)")
                lists.append("\(list.first?.first ?? .null)")
            }
        }
        #expect(Set(lists).count == 1, "\(lists)")
        #expect(
            lists.first?.hasSuffix(
                "/1|2018/1/ELEICOES GERAIS ESTADUAIS 2018/MG/1/2|2018/1/ELEICOES GERAIS ESTADUAIS 2018/MG/1/3|2018/1/ELEICOES GERAIS ESTADUAIS 2018/MG/1/4"
            ) == true, "\(lists)")
    }

    @Test func anInvalidElectionDateIsNulledWhateverTheRowOrder() throws {
        for dates in [["31/02/2018", "07/10/2018"], ["07/10/2018", "31/02/2018"]] {
            let folder = try S.scratchFolder()
            let rows = dates.enumerated().map { k, d in
                S.candidateRow(["SQ_CANDIDATO": "\(k + 1)"]).replacingOccurrences(
                    of: "\"07/10/2018\";\"ESTADUAL\"", with: "\"\(d)\";\"ESTADUAL\"")
            }
            let file = try S.write(
                ([S.candidateHeader58] + rows).joined(separator: "\n") + "\n", named: "c.csv", in: folder)
            let db = folder + "/urna.sqlite"
            let s = try S.importFiles([file], into: db)
            #expect(s.fieldsNulled == 1)
            // Same generation: the known date beats the unknown one, in either order.
            #expect(try S.value(db, "SELECT date FROM Election") == .text("2018-10-07T00:00:00.000Z"))
        }
    }

    @Test func the21ColumnCoalitionLayoutNamesWhatIsNotStored() {
        #expect(
            ImportInput.unstoredCoalitionColumns(of: TSELayouts.coalition21) == [
                "CD_TIPO_ELEICAO", "NM_TIPO_ELEICAO", "NR_TURNO", "CD_ELEICAO", "DS_ELEICAO", "DT_ELEICAO", "SG_UF",
                "NM_UE",
                "CD_CARGO", "DS_CARGO",
            ])
    }

    /// An unreadable CD_CARGO nulls the office code, which the table keeps as 0 (the column is required): that 0
    /// never replaces a known code, from a newer generation or an older one, in either order.
    @Test func anUnreadableOfficeCodeNeverErasesAKnownOne() throws {
        let folder = try S.scratchFolder()
        let good = try S.candidateFile([["SQ_CANDIDATO": "9"]], named: "good.csv", in: folder)
        let bad = try S.write(
            S.candidateHeader58 + "\n"
                + S.candidateRow(["SQ_CANDIDATO": "9", "CD_CARGO": "abc"]).replacingOccurrences(
                    of: "\"27/09/2018\";\"19:04:59\"", with: "\"01/06/2019\";\"10:00:00\"") + "\n",
            named: "bad.csv", in: folder)
        let known = try S.value(
            try {
                let db = folder + "/known.sqlite"
                _ = try S.importFiles([good], into: db)
                return db
            }(),
            "SELECT postCode FROM Candidate")
        #expect(known != .integer(0) && known != nil)
        for (i, files) in [[good, bad], [bad, good]].enumerated() {
            let db = folder + "/o\(i).sqlite"
            let summary = try S.importFiles(files, into: db)
            #expect(summary.fieldsNulled == 1)
            #expect(try S.value(db, "SELECT postCode FROM Candidate") == known, "order \(i)")
            #expect(try S.value(db, "SELECT generatedAt FROM Candidate") == .text("2019-06-01T10:00:00.000Z"))
        }
    }

    @Test func aRunThatRejectsEveryRowSaysSo() throws {
        let folder = try S.scratchFolder()
        let goods = try S.write(
            "\"DT_GERACAO\";\"HH_GERACAO\";\"ANO_ELEICAO\";\"CD_TIPO_ELEICAO\";\"NM_TIPO_ELEICAO\";\"CD_ELEICAO\";\"DS_ELEICAO\";"
                + "\"DT_ELEICAO\";\"SG_UF\";\"SG_UE\";\"NM_UE\";\"SQ_CANDIDATO\";\"NR_ORDEM_CANDIDATO\";\"CD_TIPO_BEM_CANDIDATO\";"
                + "\"DS_TIPO_BEM_CANDIDATO\";\"DS_BEM_CANDIDATO\";\"VR_BEM_CANDIDATO\";\"DT_ULTIMA_ATUALIZACAO\";\"HH_ULTIMA_ATUALIZACAO\"\n"
                + "\"27/09/2018\";\"19:04:59\";\"2018\";\"2\";\"ELEIÇÃO ORDINÁRIA\";\"297\";\"Eleições Gerais Estaduais 2018\";"
                + "\"07/10/2018\";\"MG\";\"MG\";\"MINAS GERAIS\";\"999\";\"1\";\"12\";\"CASA\";\"CASA\";\"1000,00\";"
                + "\"15/08/2018\";\"10:00:00\"\n", named: "bem_candidato_sozinho.csv", in: folder)
        let s = try S.importFiles([goods], into: folder + "/urna.sqlite")
        #expect(s.rejected == 1)
        #expect(
            s.warnings.contains {
                $0.hasPrefix("every one of the 1 rows read was rejected: no object was stored (1 goods were kept aside")
            }, "\(s.warnings)")
        let file = try S.candidateFile([["SQ_CANDIDATO": "1"]], in: folder)
        #expect(
            !(try S.importFiles([file], into: folder + "/ok.sqlite").warnings.contains { $0.hasPrefix("every one") }))
    }

    /// Goods imported in a run before their candidacies' file are kept aside and attached by the run that brings
    /// the candidacies: two runs in either order give the database one run gives (they were lost for good).
    @Test func goodsBeforeTheirCandidaciesInAnEarlierRunAreAttachedLater() throws {
        let folder = try S.scratchFolder()
        let candidates = try S.candidateFile([["SQ_CANDIDATO": "1"], ["SQ_CANDIDATO": "2"]], in: folder)
        let goods = try S.assetFile(
            [
                ["SQ_CANDIDATO": "1", "NR_ORDEM_CANDIDATO": "1", "DS_BEM_CANDIDATO": "CASA"],
                ["SQ_CANDIDATO": "2", "NR_ORDEM_CANDIDATO": "1", "DS_BEM_CANDIDATO": "CARRO"],
                ["SQ_CANDIDATO": "3", "NR_ORDEM_CANDIDATO": "1", "DS_BEM_CANDIDATO": "SEM CANDIDATURA"],
            ], in: folder)
        func dump(_ db: String) throws -> [String] {
            try Connection(path: db, readOnly: true, create: false).rows(
                "SELECT g.id, g.goodDescription, l.owner, l.position FROM Good g JOIN Candidate_goods l ON l.target = g.id "
                    + "ORDER BY g.id"
            ).map { "\($0)" }
        }
        let one = folder + "/one.sqlite"
        _ = try S.importFiles([candidates, goods], into: one)
        let two = folder + "/two.sqlite"
        let first = try S.importFiles([goods], into: two)
        #expect(first.rejected == 3)
        #expect(first.warnings.contains { $0.hasPrefix("3 goods wait for their candidacies") }, "\(first.warnings)")
        let second = try S.importFiles([candidates], into: two)
        #expect(second.warnings.contains { $0.hasPrefix("2 goods an earlier import kept aside") }, "\(second.warnings)")
        #expect(second.warnings.contains { $0.hasPrefix("1 good waits for its candidacy") }, "\(second.warnings)")
        #expect(try dump(two) == dump(one))
        #expect(try dump(one).count == 2)
        // Kept once however often the file is imported alone.
        _ = try S.importFiles([goods], into: two)
        #expect(try S.integer(two, "SELECT count(*) FROM _urna_pending_goods") == 1)
    }

    @Test func aFileOfOnlyAHeaderIsNamedInAWarning() throws {
        let folder = try S.scratchFolder()
        let headerOnly = try S.write(S.candidateHeader58 + "\n", named: "consulta_cand_cabecalho.csv", in: folder)
        let file = try S.candidateFile([["SQ_CANDIDATO": "1"]], in: folder)
        let s = try S.importFiles([headerOnly, file], into: folder + "/urna.sqlite")
        #expect(s.warnings == ["\(headerOnly): no rows after its header; nothing was read from it"], "\(s.warnings)")
    }

    @Test func emptyFilesAndEmptyZipMembersAreSkippedWithAWarning() throws {
        let folder = try S.scratchFolder()
        let empty = try S.write("", named: "consulta_cand_2016_BR.txt", in: folder)
        let file = try S.candidateFile([["SQ_CANDIDATO": "1"]], in: folder)
        let db = folder + "/urna.sqlite"
        let s = try S.importFiles([empty, file], into: db)
        #expect(s.warnings.count == 1 && s.warnings[0].contains("consulta_cand_2016_BR.txt"))
        #expect(try S.counts(db)["Candidate"] == 1)
        // A zip with an empty member beside a data member (as TSE ships the 2016 set).
        let zip = folder + "/set.zip"
        guard
            try Self.python(
                "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED); "
                    + "z.writestr('consulta_cand_2016_BR.txt',''); z.write(sys.argv[2],'consulta_cand_2018_MG.csv'); z.close()",
                [zip, file])
        else {
            Issue.record("python3 could not build the zip: the zip case was not checked")
            return
        }
        let db2 = folder + "/zip.sqlite"
        let z = try S.importFiles([zip], into: db2)
        #expect(z.warnings.contains { $0.contains("consulta_cand_2016_BR.txt") })
        #expect(try S.counts(db2)["Candidate"] == 1)
    }

    @Test("a zip member of only line breaks or spaces, first or last, is skipped by name; the other members all load")
    func blankZipMembersAreSkippedNotTheZip() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile([["SQ_CANDIDATO": "1"], ["SQ_CANDIDATO": "2"]], in: folder)
        for (name, blank, first) in [
            ("lf-first", "\\n", true), ("crlf-last", "\\r\\n", false), ("spaces-first", "   \\n  \\n", true),
        ] {
            let zip = folder + "/\(name).zip"
            guard
                try Self.python(
                    "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED); b=sys.argv[3].encode().decode('unicode_escape'); "
                        + "first=sys.argv[4]=='1'; first and z.writestr('blank.txt',b); z.write(sys.argv[2],'consulta_cand_2018_MG.csv'); "
                        + "first or z.writestr('blank.txt',b); z.close()",
                    [zip, file, blank, first ? "1" : "0"])
            else {
                Issue.record("python3 could not build \(name).zip: not checked")
                return
            }
            let db = folder + "/\(name).sqlite"
            let s = try S.importFiles([zip], into: db)
            #expect(try S.counts(db)["Candidate"] == 2, "\(name): the data member beside the blank one was lost")
            #expect(
                s.warnings.contains { $0.contains("blank.txt") && $0.contains("skipped") }, "\(name): \(s.warnings)")
        }
        // A zip of blank members only is an empty input: skipped with a warning, not an error.
        let onlyBlank = folder + "/only-blank.zip"
        try #require(
            try Self.python(
                "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w'); z.writestr('a.txt','\\n'); z.writestr('b.csv','  \\r\\n'); z.close()",
                [onlyBlank]), "python3 builds the zip")
        let db = folder + "/only-blank.sqlite"
        let s = try S.importFiles([onlyBlank, file], into: db)
        #expect(try S.counts(db)["Candidate"] == 2)
        #expect(s.warnings.contains { $0.contains("only-blank.zip") && $0.contains("skipped") }, "\(s.warnings)")
    }

    /// Original (header-less) and re-released (CD_ELEICAO) rows of 2014 AC, with the original 12-column goods:
    /// one election, one candidacy per row, every good attached, whatever the order.
    @Test func originalAndReReleasedGenerationsJoinAndOriginalGoodsAttach() throws {
        let original = S.fixture("consulta_cand_2014_AC.original-excerpt.txt")
        let rereleased = S.fixture("consulta_cand_2014_AC.rereleased-variant.58col.csv")
        let goods = S.fixture("bem_candidato_2014_AC.original-excerpt.txt")
        var dumps: [[String]] = []
        for files in [[original, rereleased, goods], [rereleased, goods, original], [goods, rereleased]] {
            let db = try S.newDatabasePath()
            let s = try S.importFiles(files, into: db)
            #expect(s.rejected == 0)
            #expect(try S.counts(db)["Candidate"] == 40)
            #expect(try S.counts(db)["Election"] == 1)
            #expect(try S.counts(db)["Good"] == 83)
            #expect(try S.value(db, "SELECT code FROM Election") == .integer(143))
            if files.count == 3 { dumps.append(try Self.data(db)) }
        }
        #expect(dumps[0] == dumps[1], "\(Self.difference(dumps[0], dumps[1]))")
    }

    /// A file made by urna before v4 (committed: e42b860's importer on the 2014 excerpts, which it counted
    /// twice, and the MG/2012 samples) upgrades with the migrator and then holds what a v4 import holds.
    @Test func aV3FileMadeByTheReleasedImporterUpgradesLosingNothing() throws {
        let folder = try S.scratchFolder()
        let path = folder + "/v3.sqlite"
        try FileManager.default.copyItem(atPath: S.fixture("elections-v3-by-urna-e42b860.sqlite"), toPath: path)
        #expect(try FamilyRegistry.recordedSchema(at: path).version == 3)
        #expect(try S.integer(path, "SELECT count(*) FROM Candidate") == 202)
        let migrator = try SchemaFamilies.registry.migrator(forFileAt: path)
        let report = try migrator.run(try migrator.plan(path: path), backup: .none)
        #expect(report.versionPath == [3, 4, 5, 6])
        let fresh = try S.newDatabasePath()
        _ = try S.importFiles(
            [
                "consulta_cand_2014_AC.original-excerpt.txt", "consulta_cand_2014_AC.rereleased-variant.58col.csv",
                "bem_candidato_2014_AC.original-excerpt.txt", "sample_consulta_cand_2018_MG.58col.csv",
                "sample_bem_candidato_2018_MG.csv", "sample_consulta_cand_2012_AC.original-noheader.txt",
            ].map(S.fixture), into: fresh)
        for type in ["Election", "Candidate", "Good", "GoodType", "Coalition"] {
            let (a, b) = (try S.counts(path)[type], try S.counts(fresh)[type])
            #expect(a == b, "\(type): \(a ?? -1) migrated, \(b ?? -1) imported")
        }
        // Every value v3 kept is there under the v4 keys.
        let v3Columns = [
            "id", "sequence", "election", "round", "number", "nickname", "name", "post", "postCode", "unit",
            "birthdate",
            "party", "coalition", "status", "result", "spendingLimitFirstRound", "vice",
        ].map { "\"\($0)\"" }.joined(separator: ", ")
        func rows(_ db: String, _ sql: String) throws -> [[SQLValue]] {
            try Connection(path: db, readOnly: true, create: false).rows(sql)
        }
        let sql = "SELECT \(v3Columns) FROM Candidate ORDER BY id"
        #expect(try rows(path, sql) == rows(fresh, sql))
        let goodsSQL =
            "SELECT g.id, g.candidacy, g.value, g.goodDescription, l.owner FROM Good g "
            + "JOIN Candidate_goods l ON l.target = g.id ORDER BY g.id"
        #expect(try rows(path, goodsSQL) == rows(fresh, goodsSQL))
        // v3 kept one label per party number (the latest read), so the per-year parties it becomes carry that
        // label; every party-year a v4 import makes is there (the migration makes a few more: v3 coalition lists
        // mixed years).
        let partySQL = "SELECT id FROM Party ORDER BY id"
        let migratedParties = Set(try rows(path, partySQL).map { "\($0[0])" })
        #expect(Set(try rows(fresh, partySQL).map { "\($0[0])" }).isSubset(of: migratedParties))
        #expect(try S.foreignKeyViolations(path) == 0)
    }

    /// Runs a python3 script with arguments; false when there is no python3 (the caller skips what needs it).
    static func python(_ script: String, _ arguments: [String]) throws -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script] + arguments
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// Every table's rows, without the store's own metadata (it records when the file was created).
    static func data(_ db: String) throws -> [String] { try S.dump(db).filter { !$0.hasPrefix("_urna") } }

    /// The rows two dumps do not share, table by table.
    static func difference(_ a: [String], _ b: [String]) -> [String] {
        let rowsA = Set(a.flatMap { $0.split(separator: "\n").map(String.init) })
        let rowsB = Set(b.flatMap { $0.split(separator: "\n").map(String.init) })
        return rowsA.symmetricDifference(rowsB).sorted().map { String($0.prefix(300)) }
    }

    // MARK: - Real files in ../shared/tse/more

    @Test func acre2004KeepsEveryCandidacyOfEveryMunicipality() throws {
        guard let more = Self.more else {
            print("skipped: ../shared/tse/more is not beside this checkout")
            return
        }
        let db = try S.newDatabasePath()
        let s = try S.importFiles([more + "/consulta_cand_2004_AC.txt"], into: db)
        #expect(s.rejected == 0)
        #expect(try S.counts(db)["Candidate"] == 1511)
        #expect(try S.integer(db, "SELECT count(DISTINCT sequence) FROM Candidate") == 324)
        // Heads (cargo 11) with a vice (12) of the same round, SG_UE and NR_CANDIDATO, counted with awk: 64.
        #expect(try S.headsWithVice(db) == 64)
        #expect(try S.counts(db)["Coalition"] == 224)
        #expect(try S.integer(db, "SELECT count(*) FROM Candidate WHERE birthdate IS NOT NULL") > 1400)
        print("2004 AC: fields nulled \(s.fieldsNulled), vice links \(try S.headsWithVice(db))")
    }

    @Test func realFilesExportBackEveryColumn() throws {
        guard let more = Self.more else {
            print("skipped: ../shared/tse/more is not beside this checkout")
            return
        }
        let source = more + "/consulta_cand_2024_RN.csv"
        let db = try S.newDatabasePath()
        _ = try S.importFiles([source], into: db)
        let out = try S.scratchFolder() + "/back.csv"
        _ = try ExportTestFiles.export(db, ExportOptions(format: .csv), to: out)
        func table(_ path: String) throws -> (header: [String], rows: [String: [String: String]]) {
            let text = try String(contentsOfFile: path, encoding: .isoLatin1)
            let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            func fields(_ l: Substring) -> [String] {
                l.split(separator: ";", omittingEmptySubsequences: false).map {
                    TSEField.text($0.trimmingCharacters(in: CharacterSet(charactersIn: "\"\r"))) ?? ""
                }
            }
            let header = fields(lines[0])
            var rows: [String: [String: String]] = [:]
            for l in lines.dropFirst() {
                let f = fields(l)
                let row = Dictionary(zip(header, f), uniquingKeysWith: { a, _ in a })
                rows["\(row["NR_TURNO"] ?? "")/\(row["SG_UE"] ?? "")/\(row["SQ_CANDIDATO"] ?? "")"] = row
            }
            return (header, rows)
        }
        let a = try table(source)
        let b = try table(out)
        #expect(a.rows.count == 7690 && b.rows.count == a.rows.count)
        var mismatches: [String] = []
        let nulls: Set<String> = ["", "-1", "-3", "-4", "#NULO#", "#NE#"]
        for (key, row) in a.rows {
            for column in a.header {
                let x = row[column] ?? ""
                let y = b.rows[key]?[column] ?? ""
                if x == y || (nulls.contains(x) && nulls.contains(y)) { continue }
                if ["NR_CPF_CANDIDATO", "DS_EMAIL", "NR_TITULO_ELEITORAL_CANDIDATO"].contains(column) { continue }
                mismatches.append("\(key) \(column): \(x) -> \(y)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }
}
