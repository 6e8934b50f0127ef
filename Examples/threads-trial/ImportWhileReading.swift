import Foundation
import UrnaStore

/// `urna import` (another process) runs while this app reads the file through a Store opened on it: every read in
/// `store.read { }` must see the file before the import or after it, never between; reads outside it never fail.
enum ImportWhileReading {
    static func run(urna: String, fixtures: String) async throws {
        let tally = Tally()
        let path = Files.fresh("import.sqlite")
        guard FileManager.default.fileExists(atPath: urna) else {
            print("== import while reading: skipped (no urna binary at \(urna))")
            return
        }
        func importFiles(_ files: [String]) throws -> Process {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: urna)
            p.arguments = ["import", "--db", path] + files.map { fixtures + "/" + $0 }
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            return p
        }
        let first = try importFiles(["consulta_cand_2018_MG.csv.zip"])
        first.waitUntilExit()
        let store = try Store.openExisting(path: path)
        func pair() throws -> String {
            try store.read {
                "\(try store.objects("Candidate").count)/\(try store.objects("Good").count)"
            }
        }
        let before = try pair()
        let changes = Tally()
        let token = store.observe { _ in changes.add("observer calls") }
        let second = try importFiles(["consulta_cand_2018_BRASIL.csv.zip", "bem_candidato_2018_MG.csv.zip"])
        var seen: [String: Int] = [:]
        while second.isRunning {
            do {
                seen[try pair(), default: 0] += 1
                _ = try store.objects("Candidate").filter("name BEGINSWITH %@", "A").count
            } catch {
                tally.add("read errors")
                tally.note("\(error)")
            }
        }
        second.waitUntilExit()
        let after = try pair()
        try await Task.sleep(for: .milliseconds(600))
        tally.add("import exit status", Int(second.terminationStatus))
        tally.add("reads", seen.values.reduce(0, +))
        tally.add("distinct snapshots seen", seen.count)
        tally.add("snapshots neither before nor after (torn)", seen.keys.filter { $0 != before && $0 != after }.count)
        tally.add("observer calls", changes["observer calls"])
        tally.note("before \(before), after \(after), seen \(seen)")
        let sqliteAfter =
            SQLite3.query(path, "SELECT count(*) FROM Candidate") + "/"
            + SQLite3.query(path, "SELECT count(*) FROM Good")
        tally.add("store's last read equals sqlite3's", after == sqliteAfter ? 1 : 0)
        token.invalidate()
        tally.report("urna import in another process while the app reads")
    }
}
