import Foundation
import Testing
import UrnaImport
import UrnaStore

/// An import lets go of everything it opened once it returns: input files, the database, the rejects file.
/// (Its reading thread used to keep the whole pipeline alive through a reference cycle, with the inputs'
/// file descriptors and the last batches of records; a long-running process leaked them on every import.)
@Suite struct ResourceReleaseTests {
    /// Paths the process has open below `folder` (from /proc/self/fd; other tests' files live elsewhere).
    static func openFiles(under folder: String) -> [String] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.hasPrefix(folder + "/") }
    }

    @Test func csvAndXMLImportsCloseEveryFile() throws {
        let folder = try ImportTestSupport.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var inputs: [String] = []
        for name in [
            "sample_consulta_cand_2018_MG.58col.csv", "sample_bem_candidato_2018_MG.csv", "export/utf8_candidato.xml",
        ] {
            let copy = (folder as NSString).appendingPathComponent((name as NSString).lastPathComponent)
            try FileManager.default.copyItem(atPath: ImportTestSupport.fixture(name), toPath: copy)
            inputs.append(copy)
        }
        let db = (folder as NSString).appendingPathComponent("urna.sqlite")
        for _ in 0..<2 {
            let summary = try ImportTestSupport.importFiles(inputs, into: db)
            #expect(summary.inserted.values.reduce(0, +) + summary.unchanged.values.reduce(0, +) > 0)
            // The reading thread may still be winding down for a moment after `run` returned.
            var open = Self.openFiles(under: folder)
            for _ in 0..<50 where !open.isEmpty {
                usleep(20_000)
                open = Self.openFiles(under: folder)
            }
            #expect(open == [], "still open after the import: \(open)")
        }
    }
}
