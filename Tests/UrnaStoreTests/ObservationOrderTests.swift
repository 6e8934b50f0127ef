import Foundation
import Synchronization
import Testing
import UrnaStore

/// Observers while several threads commit: every commit heard, in order, by observers old and new.
@Suite("Observation while other threads write")
struct ObservationOrderTests {
    static let schema = try! Schema(
        family: "order", version: 1,
        types: [ObjectSchema("Note", [Property("id", .int64, primaryKey: true), Property("n", .int64, default: 0)])])

    static func temporaryPath() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("notes.sqlite").path)
    }

    @Test("4 threads insert while a results observer counts: the counts it hears never go down, the last is final")
    func deliveriesFollowCommitOrder() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        let heard = Mutex<[Int]>([])
        let token = try store.objects("Note").observe { change in
            guard case .update(let count, _, _, _) = change else { return }
            // A slow observer (one that updates a view): concurrent deliveries overtake one another here.
            usleep(UInt32(count % 3) * 300)
            heard.withLock { $0.append(count) }
        }
        let group = DispatchGroup()
        for t in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                for i in 0..<50 { try? store.write { try store.create("Note", value: ["id": t * 1000 + i]) } }
                group.leave()
            }
        }
        group.wait()
        // When the observer is slower than the writers, the last deliveries may go on on a background thread
        // after the writes returned (so that no committing thread is kept delivering): wait for the last one.
        let deadline = Date().addingTimeInterval(10)
        while heard.withLock({ $0.last }) != 200 && Date() < deadline { usleep(10_000) }
        token.invalidate()
        let counts = heard.withLock { $0 }
        let regressions = zip(counts, counts.dropFirst()).filter { $1 < $0 }.count
        #expect(
            regressions == 0, "\(regressions) of \(counts.count) deliveries heard a smaller count than the one before")
        #expect(counts.last == 200)
    }

    @Test("A commit made between an observer's first snapshot and its registration is heard")
    func commitDuringObserveIsNotMissed() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        let heard = Mutex<[ResultsChange]>([])
        // `.initial` is delivered after the first snapshot and before the observer is registered: a commit made
        // there (by this callback, as another thread could at that moment) falls in between.
        let token = try store.objects("Note").observe { change in
            heard.withLock { $0.append(change) }
            if case .initial = change { try? store.write { try store.create("Note", value: ["id": 1]) } }
        }
        token.invalidate()
        #expect(
            heard.withLock { $0 }.contains(.update(count: 1, deletions: [], insertions: [0], modifications: [])),
            "heard: \(heard.withLock { $0 })")
    }

    @Test("A write returns while other threads keep committing to a slow observer (its delivery is bounded)")
    func committerIsNotKeptDelivering() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        let delivering = DispatchSemaphore(value: 0)
        let firstCall = Atomic<Bool>(true)
        let token = store.observe { _ in
            if firstCall.exchange(false, ordering: .relaxed) { delivering.signal() }
            usleep(20_000)
        }
        let mine = DispatchSemaphore(value: 0)
        let returned = Atomic<Bool>(false)
        Thread.detachNewThread {
            // This thread commits first, so it is the one calling the observer when the others start.
            try? store.write { try store.create("Note", value: ["id": 0]) }
            returned.store(true, ordering: .relaxed)
            mine.signal()
        }
        delivering.wait()
        let others = DispatchGroup()
        let hitDeadline = Atomic<Bool>(false)
        for t in 1...2 {
            others.enter()
            Thread.detachNewThread {
                var i = 0
                let deadline = Date().addingTimeInterval(10)
                // Before deliveries were bounded, the first thread delivered every change these queued, for as
                // long as they went on committing: its write returned only after they stopped.
                while !returned.load(ordering: .relaxed) && Date() < deadline {
                    i += 1
                    try? store.write { try store.create("Note", value: ["id": t * 1_000_000 + i]) }
                }
                if !returned.load(ordering: .relaxed) { hitDeadline.store(true, ordering: .relaxed) }
                others.leave()
            }
        }
        others.wait()
        mine.wait()
        token.invalidate()
        let waitedForOthers = hitDeadline.load(ordering: .relaxed)
        #expect(!waitedForOthers, "the first write returned only when the others stopped")
        #expect(try store.objects("Note").count > 1)
    }
}
