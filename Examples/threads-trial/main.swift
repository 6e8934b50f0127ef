import Foundation
import UrnaStore

// The fourth, fifth and sixth threads trials: a Swift 6 app that hammers one store file from threads, tasks, actors and processes.
let args = CommandLine.arguments
switch args.count > 1 ? args[1] : "all" {
case "child-hammer": try Hammer.child(path: args[2], n: Int(args[3])!)
case "child-entries": try Processes.childEntries(path: args[2])
case "child-batches": try Processes.childBatches(path: args[2])
case "child-stores": try Owners.childStores(path: args[2], tag: args[3])
case "child-migrate": await MigrationRace.child(path: args[2])
case "child-lifetime": try await Lifetimes.child(args[2], path: args[3])
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
    // The fifth trial.
    if wanted("streams") { try await watchdog("streams", seconds: 120) { try await Streams.manyConsumers() } }
    if wanted("results-streams") {
        try await watchdog("results-streams", seconds: 120) { try await Streams.resultsStreams() }
    }
    if wanted("released-streams") {
        try await watchdog("released-streams", seconds: 120) {
            try await Streams.storeReleased(withResults: false)
            try await Streams.storeReleased(withResults: true)
        }
    }
    if wanted("lifetimes") { try await watchdog("lifetimes", seconds: 180) { try await Lifetimes.run() } }
    if wanted("on-cancel") {
        try await watchdog("on-cancel", seconds: 60) { try await Sending.cancellationHandlerWrites() }
    }
    if wanted("sending") { try await watchdog("sending", seconds: 120) { try await Sending.run() } }
    if wanted("actor") { try await watchdog("actor", seconds: 180) { try await Owners.actorOwned() } }
    if wanted("flood") { try await watchdog("flood", seconds: 180) { try await Owners.flood() } }
    if wanted("stores") { try await watchdog("stores", seconds: 180) { try await Owners.manyStores() } }
    if wanted("processes") { try await watchdog("processes", seconds: 180) { try await Owners.twoProcesses() } }
    if wanted("migration-race") {
        try await watchdog("migration-race", seconds: 240) { try await MigrationRace.run() }
    }
    // The sixth trial.
    if wanted("raw-transactions") {
        try await watchdog("raw-transactions", seconds: 120) { try Sixth.rawTransactions() }
    }
    if wanted("cached-statements") {
        try await watchdog("cached-statements", seconds: 120) { try Sixth.cachedStatements() }
    }
    if wanted("cancel-mid-body") {
        try await watchdog("cancel-mid-body", seconds: 120) { try await Sixth.cancelledMidBody() }
    }
    if wanted("observer-writes") {
        try await watchdog("observer-writes", seconds: 120) { try Sixth.observerThatWrites() }
    }
    if wanted("priorities") { try await watchdog("priorities", seconds: 120) { try await Sixth.priorities() } }
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
