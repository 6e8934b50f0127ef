import Foundation
import Testing

/// Line feeds in paths the user typed (a script's unquoted name, `$'...'`): messages keep their own line
/// feeds, so a typed path split them or forged a line ("Error: ..." or a summary line) of its own. They are
/// shown escaped (`\x0A`) wherever the typed text appears, also inside a longer path made from it.
@Suite struct TypedPathLineTests {
    /// Lines of `text` that begin with `forged`.
    static func forgedLines(_ text: String, _ forged: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix(forged) }
    }

    @Test("An error naming a typed --db path with a line feed stays on its lines")
    func errorWithTypedDatabase() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = "x\nrestored: nothing to worry about.sqlite"
        let r = try Hostile.urna(["status", "--db", db], in: dir)
        #expect(r.code == 66, "\(r.stderr)")
        #expect(Self.forgedLines(r.stderr, "restored:").isEmpty, "\(r.stderr)")
        #expect(r.stderr.contains("x\\x0Arestored: nothing to worry about.sqlite does not exist"), "\(r.stderr)")
        // In a longer path made from it (an absolute one) and through --db=PATH.
        let other = try Hostile.urna(["query", "--db=\(dir.path)/\(db)", "Candidate"], in: dir)
        #expect(Self.forgedLines(other.stderr, "restored:").isEmpty, "\(other.stderr)")
    }

    @Test("The import summary names a typed --rejects path with a line feed on one line")
    func summaryWithTypedRejects() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir)
        // One row with too few fields, so there is a rejects file for the summary to name.
        let handle = try FileHandle(forWritingTo: dir.appendingPathComponent(csv))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\"2018\";\"too few fields\"\n".utf8))
        try handle.close()
        let rejects = "r\nEverything was imported.csv"
        let r = try Hostile.urna(["import", "--db", "db.sqlite", "--rejects", rejects, csv], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.contains("r\\x0AEverything was imported.csv"), "\(r.stdout)")
        #expect(Self.forgedLines(r.stdout, "Everything").isEmpty, "\(r.stdout)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(rejects).path))
    }

    @Test("adopt lists a file's own tables with control characters escaped, one line")
    func adoptOtherTables() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("legacy.sqlite").path
        try Hostile.sql(
            path,
            """
            CREATE TABLE Person (firstName TEXT, lastName TEXT, age INTEGER);
            INSERT INTO Person VALUES ('Ana', 'Souza', 30);
            CREATE TABLE "mine\u{1B}]0;PWNED\u{07}" (x);
            CREATE TABLE "notes
            next: nothing more to do" (x);
            """)
        let r = try Hostile.urna(
            ["adopt", "--db", "legacy.sqlite", "--family", "people", "--version", "0", "--dry-run"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("\u{1B}"), "\(r.stdout)")
        #expect(r.stdout.contains("mine\\x1B]0;PWNED\\x07"), "\(r.stdout)")
        #expect(Self.forgedLines(r.stdout, "next: nothing").isEmpty, "\(r.stdout)")
    }

    @Test("An error naming a zip member or a folder's file with a line feed in its name stays on its lines")
    func errorWithMemberName() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = try Data(contentsOf: Hostile.sampleData.appendingPathComponent("consulta_cand_2018_MG.csv"))
        let head = Array(
            sample.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(20).joined(separator: [0x0A]))
        // A required column misspelt: the member is refused by name.
        let damaged =
            Array(
                String(decoding: head, as: UTF8.self).replacingOccurrences(
                    of: "\"NM_CANDIDATO\"", with: "\"NM_CANDIDATX\""
                ).utf8) + [0x0A]
        let forged = "consulta_cand_2018_MG.csv\nrows: 5000 inserted, nothing rejected.csv"
        try ZipBomb.archive([ZipBomb.member(forged, damaged)]).write(to: dir.appendingPathComponent("evil.zip"))
        let r = try Hostile.urna(["import", "--db", "z.sqlite", "evil.zip"], in: dir)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(Self.forgedLines(r.stderr, "rows: 5000").isEmpty, "\(r.stderr)")
        #expect(r.stderr.contains("evil.zip:consulta_cand_2018_MG.csv\\x0Arows: 5000 inserted"), "\(r.stderr)")
        let folder = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(damaged).write(to: folder.appendingPathComponent(forged))
        let d = try Hostile.urna(["import", "--db", "d.sqlite", "in"], in: dir)
        #expect(d.code == 65, "\(d.stderr)")
        #expect(Self.forgedLines(d.stderr, "rows: 5000").isEmpty, "\(d.stderr)")
    }
}
