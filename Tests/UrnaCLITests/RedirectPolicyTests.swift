import Testing

@testable import UrnaDownload

/// Which schemes a download may be redirected to. A TLS server libcurl trusts cannot be started in the tests, so
/// the policy is checked where it is decided; the refusal's wording is checked end to end by
/// `CLIDownloadHostileTests.redirectToFileScheme`.
@Suite struct RedirectPolicyTests {
    @Test("a download begun over https is never redirected to plain http (a downgrade anyone on the path could read)")
    func httpsStaysHTTPS() {
        #expect(HTTPTransfer.redirectProtocols(for: "https://cdn.tse.jus.br/estatistica/sead/odsele/x.zip") == "https")
        #expect(HTTPTransfer.redirectProtocols(for: "HTTPS://cdn.tse.jus.br/x.zip") == "https")
    }

    @Test("a download begun over http may be redirected to http or https")
    func httpMayMoveUp() {
        #expect(HTTPTransfer.redirectProtocols(for: "http://127.0.0.1:8080/x.zip") == "http,https")
    }
}
