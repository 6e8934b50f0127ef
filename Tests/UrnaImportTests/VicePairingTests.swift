import Testing
import UrnaImport

/// Pairing heads of ticket with vices when substitutions leave two on one number (real cases).
@Suite struct VicePairingTests {
    typealias M = VicePairing.Member

    @Test func oneHeadOneVice() {
        #expect(
            VicePairing.pair(
                heads: [M(index: 0, sequence: 10, valid: true)], vices: [M(index: 1, sequence: 11, valid: true)]) == [
                    0: 1
                ])
        #expect(VicePairing.pair(heads: [M(index: 0, sequence: 10, valid: true)], vices: []) == [:])
    }

    @Test func aValidHeadPrefersTheValidVice() {
        // 2018 MG governor 18: vice 130000624869 INAPTO/INDEFERIDO was replaced by 130000629811 APTO.
        let heads = [M(index: 0, sequence: 130_000_624_870, valid: true)]
        let vices = [
            M(index: 1, sequence: 130_000_624_869, valid: false), M(index: 2, sequence: 130_000_629_811, valid: true),
        ]
        #expect(VicePairing.pair(heads: heads, vices: vices) == [0: 2])
    }

    @Test func aReplacedTicketStaysTogether() {
        // 2018 president 13: Lula (INAPTO) with Haddad as vice (RENÚNCIA); Haddad (APTO) with Manuela (APTO).
        let heads = [
            M(index: 0, sequence: 280_000_625_869, valid: false), M(index: 1, sequence: 280_000_629_808, valid: true),
        ]
        let vices = [
            M(index: 2, sequence: 280_000_625_870, valid: false), M(index: 3, sequence: 280_000_629_807, valid: true),
        ]
        #expect(VicePairing.pair(heads: heads, vices: vices) == [1: 3, 0: 2])
    }

    @Test func twoHeadsShareTheOnlyVice() {
        // 2016 AC mayor 40 in 01007: head 10000001495 INDEFERIDO replaced by 10000003549 DEFERIDO; one vice.
        let heads = [
            M(index: 0, sequence: 10_000_001_495, valid: false), M(index: 1, sequence: 10_000_003_549, valid: true),
        ]
        let vices = [M(index: 2, sequence: 10_000_001_497, valid: true)]
        #expect(VicePairing.pair(heads: heads, vices: vices) == [0: 2, 1: 2])
    }

    @Test func offices() {
        #expect(VicePairing.viceOffice(ofHead: 1) == 2)
        #expect(VicePairing.viceOffice(ofHead: 3) == 4)
        #expect(VicePairing.viceOffice(ofHead: 11) == 12)
        #expect(VicePairing.viceOffice(ofHead: 5) == nil)  // senators' alternates are not vices
        #expect(VicePairing.isValidStatus("APTO") && VicePairing.isValidStatus("DEFERIDO COM RECURSO"))
        #expect(
            !VicePairing.isValidStatus("INAPTO") && !VicePairing.isValidStatus("INDEFERIDO")
                && !VicePairing.isValidStatus(nil))
    }
}
