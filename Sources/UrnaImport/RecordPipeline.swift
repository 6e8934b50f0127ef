import Foundation
import UrnaRecords
import UrnaStore

/// What the reading side hands to the writing side, in file order.
enum PipelineItem: Sendable {
    /// The next input starts (index into the run's inputs).
    case fileStart(Int)
    /// A record and the objects it implies; the record stays for held assets (location, bytes).
    case mapped(MappedRecord, Record)
    /// A row that cannot be imported: where, why, and its original bytes.
    case reject(SourceLocation, String, [UInt8])
    /// Something the summary must say of the input being read (how its dates are written).
    case warning(String)
    /// The input ended after `rows` rows.
    case fileEnd(rows: Int)
    /// Reading failed: the import must stop and roll back.
    case failure(ImportError)
}

/// Reads and maps records on a second thread while the caller's thread writes, so parsing and
/// SQLite overlap (they cost about the same per row). Items arrive in order, in batches, through a
/// small bounded queue: memory stays flat and the reader never runs far ahead.
///
/// The store is only ever touched by the caller's thread; the reader thread owns the inputs and the
/// mapper for the whole run.
final class RecordPipeline: @unchecked Sendable {
    /// Items per batch handed across threads, and how many batches may wait.
    static let batchSize = 1024
    static let queueDepth = 8
    /// Asset rows gathered and put in candidacy order before they are handed over. TSE asset files are
    /// in no useful order, so consecutive goods land on random pages of the goods table's key index and
    /// of the `goods` list; in candidacy order they touch neighbouring pages (a fifth less writing-thread
    /// time in the benchmark). The order of a candidacy's own goods, hence their list positions, is kept. Only
    /// CSV asset files are sorted so: they hold nothing but assets, so no asset moves past another kind of record.
    static let assetRunLength = 16_384
    /// Sorted asset batches may fill a longer queue: one whole run waits there while the next is gathered,
    /// so the writing thread never stands idle for a run to be read (about 15 MB at most; asset items are small).
    static let assetQueueDepth = queueDepth + assetRunLength / batchSize

    private let inputs: [ImportInput]
    private let mapper: ElectionMapper
    private let condition = NSCondition()
    private var queue: [[PipelineItem]] = []
    private var producerDone = false
    private var cancelled = false
    private var bytesReadShared: Int64 = 0
    /// Whether the reading thread was started (`cancel` then waits for `producerDone`).
    private var started = false
    /// Batches the writer is done with, dropped by the reader thread: memory is freed by the thread
    /// that allocated it, which keeps the two threads from contending for malloc's locks.
    private var recycled: [[PipelineItem]] = []

    /// The order every file's slash dates are read in, when the person asked for one (`ImportOptions.dateOrder`):
    /// no file's rows are then held back to look at their dates.
    private let dateOrder: TSEDate.Order?

    init(inputs: [ImportInput], mapper: ElectionMapper, dateOrder: TSEDate.Order? = nil) {
        self.inputs = inputs
        self.mapper = mapper
        self.dateOrder = dateOrder
    }

    deinit { cancel() }

    /// Starts the reading thread.
    func start() {
        condition.lock()
        started = true
        condition.unlock()
        startWorkerThread(named: "urna-import-reader") { [self] in produce() }
    }

    /// Calls `body` with every item in order, until every input has been read or `body` throws.
    ///
    /// Items are lent to `body`, not copied out of their batch: a candidacy row holds some forty
    /// references, and copying them cost more than the SQLite insert.
    func drain(_ body: (PipelineItem) throws -> Void) rethrows {
        while let batch = nextBatch() {
            defer { recycle(batch) }
            for i in batch.indices { try body(batch[i]) }
        }
    }

