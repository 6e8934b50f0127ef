import Foundation
import Testing

/// Bidirectional formatting characters in a file's text (U+202E RIGHT-TO-LEFT OVERRIDE and its kin) reached the
/// terminal: a ballot name stored as `ETRAMACAB` showed as `BACAMARTE`, and everything after it on the line read
/// backwards. They are shown escaped (`\u{202E}`) or as `?` in the human forms; --csv and --json keep the bytes.
@Suite struct BidiTerminalTests {
    static let override = "\u{202E}"
    static let planted = "\u{202E}ETRAMACAB\u{202C}"

    /// The MG sample in UTF-8 with the first candidacy's ballot name (NM_URNA_CANDIDATO) replaced by `planted`;
    /// returns the database and that candidacy's SQ_CANDIDATO.
    static func database(in dir: URL) throws -> (db: String, sequence: String) {
        let latin1 = try Data(contentsOf: Hostile.sampleData.appendingPathComponent("consulta_cand_2018_MG.csv"))
        var lines = String(decoding: latin1.map { UInt16($0) }, as: UTF16.self).components(separatedBy: "\n")
        let header = lines[0].components(separatedBy: ";")
        let nameColumn = try #require(header.firstIndex(of: "\"NM_URNA_CANDIDATO\""))
        let sequenceColumn = try #require(header.firstIndex(of: "\"SQ_CANDIDATO\""))
        var fields = lines[1].components(separatedBy: ";")
        fields[nameColumn] = "\"\(planted)\""
        lines[1] = fields.joined(separator: ";")
        try Data(lines.joined(separator: "\n").utf8).write(to: dir.appendingPathComponent("cand.csv"))
        let r = try Hostile.urna(["import", "--db", "db.sqlite", "--quiet", "--encoding", "utf8", "cand.csv"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        return ("db.sqlite", fields[sequenceColumn].replacingOccurrences(of: "\"", with: ""))
    }

    @Test("query, query --table, sql and show print the ballot name with its bidi characters escaped")
    func humanFormsEscapeBidi() throws {
        let dir = try Hostile.folder()
        let (db, sequence) = try Self.database(in: dir)
        let predicate = "sequence == \(sequence)"
        for args in [
            ["query", "--db", db, "Candidate", predicate, "--fields", "nickname,number"],
            ["query", "--db", db, "Candidate", predicate, "--fields", "nickname,number", "--table"],
            ["sql", "--db", db, "SELECT nickname, number FROM Candidate WHERE sequence = \(sequence)"],
            ["show", "--db", db, "candidate", sequence],
        ] {
            let r = try Hostile.urna(args, in: dir)
            #expect(r.code == 0, "\(args): \(r.stderr)")
            #expect(r.stdout.contains("ETRAMACAB"), "\(args): \(r.stdout)")
            #expect(!r.stdout.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x202C }, "\(args)")
        }
        let plain = try Hostile.urna(["query", "--db", db, "Candidate", predicate, "--fields", "nickname"], in: dir)
        #expect(plain.stdout.contains("nickname: \\u{202E}ETRAMACAB\\u{202C}"), "\(plain.stdout)")
    }

    @Test("--csv and --json keep the exact value, bidi characters included")
    func dataFormsKeepTheBytes() throws {
        let dir = try Hostile.folder()
        let (db, sequence) = try Self.database(in: dir)
        for format in ["--csv", "--json"] {
            let r = try Hostile.urna(
                ["query", "--db", db, "Candidate", "sequence == \(sequence)", "--fields", "nickname", format], in: dir)
            #expect(r.code == 0, "\(r.stderr)")
            #expect(r.stdout.contains(Self.planted), "\(format): \(r.stdout)")
        }
    }

    @Test("A file name with a right-to-left override is escaped in the error that names it")
    func fileNameInMessages() throws {
        let dir = try Hostile.folder()
        let name = "candidatos\(Self.override)vsc.exe"
        let r = try Hostile.urna(["import", "--db", "db.sqlite", name], in: dir)
        #expect(r.code == 66, "\(r.stderr)")
        #expect(r.stderr.contains("candidatos\\u{202E}vsc.exe"), "\(r.stderr)")
        #expect(!r.stderr.unicodeScalars.contains { $0.value == 0x202E })
    }
}
