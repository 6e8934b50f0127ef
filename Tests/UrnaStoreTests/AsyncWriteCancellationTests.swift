import Dispatch
import Foundation
import Testing
import UrnaStore

/// `asyncWrite` and task cancellation: a task cancelled before its write begins writes nothing and throws
/// `CancellationError`; a write whose body has begun commits (or rolls back) as a whole.
@Suite("asyncWrite and task cancellation")
struct AsyncWriteCancellationTests {
    static let schema = try! Schema(
        family: "cancel", version: 1,
        types: [ObjectSchema("Note", [Property("id", .int64, primaryKey: true)])])

    @Test("A task cancelled before asyncWrite throws CancellationError and writes nothing (100 tasks)")
    func cancelledBeforeCall() async throws {
        let store = try Store.inMemory(schema: Self.schema)
        for i in 0..<100 {
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await store.asyncWrite { _ = try store.create("Note", value: ["id": i]) }
            }
            await #expect(throws: CancellationError.self) { try await task.value }
        }
        #expect(try store.objects("Note").count == 0)
    }

    @Test("A task cancelled while another write holds the store throws CancellationError and writes nothing")
    func cancelledWhileWaiting() async throws {
        let store = try Store.inMemory(schema: Self.schema)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = DispatchGroup()
        // The other write runs on a thread of its own (blocking it must not take a thread from the task pool).
        DispatchQueue.global().async(group: holder) {
            try? store.write {
                _ = try store.create("Note", value: ["id": 1])
                holding.signal()
                release.wait()
            }
        }
        await Self.wait(holding)  // the other write is open
        let task = Task { try await store.asyncWrite { _ = try store.create("Note", value: ["id": 2]) } }
        task.cancel()
        release.signal()
        await withCheckedContinuation { c in holder.notify(queue: .global()) { c.resume() } }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try store.objects("Note").count == 1)
    }

    @Test("A write whose body has begun commits as a whole when its task is cancelled meanwhile")
    func cancelledAfterBodyBegan() async throws {
        let store = try Store.inMemory(schema: Self.schema)
        let (begun, begunContinuation) = AsyncStream<Void>.makeStream()
        let proceed = DispatchSemaphore(value: 0)
        let task = Task {
            try await store.asyncWrite {
                _ = try store.create("Note", value: ["id": 1])
                begunContinuation.yield()
                proceed.wait()
                _ = try store.create("Note", value: ["id": 2])
            }
        }
        for await _ in begun { break }
        task.cancel()
        proceed.signal()
        try await task.value
        #expect(try store.objects("Note").count == 2)
    }

    /// Waits for `semaphore` on a Dispatch thread, not on one of the task pool's.
    static func wait(_ semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { c in
            DispatchQueue.global().async {
                semaphore.wait()
                c.resume()
            }
        }
    }
}
