import Foundation
import Testing
import UrnaImport
import UrnaStore

/// What the exported bytes look like: escaping, encodings, JSON lines, filters and refusals.
@Suite struct ExportFormatTests {
    /// The fixture's texts hold `& < > " '`, “ ” and characters outside Latin-1 (Ł, €, Ź).
    private func escapingDatabase() throws -> String {
        try ExportTestFiles.database([ExportTestFiles.fixture("utf8_candidato.xml")])
    }

    @Test func latin1XMLEscapesMarkupAndWritesOtherCharactersAsReferences() throws {
        let db = try escapingDatabase()
        let bytes = try ExportTestFiles.exportBytes(db, ExportOptions(format: .xml))
        let text = String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)  // Latin-1: byte = code point
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<candidatos>\n"))
        #expect(
            text.contains(
                "<NM_CANDIDATO>&#321;UKASZ &#8220;O SÓCIO&#8221; &amp; FILHOS &lt;LTDA&gt; &quot;Q&quot; &apos;A&apos;</NM_CANDIDATO>"
            ))
        #expect(text.contains("<NM_URNA_CANDIDATO>&#321;UKASZ &#8364;</NM_URNA_CANDIDATO>"))
        #expect(text.contains("<DS_BEM_CANDIDATO>CASA &amp; QUINTAL EM &#321;ÓD&#377;</DS_BEM_CANDIDATO>"))
        // Ó is one byte (0xD3), not UTF-8's two (0xC3 0x93).
        let socio = Array("S\u{D3}CIO".unicodeScalars.map { UInt8($0.value) })
        let socioUTF8 = Array("SÓCIO".utf8)
        let hasLatin1 = bytes.indices.contains { bytes[$0...].starts(with: socio) }
        let hasUTF8 = bytes.indices.contains { bytes[$0...].starts(with: socioUTF8) }
        #expect(hasLatin1)
        #expect(!hasUTF8)
        #expect(text.hasSuffix("</candidatos>\n"))
    }

    @Test func utf8XMLWritesCharactersAsUTF8() throws {
        let db = try escapingDatabase()
        let bytes = try ExportTestFiles.exportBytes(db, ExportOptions(format: .xml, encoding: .utf8))
        let text = try #require(String(validating: bytes, as: UTF8.self))
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"))
        #expect(
            text.contains(
                "<NM_CANDIDATO>ŁUKASZ “O SÓCIO” &amp; FILHOS &lt;LTDA&gt; &quot;Q&quot; &apos;A&apos;</NM_CANDIDATO>"))
        #expect(text.contains("<DS_BEM_CANDIDATO>CASA &amp; QUINTAL EM ŁÓDŹ</DS_BEM_CANDIDATO>"))
    }

    @Test(arguments: [ExportEncoding.latin1, .utf8])
    func escapedXMLImportsBackToTheSameObjects(_ encoding: ExportEncoding) throws {
        let db = try escapingDatabase()
        let path = try ImportTestSupport.scratchFolder() + "/again.xml"
        try ExportTestFiles.export(db, ExportOptions(format: .xml, encoding: encoding), to: path)
        let copy = try ExportTestFiles.database([path])
        let differences = try DatabaseComparison.differences(db, copy)
        #expect(differences.isEmpty, "\(DatabaseComparison.report(differences))")
        let name = try ImportTestSupport.value(copy, "SELECT name FROM Candidate")
        #expect(name == .text("ŁUKASZ “O SÓCIO” & FILHOS <LTDA> \"Q\" 'A'"))
    }

    @Test func latin1CSVRefusesCharactersItCannotCarryAndLeavesNoFile() throws {
        let db = try escapingDatabase()
        let path = try ImportTestSupport.scratchFolder() + "/cand.csv"
        let error = try #require(throws: ExportError.self) {
            try ExportTestFiles.export(db, ExportOptions(format: .csv), to: path)
        }
        guard case .unencodable(let type, let key, let column, let scalar, _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(type == "Candidate")
        #expect(key == "2018/1/ELEICOES GERAIS ESTADUAIS 2018/MG/130000614380")
        #expect(column == "NM_CANDIDATO")
        #expect(scalar == 0x141)
        #expect(error.description.contains("--encoding utf8"))
        #expect(error.exitCode == 65)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent).isEmpty)
    }

    @Test func utf8CSVHasAByteOrderMarkQuotesEveryFieldAndImportsBack() throws {
        let db = try escapingDatabase()
        let folder = try ImportTestSupport.scratchFolder()
        try ExportTestFiles.export(db, ExportOptions(format: .csv, encoding: .utf8), to: folder + "/cand.csv")
        try ExportTestFiles.export(
            db, ExportOptions(format: .csv, typeName: "Good", encoding: .utf8), to: folder + "/bens.csv")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/cand.csv")))
        #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF, 0x22]))
        let lines = try #require(String(validating: bytes.dropFirst(3), as: UTF8.self)).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("\"DT_GERACAO\";\"HH_GERACAO\";\"ANO_ELEICAO\";"))
        #expect(lines[0].contains("\"DS_EMAIL\""))  // modern names: not NM_EMAIL
        #expect(lines[1].contains(";\"ŁUKASZ “O SÓCIO” & FILHOS <LTDA> \"\"Q\"\" 'A'\";"))
        #expect(lines[1].contains(";\"1270629.01\";"))  // spending limit as 2022 files write it
        #expect(lines[1].contains(";\"#NULO#\";"))
        let header = lines[0].split(separator: ";", omittingEmptySubsequences: false)
        let row = lines[1].split(separator: ";", omittingEmptySubsequences: false)
        #expect(header.count == 77)
        #expect(row.count == 77)
        #expect(row.allSatisfy { $0.hasPrefix("\"") && $0.hasSuffix("\"") })
        let goods = try String(contentsOfFile: folder + "/bens.csv", encoding: .utf8)
        #expect(goods.contains(";\"3669,04\";\"19/09/2018\";\"10:12:53\"\n"))
        let copy = try ExportTestFiles.database([folder + "/cand.csv", folder + "/bens.csv"])
        let differences = try DatabaseComparison.differences(db, copy)
        #expect(differences.isEmpty, "\(DatabaseComparison.report(differences))")
    }

    @Test func xmlRefusesControlCharactersItCannotCarry() throws {
        let db = try escapingDatabase()
        let c = try Connection(path: db)
        try c.execute("UPDATE Candidate SET nickname = 'BELL' || char(7)")
        let error = try #require(throws: ExportError.self) {
            try ExportTestFiles.exportBytes(db, ExportOptions(format: .xml))
        }
        #expect(
            error
                == .unencodable(
                    type: "Candidate", key: "2018/1/ELEICOES GERAIS ESTADUAIS 2018/MG/130000614380",
                    column: "NM_URNA_CANDIDATO", scalar: 7,
                    hint: "XML 1.0 cannot carry at all: use --format csv or json"))
        // CSV carries it.
        let csv = try ExportTestFiles.exportBytes(db, ExportOptions(format: .csv, encoding: .utf8))
        #expect(csv.contains(7))
    }

    @Test func jsonLinesParseOneObjectPerLine() throws {
        let db = try ExportTestFiles.database(
            [ExportTestFiles.sample("consulta_cand_2018_MG.csv"), ExportTestFiles.sample("bem_candidato_2018_MG.csv")])
        for (type, count) in [
            ("Candidate", 2388), ("Good", 8583), ("Party", 35), ("Coalition", 32), ("GoodType", 47),
            ("Election", 1),
        ] {
            let bytes = try ExportTestFiles.exportBytes(db, ExportOptions(format: .json, typeName: type))
            let lines = bytes.split(separator: 0x0A)
            #expect(lines.count == count, "\(type)")
            #expect(bytes.last == 0x0A)
            for line in lines {
                let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
                #expect(object != nil)
            }
        }
        let candidates = try ExportTestFiles.exportBytes(
            db, ExportOptions(format: .json, predicate: "sequence == 130000613243"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(candidates)) as? [String: Any])
        #expect(object["id"] as? String == "2018/1/ELEICOES GERAIS ESTADUAIS 2018/MG/130000613243")
        #expect(object["election"] as? String == "2018/1/ELEICOES GERAIS ESTADUAIS 2018")  // a link is the target's key
        #expect(object["party"] as? String == "2018/23")  // the party as it was in 2018
        #expect((object["goods"] as? [String])?.count == 11)  // a list is an array of keys
        #expect(object["holder"] == nil)  // inverse links are other objects' links
        let text = String(decoding: candidates, as: UTF8.self)
        #expect(
            text.hasPrefix(
                "{\"id\":\"2018/1/ELEICOES GERAIS ESTADUAIS 2018/MG/130000613243\",\"sequence\":130000613243,\"election\":\"2018/1/ELEICOES GERAIS ESTADUAIS 2018\","
            ))
        let good = try ExportTestFiles.exportBytes(
            db,
            ExportOptions(
                format: .json, typeName: "Good",
                predicate: "id == '2018/1/ELEICOES GERAIS ESTADUAIS 2018/MG/130000600641/1'"))
        #expect(String(decoding: good, as: UTF8.self).contains("\"value\":2300000.00,"))  // exact money
    }

    @Test func predicateFiltersTheExportedType() throws {
        let db = try ExportTestFiles.database(
            [ExportTestFiles.sample("consulta_cand_2018_MG.csv"), ExportTestFiles.sample("bem_candidato_2018_MG.csv")])
        let governors = "postCode IN {3, 4} AND state == 'MG'"
        let xml = try ExportTestFiles.exportBytes(db, ExportOptions(format: .xml, predicate: governors))
        let expected = try ImportTestSupport.integer(db, "SELECT count(*) FROM Candidate WHERE postCode IN (3, 4)")
        #expect(expected > 0)
        let text = String(decoding: xml.map { UInt16($0) }, as: UTF16.self)
        #expect(text.components(separatedBy: "<candidato>").count - 1 == Int(expected))
        // The fresh file holds exactly those candidacies, and their coalitions only.
        let path = try ImportTestSupport.scratchFolder() + "/gov.xml"
        try ExportTestFiles.export(db, ExportOptions(format: .xml, predicate: governors), to: path)
        let copy = try ExportTestFiles.database([path])
        #expect(try DatabaseComparison.rowCount(copy, "Candidate") == expected)
        #expect(
            try DatabaseComparison.rowCount(copy, "Coalition")
                == ImportTestSupport.integer(
                    db, "SELECT count(DISTINCT coalition) FROM Candidate WHERE postCode IN (3, 4)"))

        let rich = try ExportTestFiles.exportBytes(
            db, ExportOptions(format: .csv, typeName: "Good", predicate: "value > 1000000"))
        let richCount = try ImportTestSupport.integer(db, "SELECT count(*) FROM Good WHERE value > 100000000")
        #expect(rich.split(separator: 0x0A).count == Int(richCount) + 1)
    }

    @Test func unknownOrUnsupportedTypesAndEncodingsAreRefused() throws {
        let db = try escapingDatabase()
        let store = try Store.openExisting(path: db, readOnly: true)
        #expect(throws: ExportError.self) {
            _ = try ElectionExporter(store: store, options: ExportOptions(format: .json, typeName: "Nope"))
        }
        let xmlParty = try #require(throws: ExportError.self) {
            _ = try ElectionExporter(store: store, options: ExportOptions(format: .xml, typeName: "Party"))
        }
        #expect(xmlParty == .unsupportedType(type: "Party", format: .xml, supported: ["Candidate"]))
        #expect(xmlParty.exitCode == 64)
        let csvElection = try #require(throws: ExportError.self) {
            _ = try ElectionExporter(store: store, options: ExportOptions(format: .csv, typeName: "Election"))
        }
        #expect(
            csvElection
                == .unsupportedType(type: "Election", format: .csv, supported: ["Candidate", "Good", "Coalition"]))
        #expect(throws: ExportError.unsupportedEncoding(format: .json, encoding: .latin1)) {
            _ = try ElectionExporter(store: store, options: ExportOptions(format: .json, encoding: .latin1))
        }
        #expect(throws: QueryPredicateError.self) {
            _ = try ElectionExporter(store: store, options: ExportOptions(format: .xml, predicate: "nosuch == 1"))
        }
    }

    /// JSON reads any family straight from the storage contract; XML and CSV need an elections file.
    @Test func jsonExportsAnyFamilyAndTSEFormatsNeedElections() throws {
        let path = try ImportTestSupport.newDatabasePath()
        let schema = try Schema(
            family: "notes", version: 1,
            types: [
                ObjectSchema(
                    "Note",
                    [
                        Property("title", .string, default: ""), Property("price", .decimal(scale: 2), optional: true),
                        Property("done", .bool, default: false), Property("at", .date, optional: true),
                    ])
            ])
        do {
            let store = try Store(path: path, schema: schema)
            try store.write {
                _ = try store.create(
                    "Note",
                    value: ["title": "a \"quoted\" \\ line\nnext", "price": Decimal(string: "-0.05")!, "done": true])
                _ = try store.create("Note", value: ["title": "second"])
            }
        }
        let store = try Store.openExisting(path: path, readOnly: true)
        let folder = try ImportTestSupport.scratchFolder()
        let summary = try ElectionExporter(store: store, options: ExportOptions(format: .json, typeName: "Note"))
            .export(toPath: folder + "/notes.jsonl")
        #expect(summary.objects == 2)
        let lines = try String(contentsOfFile: folder + "/notes.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.first == #"{"_id":1,"title":"a \"quoted\" \\ line\nnext","price":-0.05,"done":true,"at":null}"#)
        #expect(lines.last == #"{"_id":2,"title":"second","price":null,"done":false,"at":null}"#)
        let refusal = try #require(throws: ExportError.self) {
            _ = try ElectionExporter(store: store, options: ExportOptions(format: .xml, typeName: "Note"))
        }
        #expect(refusal == .notAnElectionsFile(reason: "the file holds the 'notes' family"))
        #expect(refusal.exitCode == 65)
    }
}