    /// The next batch, waiting for the reader; nil when everything was read.
    private func nextBatch() -> [PipelineItem]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !producerDone { condition.wait() }
        if queue.isEmpty { return nil }
        let batch = queue.removeFirst()
        condition.broadcast()
        return batch
    }

    /// Hands a finished batch back, so the reader thread frees what it allocated.
    private func recycle(_ batch: consuming [PipelineItem]) {
        condition.lock()
        recycled.append(batch)
        condition.unlock()
    }

    /// Bytes of input consumed by the reader so far (for progress).
    var bytesRead: Int64 {
        condition.lock()
        defer { condition.unlock() }
        return bytesReadShared
    }

    /// Stops the reader and waits until its thread has let go of the inputs; safe to call more than once.
    func cancel() {
        condition.lock()
        cancelled = true
        queue.removeAll()
        condition.broadcast()
        while started && !producerDone { condition.wait() }
        condition.unlock()
    }

    // MARK: - Reading thread

    private func produce() {
        var batch: [PipelineItem] = []
        batch.reserveCapacity(Self.batchSize)
        var bytesBefore: Int64 = 0
        defer {
            condition.lock()
            if !batch.isEmpty && !cancelled { queue.append(batch) }
            producerDone = true
            condition.broadcast()
            condition.unlock()
        }
        var assets: [PipelineItem?] = []  // taken out (moved, not copied) when flushed
        var assetKeys: [AssetOrderKey] = []
        assets.reserveCapacity(Self.assetRunLength)
        assetKeys.reserveCapacity(Self.assetRunLength)
        /// Moves the gathered asset rows into the outgoing batches, in candidacy order; `bytesRead` is the
        /// progress to report with them.
        func flushAssets(_ bytesRead: Int64) -> Bool {
            guard !assets.isEmpty else { return true }
            for index in AssetOrderKey.sortedIndices(assetKeys) {
                batch.append(assets[Int(index)].take()!)
                if batch.count >= Self.batchSize, !send(&batch, bytesRead: bytesRead, depth: Self.assetQueueDepth) {
                    return false
                }
            }
            assets.removeAll(keepingCapacity: true)
            assetKeys.removeAll(keepingCapacity: true)
            return true
        }
        for (index, input) in inputs.enumerated() {
            // Only CSV asset files (nothing but assets) are sorted in runs: in an XML dump a candidacy's goods
            // already come together, after it.
            let sortsAssets = !input.mayHoldCandidacies
            batch.append(.fileStart(index))
            mapper.startFile()
            var rows = 0
            // A file's (or zip member's) first records wait until its dates show their order.
            var sniffer = DateOrderSniffer()
            var held: [RecordOrReject] = []
            var heldBytes = 0
            var sniffing = dateOrder == nil
            if let dateOrder {
                mapper.dateOrder = dateOrder
                mapper.columnDateOrders = [:]
                mapper.dateOrderShown = true
                mapper.dateOrderAsked = true
            }
            /// Maps one row and queues what it gives; false once the run was cancelled.
            func handle(_ item: RecordOrReject) -> Bool {
                switch item {
                case .reject(let bad):
                    batch.append(.reject(bad.location, bad.reason, bad.rawBytes))
                case .record(let record):
                    switch mapper.map(record) {
                    case .success(.asset(let a)) where sortsAssets:
                        assetKeys.append(AssetOrderKey(candidateID: a.good.candidateID, index: assets.count))
                        assets.append(.mapped(.asset(a), record))
                        if assets.count >= Self.assetRunLength {
                            guard flushAssets(bytesBefore + input.bytesRead) else { return false }
                        }
                    case .success(let mapped): batch.append(.mapped(mapped, record))
                    case .failure(let problem): batch.append(.reject(problem.location, problem.reason, record.rawBytes))
                    }
                }
                if batch.count >= Self.batchSize {
                    return send(&batch, bytesRead: bytesBefore + input.bytesRead)
                }
                return true
            }
            /// Sets the order the held rows showed and maps them; false once the run was cancelled.
            func decide() -> Bool {
                mapper.dateOrder = sniffer.order
                mapper.columnDateOrders = sniffer.columnOrders
                mapper.dateOrderShown = sniffer.hasEvidence
                if let warning = sniffer.warning { batch.append(.warning(warning)) }
                sniffing = false
                let waiting = held
                held.removeAll()
                heldBytes = 0
                for item in waiting { guard handle(item) else { return false } }
                return true
            }
            while true {
                let item: RecordOrReject?
                do {
                    item = try input.next()
                } catch {
                    let e = error as? RecordFileError
                    batch.append(
                        .failure(
                            ImportError.unreadableFile(
                                file: e?.file ?? input.path, reason: e?.reasonWithoutFile ?? "\(error)")))
                    return
                }
                guard let item else { break }
                rows += 1
                if case .record(let record) = item, let file = sniffer.file, file != record.location.file {
                    // The next member of a zip: its dates are its own.
                    if sniffing { guard decide() else { return } }
                    sniffer = DateOrderSniffer()
                    sniffing = true
                }
                guard sniffing else {
                    guard handle(item) else { return }
                    continue
                }
                if case .record(let record) = item { sniffer.observe(record) }
                held.append(item)
                heldBytes += DateOrderSniffer.heldSize(item)
                if sniffer.isDecided(heldBytes: heldBytes) { guard decide() else { return } }
            }
            if sniffing { guard decide() else { return } }
            guard flushAssets(bytesBefore + input.bytesRead) else { return }
            batch.append(.fileEnd(rows: rows))
            bytesBefore += input.size
        }
        _ = send(&batch, bytesRead: bytesBefore)
    }

    /// Queues a batch, waiting while `depth` batches wait already; false once the run was cancelled.
    private func send(_ batch: inout [PipelineItem], bytesRead: Int64, depth: Int = RecordPipeline.queueDepth) -> Bool {
        condition.lock()
        while queue.count >= depth && !cancelled { condition.wait() }
        if cancelled {
            condition.unlock()
            return false
        }
        let done = recycled
        recycled = []
        defer {
            condition.unlock()
            _ = done  // released here, on the reader thread, outside the lock
        }
        queue.append(batch)
        bytesReadShared = bytesRead
        condition.broadcast()
        batch = []
        batch.reserveCapacity(Self.batchSize)
        return true
    }
}

