import Foundation
import Testing

/// `urna import DIR` of a folder as TSE's download tree fills it: a consulta_cand_complementar file (TSE's 2026
/// regeneration moved half of consulta_cand's columns there) and a motivo_cassacao file beside the candidate
/// file (and a zipped XML dump, said to be one). They are skipped with a warning that names what they are; the run stopped (exit 65, nothing imported),
/// calling the complementary file a consulta_cand that lacks required columns (sixth real-files trial).
@Suite struct CLIOtherTSEFilesTests {
    @Test func folderWithOtherTSEFamiliesImportsTheCandidates() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let d = dir.appendingPathComponent("tse2018")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: AnalysisFixtures.sample.appendingPathComponent("consulta_cand_2018_MG.csv"),
            to: d.appendingPathComponent("consulta_cand_2018_MG.csv"))
        let complementary =
            "DT_GERACAO;HH_GERACAO;ANO_ELEICAO;CD_ELEICAO;SQ_CANDIDATO;CD_DETALHE_SITUACAO_CAND;ST_QUILOMBOLA\n"
            + "\"06/01/2026\";\"16:44:45\";2018;297;130000600702;2;\"N\"\n"
        try Data(complementary.utf8).write(to: d.appendingPathComponent("consulta_cand_complementar_2018_MG.csv"))
        let revoked =
            "DT_GERACAO;HH_GERACAO;ANO_ELEICAO;CD_ELEICAO;SG_UE;SQ_CANDIDATO;DS_MOTIVO_CASSACAO\n"
            + "\"06/01/2026\";\"16:44:48\";2018;297;\"MG\";130000600702;\"Conduta vedada\"\n"
        try Data(revoked.utf8).write(to: d.appendingPathComponent("motivo_cassacao_2018_MG.csv"))
        // An XML dump zipped to be shared: skipped saying what it is and how to read it.
        try Data("<?xml version=\"1.0\"?><candidatos></candidatos>".utf8).write(to: dir.appendingPathComponent("c.xml"))
        let zipped = try CLIRunner.runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", "-c",
                "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w'); z.write(sys.argv[2],'candidatos_2004.xml')",
                d.appendingPathComponent("candidatos.zip").path, dir.appendingPathComponent("c.xml").path,
            ])
        #expect(zipped.code == 0, "python3 could not build the zip: \(zipped.stderr)")
        let db = dir.appendingPathComponent("x.sqlite").path
        let r = try CLIRunner.run(["import", "--db", db, "--quiet", d.path])
        #expect(r.code == 0, "\(r.stderr)")
        var warnings = r.stderr.split(separator: "\n").map(String.init)
        #expect(warnings.count == 3, "\(r.stderr)")
        #expect(
            warnings.first
                == "warning: skipped \(d.path)/candidatos.zip: a zip of XML (candidatos_2004.xml): urna reads an XML "
                + "dump as a file, not inside a zip; extract it and import the .xml")
        if !warnings.isEmpty { warnings.removeFirst() }
        #expect(
            warnings.first?.hasPrefix(
                "warning: skipped \(d.path)/consulta_cand_complementar_2018_MG.csv: TSE's consulta_cand_complementar "
                    + "file, which urna does not import: the candidacy columns TSE moved out of consulta_cand") == true)
        #expect(
            warnings.last?.hasPrefix(
                "warning: skipped \(d.path)/motivo_cassacao_2018_MG.csv: TSE's motivo_cassacao file, which urna does "
                    + "not import") == true)
        let count = try CLIRunner.run(["query", "--db", db, "Candidate", "--count"])
        #expect(count.stdout == "2388\n")

        // Named on the command line it stops the run, saying what the file is.
        let named = try CLIRunner.run([
            "import", "--db", dir.appendingPathComponent("y.sqlite").path,
            d.appendingPathComponent("consulta_cand_complementar_2018_MG.csv").path,
        ])
        #expect(named.code == 65)
        #expect(
            named.stderr.hasPrefix(
                "Error: consulta_cand_complementar_2018_MG.csv: TSE's consulta_cand_complementar file, which urna "
                    + "does not import:"), "\(named.stderr)")
        #expect(!named.stderr.contains("lacks required columns"))
    }
}
