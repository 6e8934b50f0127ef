import Foundation
import UrnaStore

// The fourth threads trial: a Swift 6 app that hammers one store file from threads, tasks, actors and processes.
let args = CommandLine.arguments
switch args.count > 1 ? args[1] : "all" {
case "child-hammer": try Hammer.child(path: args[2], n: Int(args[3])!)
case "child-entries": try Processes.childEntries(path: args[2])
case "child-batches": try Processes.childBatches(path: args[2])
default:
    let only = Set(args.dropFirst())
    func wanted(_ name: String) -> Bool { only.isEmpty || only.contains(name) }
    if wanted("hammer") { try await watchdog("hammer", seconds: 300) { try await Hammer.run() } }
    if wanted("reentrant") { try await watchdog("reentrant", seconds: 60) { try await Reentrancy.run() } }
    if wanted("raw") { try Probes.rawStatementDuringWrite() }
    if wanted("released") { try Probes.releasedStore() }
    if wanted("deleted") { try Probes.deletedOwnerList() }
    if wanted("observe-read") { try await Probes.observeInsideRead() }
    if wanted("cancel") { try await watchdog("cancel", seconds: 120) { try await Busy.cancellation() } }
    if wanted("lists") { try await watchdog("lists", seconds: 120) { try await Busy.lists() } }
    if wanted("observers") { try await watchdog("observers", seconds: 120) { try await Busy.observers() } }
    if wanted("lazy") { try await watchdog("lazy", seconds: 120) { try await Busy.lazyResults() } }
    if wanted("migrate") {
        try await watchdog("migrate", seconds: 180) {
            try await Processes.migrationWhileChildWrites(cancelFirst: false)
        }
    }
    if wanted("migrate-cancel") {
        try await watchdog("migrate-cancel", seconds: 180) {
            try await Processes.migrationWhileChildWrites(cancelFirst: true)
        }
    }
    if wanted("kill") { try await watchdog("kill", seconds: 120) { try await Processes.killNine() } }
    if wanted("full") { try Processes.diskFull() }
    if wanted("import") {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        try await watchdog("import", seconds: 180) {
            try await ImportWhileReading.run(
                urna: root.appendingPathComponent(".build/debug/urna").path,
                fixtures: root.appendingPathComponent("Tests/UrnaImportTests/Fixtures").path)
        }
    }
}
