import Foundation
import Testing
import UrnaStore

@testable import UrnaImport

/// Null markers, text clean-up, dates and money: the conventions of ../tse, one by one.
@Suite struct FieldConventionTests {
    @Test(arguments: ["#NULO#", "#NULO", "#NE#", "#NE", "", "   ", "NÃO DIVULGÁVEL", "Não divulgável", " #NULO# "])
    func textNullMarkersAreNil(_ marker: String) {
        #expect(TSEField.text(marker) == nil)
        #expect(TSEField.code(marker) == nil)
        #expect(TSEField.integer(marker) == .null)
    }

    @Test(arguments: ["-1", "-3", "-4"])
    func numericNullMarkersAreNilInCodesButTextElsewhere(_ marker: String) {
        #expect(TSEField.integer(marker) == .null)
        #expect(TSEField.code(marker) == nil)
        #expect(TSEField.text(marker) == marker)
        #expect(Reais.parseCents(marker) == .null)
        #expect(TSEDate.parse(marker) == .null)
    }

    @Test func textIsTrimmedAndInnerRunsOfSpacesCollapse() {
        #expect(TSEField.text("  JOÃO   DA  SILVA ") == "JOÃO DA SILVA")
        #expect(TSEField.text("A\tB") == "A B")
        #expect(TSEField.text("SEM MUDANÇA") == "SEM MUDANÇA")
        #expect(TSEField.code(" 01392 ") == "01392")  // leading zeros stay
    }

    @Test func integersParseOrAreInvalid() {
        #expect(TSEField.integer("130000626989") == .value(130_000_626_989))
        #expect(TSEField.integer("-2") == .value(-2))
        #expect(TSEField.integer("12a") == .invalid)
        #expect(TSEField.integer("99999999999999999999") == .invalid)
    }

    // MARK: - Dates

    @Test func theThreeDateForms() {
        #expect(TSEDate.parse("27/03/1967") == .date("1967-03-27T00:00:00.000Z"))
        #expect(TSEDate.parse("22-MAR-52", referenceYear: 2010) == .date("1952-03-22T00:00:00.000Z"))
        #expect(TSEDate.parse("19/09/2018 10:12:53") == .date("2018-09-19T10:12:53.000Z"))
        #expect(TSEDate.parse(date: "19/09/2018", time: "10:12:53") == .date("2018-09-19T10:12:53.000Z"))
        #expect(TSEDate.parse(date: "19/09/2018", time: "#NULO#") == .date("2018-09-19T00:00:00.000Z"))
    }

    @Test func twoDigitYearsPivotOnTheReferenceYear() {
        #expect(TSEDate.parse("01-JAN-05", referenceYear: 2010) == .date("2005-01-01T00:00:00.000Z"))
        #expect(TSEDate.parse("01-JAN-11", referenceYear: 2010) == .date("1911-01-01T00:00:00.000Z"))
        // Portuguese month names too, in any case.
        #expect(TSEDate.parse("15-fev-99", referenceYear: 2010) == .date("1999-02-15T00:00:00.000Z"))
        #expect(TSEDate.parse("29-FEB-00", referenceYear: 2010) == .date("2000-02-29T00:00:00.000Z"))
    }

    @Test(arguments: [
        "31/02/2019", "29/02/2019", "13/13/2000", "00/01/2000", "2018-02-30", "18-09-19", "22-XYZ-52", "1/1",
        "27/03/1967 25:00:00",
    ])
    func impossibleDatesAreInvalid(_ text: String) {
        #expect(TSEDate.parse(text) == .invalid)
    }

    @Test func datesAreWrittenExactlyAsTheStoreFormatsThem() {
        let date = ISODate.date(year: 1967, month: 3, day: 27)
        #expect(TSEDate.parse("27/03/1967") == .date(ISODate.format(date)))
        let stamp = ISODate.date(year: 2018, month: 9, day: 19, hour: 10, minute: 12, second: 53)
        #expect(TSEDate.parse("19/09/2018 10:12:53") == .date(ISODate.format(stamp)))
    }

    // MARK: - Money

    @Test func amountsAreExactCents() {
        #expect(Reais.parseCents("3669,04") == .cents(366_904))
        #expect(Reais.parseCents("1270629.01") == .cents(127_062_901))
        #expect(Reais.parseCents("1000000") == .cents(100_000_000))
        #expect(Reais.parseCents("0,5") == .cents(50))
        #expect(Reais.parseCents("1.234.567,89") == .cents(123_456_789))
        #expect(Reais.parseCents("1,234,567.89") == .cents(123_456_789))
        #expect(Reais.parseCents("#NULO#") == .null)
    }

    @Test func tenCentsPlusTwentyCentsIsExactlyThirty() {
        guard case .cents(let a) = Reais.parseCents("0,10"), case .cents(let b) = Reais.parseCents("0,20") else {
            Issue.record("0,10 and 0,20 must parse")
            return
        }
        #expect(a + b == 30)
        #expect(Reais.format(cents: a + b) == "R$ 0,30")
        #expect(0.1 + 0.2 != 0.3)  // why money never goes through Double
    }

    @Test(arguments: ["12,345", "1.234", "abc", "1,2,3", "--1", "1.23.45", "1,"])
    func ambiguousOrBrokenAmountsAreInvalid(_ text: String) {
        #expect(Reais.parseCents(text) == .invalid)
    }

    @Test func reaisAreFormattedTheBrazilianWay() {
        #expect(Reais.format(cents: 123_456) == "R$ 1.234,56")
        #expect(Reais.format(cents: 5) == "R$ 0,05")
        #expect(Reais.format(cents: 131_531_925) == "R$ 1.315.319,25")
        #expect(Reais.format(cents: -500) == "-R$ 5,00")
        #expect(Reais.format(cents: 100_000_000_00) == "R$ 100.000.000,00")
    }

    // MARK: - Coalition compositions

    @Test func compositionsSplitOnSpacedSlashes() {
        let c = CoalitionComposition("PT / PR / PSB / DC / PC do B")
        #expect(c.partyAcronyms == ["PT", "PR", "PSB", "DC", "PC do B"])
        #expect(c.members.count == 5)
    }

    @Test func namedFederationsKeepTheirParties() {
        let c = CoalitionComposition("Federação Brasil da Esperança - FE BRASIL(PT/PC do B/PV) / PSB")
        #expect(
            c.members == [
                .federation(name: "Federação Brasil da Esperança - FE BRASIL", parties: ["PT", "PC do B", "PV"]),
                .party("PSB"),
            ])
        #expect(c.partyAcronyms == ["PT", "PC do B", "PV", "PSB"])
    }

    @Test func federationsWrittenByTheirParties() {
        // As 2022 files write them (real value from consulta_cand_2022_AC).
        let c = CoalitionComposition("PODE / PP / PDT / PATRIOTA / SOLIDARIEDADE / PSDB/CIDADANIA / PMN / DC / PMB")
        #expect(c.members.count == 9)
        #expect(c.members[5] == .federation(name: "PSDB/CIDADANIA", parties: ["PSDB", "CIDADANIA"]))
        #expect(c.partyAcronyms.count == 10)
        #expect(CoalitionComposition.acronymKey("PC  do B") == "PC DO B")
    }
}