/// Where an asset row goes when a run of them is put in candidacy order: the candidacy id (String's
/// comparison, a memcmp for the ASCII, accent-folded ids: SQLite's order for the text keys), then arrival,
/// so a candidacy's goods stay in file order and sit next to each other.
struct AssetOrderKey: Comparable {
    var id: String
    var index: Int32

    init(candidateID: String, index: Int) {
        self.id = candidateID
        self.index = Int32(truncatingIfNeeded: index)
    }

    static func < (a: AssetOrderKey, b: AssetOrderKey) -> Bool { (a.id, a.index) < (b.id, b.index) }

    /// The keys' `index`es in the keys' order. When every id is ASCII (the usual case) they are sorted as
    /// bytes copied side by side, compared with `memcmp`: the same order as String's (bytes, a prefix first),
    /// without String's comparison machinery on ids that share their first fifty bytes.
    static func sortedIndices(_ keys: [AssetOrderKey]) -> [Int32] {
        var arena: [UInt8] = []
        arena.reserveCapacity(keys.count * 64)
        var spans: [(start: Int32, length: Int32, index: Int32)] = []
        spans.reserveCapacity(keys.count)
        for key in keys {
            var id = key.id
            id.withUTF8 { bytes in
                spans.append(
                    (Int32(truncatingIfNeeded: arena.count), Int32(truncatingIfNeeded: bytes.count), key.index))
                arena.append(contentsOf: bytes)
            }
        }
        let ascii = !arena.withUnsafeBufferPointer(TextEncoding.containsNonASCII)
        guard ascii, arena.count <= Int(Int32.max) else { return keys.sorted().map(\.index) }
        arena.withUnsafeBufferPointer { all in
            let base = all.baseAddress
            spans.sort { a, b in
                let n = Int(min(a.length, b.length))
                if n > 0, let base {
                    let c = memcmp(base + Int(a.start), base + Int(b.start), n)
                    if c != 0 { return c < 0 }
                }
                if a.length != b.length { return a.length < b.length }
                return a.index < b.index
            }
        }
        return spans.map(\.index)
    }
}
