import Foundation
import Testing

/// `urna import --date-order day-first|month-first` reads every file's slash dates in the order asked for (a file
/// saved month first whose first rows show no order was read day first, and no option forced it: tenth
/// real-files trial). Anything else is a usage error (exit 64) that names the two orders.
@Suite struct CLIDateOrderOptionTests {
    private static let header =
        "\"DT_GERACAO\";\"HH_GERACAO\";\"ANO_ELEICAO\";\"NR_TURNO\";\"DS_ELEICAO\";\"DT_ELEICAO\";\"SG_UF\";\"SG_UE\";"
        + "\"CD_CARGO\";\"DS_CARGO\";\"SQ_CANDIDATO\";\"NR_CANDIDATO\";\"NM_CANDIDATO\";\"NR_PARTIDO\";\"DT_NASCIMENTO\""

    @Test func monthFirstIsReadAsAsked() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("consulta_cand_2018_MG.csv")
        let row =
            "\"9/9/2018\";\"10:00:00\";\"2018\";\"1\";\"Eleições Gerais Estaduais 2018\";\"10/7/2018\";\"MG\";\"MG\";"
            + "\"6\";\"DEPUTADO FEDERAL\";\"1\";\"1234\";\"FULANO\";\"27\";\"3/7/1980\""
        try Data((Self.header + "\n" + row + "\n").utf8).write(to: file)
        let db = dir.appendingPathComponent("m.sqlite").path
        let r = try CLIRunner.run(["import", "--db", db, "--quiet", "--date-order", "month-first", file.path])
        #expect(r.code == 0, "\(r.stderr)")
        let q = try CLIRunner.run(["sql", "--db", db, "SELECT birthdate FROM Candidate"])
        #expect(q.stdout.contains("1980-03-07"), "\(q.stdout) \(q.stderr)")
        let bad = try CLIRunner.run(["import", "--db", db, "--date-order", "ymd", file.path])
        #expect(bad.code == 64)
        #expect(bad.stderr.contains("--date-order takes day-first or month-first, not 'ymd'"), "\(bad.stderr)")
    }
}
