import CPostgreSQL
import Foundation

/// `postgresql://` locations: recognising them and hiding their passwords.
public enum PostgresURL {
    /// Whether a `--db` value names a PostgreSQL database rather than a file.
    public static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// The location with its password replaced by `***` wherever it appears (`user:secret@`, `?password=`,
    /// conninfo `password=...`), also when libpq cannot parse the location.
    public static func redacted(_ location: String) -> String {
        replacing(passwords(in: location), in: redactedByShape(location))
    }

    /// `text` with every form of the password `location` holds (as written, percent-decoded, as libpq
    /// reads it) replaced by `***`, and any `scheme://user:secret@` or `password=` in it masked.
    public static func scrub(_ text: String, secretsOf location: String) -> String {
        maskCredentials(replacing(passwords(in: location), in: text))
    }

    /// Every form of the password `location` holds: as written in a URL's authority and percent-decoded, and as
    /// libpq reads it (URL or conninfo) and percent-encoded; longest first, so no form is half masked.
    static func passwords(in location: String) -> [String] {
        var found: [String] = []
        if let schemeEnd = location.range(of: "://") {
            let rest = location[schemeEnd.upperBound...]
            let queryStart = rest.firstIndex(of: "?") ?? rest.endIndex
            if let at = rest[..<queryStart].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                let raw = String(rest[rest.index(after: colon)..<at])
                found.append(raw)
                if let decoded = raw.removingPercentEncoding { found.append(decoded) }
            }
        }
        var error: UnsafeMutablePointer<CChar>?
        if let options = PQconninfoParse(location, &error) {
            defer { PQconninfoFree(options) }
            var o = options
            while let keyword = o.pointee.keyword {
                if String(cString: keyword) == "password", let v = o.pointee.val {
                    let password = String(cString: v)
                    found.append(password)
                    if let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
                        found.append(encoded)
                    }
                }
                o = o.advanced(by: 1)
            }
        }
        if let error { PQfreemem(error) }
        return Set(found.filter { !$0.isEmpty }).sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    private static func replacing(_ secrets: [String], in text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    /// Any `scheme://user:secret@` (whatever the scheme's case, one slash or two) and `password=...` in `text`
    /// masked: for messages that echo what a user typed as a path.
    public static func maskCredentials(_ text: String) -> String {
        text.replacingOccurrences(
            of: #"([A-Za-z][A-Za-z0-9+.-]*:/{1,2}[^:/@\s]*):[^@\s]*@"#, with: "$1:***@", options: .regularExpression
        ).replacingOccurrences(
            of: #"(?i)password\s*=\s*('([^'\\]|\\.)*'|[^\s&'"]*)"#, with: "password=***", options: .regularExpression)
    }

    static func redactedByShape(_ location: String) -> String {
        if isPostgres(location), let schemeEnd = location.range(of: "://") {
            let rest = location[schemeEnd.upperBound...]
            // The authority ends at the last '@' before any '?' (a password may hold an unescaped '/').
            let queryStart = rest.firstIndex(of: "?") ?? rest.endIndex
            let lastAt = rest[..<queryStart].lastIndex(of: "@")
            let authorityEnd =
                lastAt.map { at in rest[at...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex }
                ?? (rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex)
            let authority = rest[..<authorityEnd]
            var masked = location
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                masked = String(location[..<schemeEnd.upperBound]) + authority[..<colon] + ":***" + rest[at...]
            }
            return masked.replacingOccurrences(
                of: #"password=[^&]*"#, with: "password=***", options: .regularExpression)
        }
        return location.replacingOccurrences(
            of: #"password\s*=\s*('([^'\\]|\\.)*'|\S*)"#, with: "password=***", options: .regularExpression)
    }
}
