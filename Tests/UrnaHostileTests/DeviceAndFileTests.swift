import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// FIFOs, folders and devices get a clear refusal, never a hang; another application's file is not taken
/// over; messages name a file once; libxml2's own text never reaches stderr.
@Suite struct DeviceAndFileTests {
    @Test("--db that is a folder or a FIFO is refused at once (exit 64)")
    func databaseThatIsNotAFile() throws {
        let dir = try Hostile.folder()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("d"), withIntermediateDirectories: false)
        #expect(mkfifo(dir.appendingPathComponent("f").path, 0o644) == 0)
        for (db, what) in [("d", "is a folder"), ("f", "is a FIFO")] {
            for command in [
                ["status", "--db", db], ["import", "--db", db, "x.csv"], ["init", "--db", db, "--family", "elections"],
            ] {
                let r = try Hostile.urna(command, in: dir)
                #expect(r.code == 64, "\(command): \(r.stderr)")
                #expect(r.stderr.contains("--db \(db) \(what)"), "\(r.stderr)")
                #expect(r.seconds < 30)
            }
        }
    }

    @Test("Inputs that are devices or FIFOs are refused (exit 66), never read forever")
    func inputsThatAreNotFiles() throws {
        let dir = try Hostile.folder()
        #expect(mkfifo(dir.appendingPathComponent("f").path, 0o644) == 0)
        for input in ["/dev/zero", "f"] {
            let r = try Hostile.urna(["import", "--db", "x.sqlite", input], in: dir)
            #expect(r.code == 66, "\(input): \(r.stderr)")
            #expect(r.stderr.contains("not a file"))
            #expect(r.seconds < 30)
        }
        #expect(Hostile.listing(dir) == ["f"])
    }

    @Test("Another application's empty SQLite file (application_id 1234) is never taken over")
    func foreignApplicationFile() throws {
        let dir = try Hostile.folder()
        let path = dir.appendingPathComponent("app.db").path
        try Hostile.sql(path, "PRAGMA application_id = 1234; CREATE TABLE t(a); DROP TABLE t")
        let before = Hostile.bytes(dir, "app.db")
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand.csv")
        for command in [["import", "--db", "app.db", cand], ["init", "--db", "app.db", "--family", "elections"]] {
            let r = try Hostile.urna(command, in: dir)
            #expect(r.code == 65, "\(r.stderr)")
            #expect(r.stderr.contains("application_id is 1234"))
            #expect(Hostile.bytes(dir, "app.db") == before)
        }
    }

    @Test("A damaged zip's message names the file once (no 'x.zip: x.zip:')")
    func fileNamedOnce() throws {
        let dir = try Hostile.folder()
        try Data("PK\u{5}\u{6}broken".utf8).write(to: dir.appendingPathComponent("x.zip"))
        let r = try Hostile.urna(["import", "--db", "x.sqlite", "x.zip"], in: dir)
        #expect(r.code != 0)
        #expect(r.stderr.contains("x.zip"))
        #expect(!r.stderr.contains("x.zip: x.zip"), "\(r.stderr)")
    }

    @Test("Bytes the declared XML encoding cannot convert: an Urna error with a location, no libxml2 text on stderr")
    func libxml2TextStaysOut() throws {
        let dir = try Hostile.folder()
        var xml = Array(
            "<?xml version=\"1.0\" encoding=\"windows-1252\"?>\n<candidatos><candidato><NM_CANDIDATO>Jo".utf8)
        xml += [0x81, 0xFF, 0xFE, 0x80] + Array("o</NM_CANDIDATO></candidato></candidatos>\n".utf8)
        try Data(xml).write(to: dir.appendingPathComponent("bad.xml"))
        let r = try Hostile.urna(["import", "--db", "x.sqlite", "bad.xml"], in: dir)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(!r.stderr.contains("encoding error :") && !r.stderr.contains("xmlParseChunk"), "\(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: bad.xml:2:"), "\(r.stderr)")
    }
}
