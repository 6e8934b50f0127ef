import Foundation
import Testing
import UrnaImport
import UrnaStore

/// Bad rows go to the rejects file with file:line:column and a reason, and never stop good rows.
@Suite struct RejectTests {
    /// Parses the rejects file (RFC 4180, comma separated) into rows of fields, each byte one character
    /// (Latin-1), so the original bytes of a TSE row compare with the row's text.
    static func readRejects(_ path: String) throws -> [[String]] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var rows: [[String]] = []
        var row: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if quoted {
                if b == 0x22 {
                    if i + 1 < bytes.count && bytes[i + 1] == 0x22 {
                        field.append(0x22)
                        i += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(b)
                }
            } else if b == 0x22 {
                quoted = true
            } else if b == 0x2C {
                row.append(String(String.UnicodeScalarView(field.map { Unicode.Scalar($0) })))
                field = []
            } else if b == 0x0A {
                row.append(String(String.UnicodeScalarView(field.map { Unicode.Scalar($0) })))
                rows.append(row)
                row = []
                field = []
            } else {
                field.append(b)
            }
            i += 1
        }
        return rows
    }

    @Test func eachKindOfBadRowIsRejectedWithWhereAndWhy() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let good1 = ImportTestSupport.candidateRow(["SQ_CANDIDATO": "1"])
        let badDate = ImportTestSupport.candidateRow(["SQ_CANDIDATO": "2", "DT_NASCIMENTO": "31/02/1970"])
        let badNumber = ImportTestSupport.candidateRow(["SQ_CANDIDATO": "3", "NR_CANDIDATO": "12x4"])
        let good2 = ImportTestSupport.candidateRow(["SQ_CANDIDATO": "4"])
        let shortRow = "\"only\";\"three\";\"fields\""
        let brokenQuote = ImportTestSupport.candidateRow(["SQ_CANDIDATO": "5"]).replacingOccurrences(
            of: "\"FULANO\"", with: "\"FUL\"ANO\"")
        let lines = [ImportTestSupport.candidateHeader58, good1, badDate, badNumber, shortRow, brokenQuote, good2]
        let candidates = try ImportTestSupport.write(
            lines.joined(separator: "\n") + "\n", named: "consulta_cand_bad.csv", in: folder)
        let assets = try ImportTestSupport.assetFile(
            [
                ["SQ_CANDIDATO": "1", "NR_ORDEM_CANDIDATO": "1"],
                ["SQ_CANDIDATO": "1", "NR_ORDEM_CANDIDATO": "2", "VR_BEM_CANDIDATO": "12,3,4"],
                ["SQ_CANDIDATO": "777", "NR_ORDEM_CANDIDATO": "1"],
            ], named: "bem_candidato_bad.csv", in: folder)
        let db = folder + "/urna.sqlite"
        let summary = try ImportTestSupport.importFiles([candidates, assets], into: db)

        // A bad date, number or amount costs the field (a warning), not the row; rows without identity go.
        #expect(try ImportTestSupport.counts(db)["Candidate"] == 4)
        #expect(try ImportTestSupport.counts(db)["Good"] == 2)
        #expect(summary.rejected == 3)
        #expect(summary.fieldsNulled == 3)
        #expect(try ImportTestSupport.integer(db, "SELECT count(*) FROM Candidate WHERE birthdate IS NULL") == 1)
        #expect(try ImportTestSupport.integer(db, "SELECT count(*) FROM Good WHERE value IS NULL") == 1)
        #expect(summary.rejectsFile == db + ".rejects.csv")
        let rejects = try Self.readRejects(db + ".rejects.csv")
        #expect(rejects.first == ["file", "line", "column", "reason", "original"])
        let byLine = Dictionary(grouping: rejects.dropFirst(), by: { "\($0[0]):\($0[1])" })
        let date = try #require(byLine["consulta_cand_bad.csv:3"]?.first)
        #expect(date[2] == "39")  // DT_NASCIMENTO is field 39
        #expect(date[3].hasPrefix("warning: DT_NASCIMENTO is not a date"))
        #expect(date[4] == "31/02/1970")  // the field's original text
        let number = try #require(byLine["consulta_cand_bad.csv:4"]?.first)
        #expect(number[2] == "17" && number[3].hasPrefix("warning: NR_CANDIDATO is not a whole number"))
        #expect(number[4] == "12x4")
        let short = try #require(byLine["consulta_cand_bad.csv:5"]?.first)
        #expect(short[3].contains("expected 58 fields, found 3"))
        #expect(short[2] == "4", "the first missing field")
        #expect(short[4] == shortRow)
        let quote = try #require(byLine["consulta_cand_bad.csv:6"]?.first)
        #expect(quote[2] == "19")  // NM_URNA_CANDIDATO, where the stray quote is
        #expect(quote[3].contains("must be doubled"))
        let money = try #require(byLine["bem_candidato_bad.csv:3"]?.first)
        #expect(money[2] == "17" && money[3].hasPrefix("warning: VR_BEM_CANDIDATO is not an amount"))
        #expect(money[4] == "12,3,4")
        let orphan = try #require(byLine["bem_candidato_bad.csv:4"]?.first)
        #expect(orphan[2] == "12")
        #expect(
            orphan[3] == "no candidacy 2018/1/ELEICOES GERAIS ESTADUAIS 2018/MG/777 (election/SG_UE/SQ_CANDIDATO) in "
                + "this file set or the database; import its consulta_cand file too (the good is kept aside in "
                + "_urna_pending_goods and attached by the import that brings its candidacy)")
        // The rejects file keeps original bytes, which may be personal data: owner only.
        let mode = try FileManager.default.attributesOfItem(atPath: db + ".rejects.csv")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func originalBytesAreKeptExactlyEvenInLatin1() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let bad = ImportTestSupport.candidateRow(["SQ_CANDIDATO": "x", "NM_CANDIDATO": "JOÃO"])
        let file = try ImportTestSupport.candidateFile([], in: folder)
        try (try String(contentsOfFile: file, encoding: .isoLatin1) + bad + "\n").write(
            toFile: file, atomically: true, encoding: .isoLatin1)
        let db = folder + "/urna.sqlite"
        _ = try ImportTestSupport.importFiles([file], into: db)
        let raw = try [UInt8](Data(contentsOf: URL(fileURLWithPath: db + ".rejects.csv")))
        let latin1Row = bad.unicodeScalars.map { UInt8($0.value) }
        // The row sits in the file byte for byte (quotes doubled by CSV quoting).
        var expected: [UInt8] = [0x22]
        for b in latin1Row {
            if b == 0x22 { expected.append(0x22) }
            expected.append(b)
        }
        expected.append(0x22)
        #expect(raw.firstRange(of: expected) != nil)
    }

    @Test func tooManyRejectsRollsEverythingBack() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let db = folder + "/urna.sqlite"
        _ = try ImportTestSupport.importFiles(
            [ImportTestSupport.fixture("sample_consulta_cand_2018_MG.58col.csv")], into: db)
        let before = try ImportTestSupport.dump(db)
        // Rows without identity are rejected (a bad SQ_CANDIDATO, a negative one, no SG_UE).
        let rows =
            (1...5).map { ["SQ_CANDIDATO": $0 == 3 ? "9o3" : "\(900 + $0)", "DT_NASCIMENTO": "01/01/1970"] }
            + [["SQ_CANDIDATO": "-950"], ["SQ_CANDIDATO": "951", "SG_UE": "#NULO#"]]
        let file = try ImportTestSupport.candidateFile(rows, in: folder)
        #expect(throws: ImportError.self) {
            _ = try ImportTestSupport.importFiles([file], into: db, maxErrors: 2)
        }
        do {
            _ = try ImportTestSupport.importFiles([file], into: db, maxErrors: 2)
        } catch let error as ImportError {
            #expect(error.exitCode == 65)
            #expect("\(error)".contains("rolled back"))
        }
        #expect(try ImportTestSupport.dump(db) == before)
        // Within the limit, the good rows go in.
        let ok = try ImportTestSupport.importFiles([file], into: db, maxErrors: 3)
        #expect(ok.rejected == 3)
        #expect(ok.inserted["Candidate"] == 4)
    }

    @Test func aFailedImportIntoANewFileLeavesNoFile() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let file = try ImportTestSupport.candidateFile([["SQ_CANDIDATO": "oops"]], in: folder)
        let db = folder + "/new.sqlite"
        #expect(throws: ImportError.self) { _ = try ImportTestSupport.importFiles([file], into: db, maxErrors: 0) }
        #expect(!FileManager.default.fileExists(atPath: db))
        #expect(FileManager.default.fileExists(atPath: db + ".rejects.csv"))  // kept, to show what was wrong
    }

    @Test func missingFileIsExit66AndUnrecognisedFileIsExit65() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let db = folder + "/urna.sqlite"
        do {
            _ = try ImportTestSupport.importFiles([folder + "/nope.csv"], into: db)
            Issue.record("a missing file must fail")
        } catch let error as ImportError {
            #expect(error.exitCode == 66)
            #expect("\(error)".contains("nope.csv"))
        }
        let odd = try ImportTestSupport.write(
            "\"NR_CANDIDATO\";\"NM_CANDIDATO\";\"FOO\"\n\"1\";\"A\";\"B\"\n", named: "odd.csv", in: folder)
        do {
            _ = try ImportTestSupport.importFiles([odd], into: db)
            Issue.record("an unrecognised file must fail")
        } catch let error as ImportError {
            #expect(error.exitCode == 65)
            let text = "\(error)"
            #expect(text.contains("odd.csv"))
            #expect(text.contains("SQ_CANDIDATO"))  // a missing required column is named
        }
        let doctype = try ImportTestSupport.write(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY e \"boom\">]>\n<candidatos/>\n", named: "dump.xml",
            in: folder)
        do {
            _ = try ImportTestSupport.importFiles([doctype], into: db)
            Issue.record("an XML file with a DOCTYPE must be refused")
        } catch let error as ImportError {
            #expect(error.exitCode == 65)
            #expect("\(error)".contains("dump.xml"))
        }
        #expect(!FileManager.default.fileExists(atPath: db))  // nothing was touched
    }

    @Test func aFileOfAnotherFamilyIsRefusedAndLeftAlone() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let db = folder + "/people.sqlite"
        let people = try Schema(
            family: "people", version: 1, types: [ObjectSchema("Person", [Property("name", .string, default: "")])])
        do { _ = try Store(path: db, schema: people) }
        let before = try ImportTestSupport.dump(db)
        do {
            _ = try ImportTestSupport.importFiles(
                [ImportTestSupport.fixture("sample_consulta_cand_2018_MG.58col.csv")], into: db)
            Issue.record("an import into a people file must be refused")
        } catch let error as ImportError {
            #expect(error.exitCode == 65)
            #expect("\(error)".contains("people"))
        }
        #expect(try ImportTestSupport.dump(db) == before)
    }
}
