import Testing

@testable import UrnaStore

/// Debian's SQLite enables the two-argument `fts3_tokenizer`: with it, `SELECT fts3_tokenizer('simple')` answers
/// the tokenizer module's address in memory (an eighth attacker's trial found `urna sql` printing it), and the
/// two-argument form installs a tokenizer from a pointer given as a blob. Turning it off with
/// `SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER` only covers literal arguments: a bound parameter still got the address
/// (`urna sql --param n=simple "SELECT hex(fts3_tokenizer(:n))"`) and installed a tokenizer at any address. Every
/// connection Urna opens replaces the function with one that fails.
@Suite("No SQL reads or sets a tokenizer's address")
struct TokenizerAddressTests {
    private static func isDisabledError(_ error: any Error) -> Bool {
        "\(error)".contains("fts3_tokenizer is disabled")
    }

    @Test("the one-argument form answers no address")
    func noAddress() throws {
        let connection = try Connection(path: ":memory:")
        #expect(
            performing: { _ = try connection.scalar("SELECT fts3_tokenizer('simple')") }, throws: Self.isDisabledError)
    }

    @Test("the two-argument form installs nothing, even from the address the one-argument form gave")
    func noInstall() throws {
        let connection = try Connection(path: ":memory:")
        #expect(throws: (any Error).self) {
            _ = try connection.scalar("SELECT fts3_tokenizer('mine', fts3_tokenizer('simple'))")
        }
    }

    @Test("a bound parameter reads no address (it printed one before)")
    func boundNameAnswersNoAddress() throws {
        let connection = try Connection(path: ":memory:")
        for name in ["simple", "porter", "unicode61"] {
            #expect(
                performing: { _ = try connection.scalar("SELECT hex(fts3_tokenizer(?))", [.text(name)]) },
                throws: Self.isDisabledError)
        }
    }

    @Test("a bound pointer installs no tokenizer (it installed one at 0x4141414141414141 before)")
    func boundPointerInstallsNothing() throws {
        let connection = try Connection(path: ":memory:")
        let pointer = SQLValue.blob([UInt8](repeating: 0x41, count: MemoryLayout<UnsafeRawPointer>.size))
        var installed = false
        for (sql, bindings) in [
            ("SELECT fts3_tokenizer('evil', ?)", [pointer]), ("SELECT fts3_tokenizer(?, ?)", [.text("evil"), pointer]),
        ] {
            do {
                _ = try connection.scalar(sql, bindings)
                installed = true
                Issue.record("\(sql) installed a tokenizer from a pointer")
            } catch {
                #expect(Self.isDisabledError(error), "\(error)")
            }
        }
        // Nothing named 'evil' is there: the table cannot be made. (Tried only when nothing was installed: with
        // 'evil' installed, making the table would jump to 0x4141414141414141 and crash the test run.)
        if !installed {
            #expect(throws: (any Error).self) {
                try connection.execute("CREATE VIRTUAL TABLE t USING fts3(body, tokenize=evil)")
            }
        }
    }

    @Test("full-text tables still work: fts3 and fts4 with their built-in tokenizers, and fts5")
    func fullTextStillWorks() throws {
        let connection = try Connection(path: ":memory:")
        try connection.execute("CREATE VIRTUAL TABLE plain USING fts4(body)")
        try connection.execute("CREATE VIRTUAL TABLE stemmed USING fts3(body, tokenize=porter)")
        try connection.execute("CREATE VIRTUAL TABLE modern USING fts5(body)")
        for table in ["plain", "stemmed", "modern"] {
            try connection.execute("INSERT INTO \(table)(body) VALUES ('candidates running for mayor')")
            try connection.execute("INSERT INTO \(table)(body) VALUES ('a council seat')")
        }
        #expect(
            try connection.scalar("SELECT body FROM plain WHERE plain MATCH 'mayor'")
                == .text("candidates running for mayor"))
        #expect(try connection.scalar("SELECT count(*) FROM plain WHERE plain MATCH 'nobody'") == .integer(0))
        // Porter stemming: 'run' finds 'running'.
        #expect(
            try connection.scalar("SELECT body FROM stemmed WHERE stemmed MATCH 'run'")
                == .text("candidates running for mayor"))
        #expect(
            try connection.scalar("SELECT body FROM modern WHERE modern MATCH 'council'") == .text("a council seat"))
    }
}
