import Testing

@testable import UrnaStore

/// Debian's SQLite enables the two-argument `fts3_tokenizer`: with it, `SELECT fts3_tokenizer('simple')` answers
/// the tokenizer module's address in memory (an eighth attacker's trial found `urna sql` printing it), and the
/// two-argument form installs a tokenizer from a pointer given as a blob. Every connection Urna opens turns it off.
@Suite("No SQL reads or sets a tokenizer's address")
struct TokenizerAddressTests {
    @Test("the one-argument form answers no address")
    func noAddress() throws {
        let connection = try Connection(path: ":memory:")
        let answer = try connection.scalar("SELECT fts3_tokenizer('simple')")
        #expect(answer == nil || answer == .null)
    }

    @Test("the two-argument form installs nothing, even from the address the one-argument form gave")
    func noInstall() throws {
        let connection = try Connection(path: ":memory:")
        #expect(throws: (any Error).self) {
            _ = try connection.scalar("SELECT fts3_tokenizer('mine', fts3_tokenizer('simple'))")
        }
    }
}
