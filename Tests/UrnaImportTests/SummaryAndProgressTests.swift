import Foundation
import Testing
import UrnaImport

/// The summary's two renderings and the progress reports.
@Suite struct SummaryAndProgressTests {
    @Test func jsonIsExactlyOneObjectWithTheAgreedKeys() throws {
        let db = try ImportTestSupport.newDatabasePath()
        let summary = try ImportTestSupport.importFiles(
            [ImportTestSupport.fixture("sample_consulta_cand_2018_MG.58col.csv")], into: db)
        let json = summary.renderJSON()
        #expect(json.hasSuffix("}") && !json.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let inserted = try #require(object["inserted"] as? [String: Int])
        #expect(inserted["Candidate"] == 85)
        #expect(Set(inserted.keys) == Set(ImportSummary.types))
        #expect((object["updated"] as? [String: Int])?["Candidate"] == 0)
        #expect((object["unchanged"] as? [String: Int])?["Candidate"] == 0)
        #expect(object["rejected"] as? Int == 0)
        #expect(object["rejectsFile"] is NSNull)
        let text = summary.renderText()
        #expect(text.contains("Candidate         85         0         0"))
        #expect(text.contains("rejected: 0"))
    }

    @Test func rejectsFileIsNamedInTheJSONWhenRowsWereRejected() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let file = try ImportTestSupport.candidateFile([["SQ_CANDIDATO": "1"], ["SQ_CANDIDATO": "x"]], in: folder)
        let db = folder + "/urna.sqlite"
        let summary = try ImportTestSupport.importFiles([file], into: db)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(summary.renderJSON().utf8)) as? [String: Any])
        #expect(object["rejected"] as? Int == 1)
        #expect(object["rejectsFile"] as? String == db + ".rejects.csv")
    }

    @Test func progressReportsBytesRowsAndPhases() throws {
        let db = try ImportTestSupport.newDatabasePath()
        let recorder = RecordingImportProgress()
        let files = [
            ImportTestSupport.fixture("consulta_cand_2018_AC.from_BRASIL.csv"),
            ImportTestSupport.fixture("sample_bem_candidato_2018_MG.csv"),
        ]
        _ = try ImportTestSupport.importFiles(files, into: db, progress: recorder)
        let snapshots = recorder.snapshots
        #expect(snapshots.first?.phase == .reading)
        #expect(snapshots.last?.phase == .finished)
        let total = try files.reduce(Int64(0)) {
            $0 + ((try FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int64) ?? 0)
        }
        #expect(snapshots.allSatisfy { $0.bytesTotal == total && $0.bytesRead <= total && $0.fileCount == 2 })
        #expect(snapshots.last?.bytesRead == total)
        #expect(snapshots.last?.rowsRead == 586 + 209)
        #expect(snapshots.map(\.rowsRead) == snapshots.map(\.rowsRead).sorted())
        #expect(
            Set(snapshots.map(\.phase)).isSuperset(of: [.reading, .catalogues, .linkingVices, .committing, .finished]))
    }
}
