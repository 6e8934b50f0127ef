import Testing
import UrnaImport

@Suite("Cells a spreadsheet would run as formulas")
struct SpreadsheetFormulaTests {
    @Test("OWASP's payloads are formulas, signed plain numbers are not")
    func payloadsAndNumbers() {
        for cell in [
            "=1+1", "@SUM(A1)", "+1+1", "+ R$203,54 - DEPÓSITO", "-2+3+cmd|' /C calc'!A0", "-1+1", "-1-1",
            "-5*HYPERLINK(1)", "-0,5+A1", "\tcmd", "\rcmd", "-SEM INFORMAÇÃO", "=cmd|' /C calc'!A0", "+", "-", "-1,", "-,5",
        ] {
            #expect(SpreadsheetFormula.looksLikeFormula(cell), "\(cell)")
        }
        for cell in ["-1", "-3", "-4", "-0,5", "-12.75", "+47708,93", "47708,93", "JOÃO", "", "a=b", "1-2", "#NULO#"] {
            #expect(!SpreadsheetFormula.looksLikeFormula(cell), "\(cell)")
        }
    }
}
