import Foundation
import Synchronization
import Testing
import UrnaStore

/// Several reads in one `read { }` / `asyncRead { }` come from one commit while other threads write.
@Suite("Reads of several objects in one read block")
struct ReadSnapshotTests {
    static let schema = try! Schema(
        family: "snapshot", version: 1,
        types: [
            ObjectSchema(
                "Account", [Property("id", .int64, primaryKey: true), Property("balance", .int64, default: 0)])
        ])

    static func temporaryPath() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-snapshot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("accounts.sqlite").path)
    }

    /// Moves one unit from account 1 to account 2 on another thread and waits for the commit (the sum stays 0).
    static func transferOnAnotherThread(_ store: Store) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? store.write {
                let a = try store.object(ofType: "Account", forPrimaryKey: .int(1))!
                let b = try store.object(ofType: "Account", forPrimaryKey: .int(2))!
                a["balance"] = .int(a["balance"].intValue! - 1)
                b["balance"] = .int(b["balance"].intValue! + 1)
            }
            done.signal()
        }
        done.wait()
    }

    static func makeStore(_ path: String) throws -> Store {
        let store = try Store(path: path, schema: Self.schema)
        try store.write {
            try store.create("Account", value: ["id": 1, "balance": 0])
            try store.create("Account", value: ["id": 2, "balance": 0])
        }
        return store
    }

    @Test("asyncRead: two accounts read around another thread's transfer add up to one commit's total")
    func asyncReadIsOneCommit() async throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Self.makeStore(path)
        let sum = try await store.asyncRead {
            let a = try store.object(ofType: "Account", forPrimaryKey: .int(1))!["balance"].intValue!
            Self.transferOnAnotherThread(store)
            let b = try store.object(ofType: "Account", forPrimaryKey: .int(2))!["balance"].intValue!
            return a + b
        }
        #expect(sum == 0, "a read of account 1 before the transfer and of account 2 after it")
        // After the block, reads see the transfer (nothing cached inside it passes for current).
        let after = try store.object(ofType: "Account", forPrimaryKey: .int(2))!["balance"]
        #expect(after == .int(1))
    }

    @Test("read: an object read before the block and one read inside agree; a write inside is refused")
    func readIsOneCommit() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Self.makeStore(path)
        let first = try #require(try store.object(ofType: "Account", forPrimaryKey: .int(1)))
        _ = first["balance"]  // cached before the block, from the commit before the transfer
        let (a, b): (Int64, Int64) = try store.read {
            let b = try store.object(ofType: "Account", forPrimaryKey: .int(2))!["balance"].intValue!
            Self.transferOnAnotherThread(store)
            let a = first["balance"].intValue!
            return (a, b)
        }
        #expect(a + b == 0, "a = \(a), b = \(b)")
        #expect(throws: StoreError.writeInsideRead) {
            try store.read { try store.write { try store.create("Account", value: ["id": 3]) } }
        }
        #expect(try store.objects("Account").count == 2)
        // A write after the block works (the refused one left no lock behind).
        try store.write { try store.create("Account", value: ["id": 3]) }
        #expect(try store.objects("Account").count == 3)
    }
}
