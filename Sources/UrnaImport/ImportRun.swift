import UrnaRecords

/// The state of one import while it runs: the loop over records, held assets, rejects, counts.
struct ImportRun {
    /// An asset read before its candidacy, kept until the end of the files.
    private struct HeldAsset {
        var objects: AssetObjects
        var location: SourceLocation
        var rawBytes: [UInt8]
        /// Index in `summary.files` of the file it came from.
        var fileReport: Int
    }

    let writer: ElectionStoreWriter
    let rejects: RejectsFile
    let maxErrors: Int?
    let progress: ImportProgress?
    let clock: ContinuousClock
    let started: ContinuousClock.Instant
    let bytesTotal: Int64
    let fileCount: Int

    private(set) var summary = ImportSummary()
    private var catalogue = CatalogueBuffer()
    private var held: [HeldAsset] = []
    private var rowsRead = 0
    private var bytesDone: Int64 = 0
    private var currentFile: String?
    private var fileIndex = 0
    /// Whether this input or a later one can still bring candidacies; once none can, an asset whose
    /// candidacy is missing is rejected at once instead of being held in memory to the end.
    private var candidaciesMayFollow = true

    /// How often (in rows) progress is reported.
    static let progressInterval = 8192

    init(
        writer: ElectionStoreWriter, rejects: RejectsFile, maxErrors: Int?,
        progress: ImportProgress?, clock: ContinuousClock, started: ContinuousClock.Instant, bytesTotal: Int64,
        fileCount: Int
    ) {
        self.writer = writer
        self.rejects = rejects
        self.maxErrors = maxErrors
        self.progress = progress
        self.clock = clock
        self.started = started
        self.bytesTotal = bytesTotal
        self.fileCount = fileCount
    }

    // MARK: - Reading

    /// Writes what every record of every input implies, as the pipeline delivers them.
    mutating func consume(_ pipeline: RecordPipeline, inputs: [ImportInput]) throws {
        var fileReport = ImportSummary.FileReport(path: "", layout: "", rows: 0, rejected: 0)
        try pipeline.drain { item in
            switch item {
            case .fileStart(let index):
                let input = inputs[index]
                fileIndex = index + 1
                currentFile = input.path
                fileReport = ImportSummary.FileReport(path: input.path, layout: input.layoutName, rows: 0, rejected: 0)
                candidaciesMayFollow = inputs[index...].contains { $0.mayHoldCandidacies }
                report(.reading, bytesRead: pipeline.bytesRead)
            case .mapped(let mapped, let record):
                rowsRead += 1
                if try !apply(mapped, record: record) { fileReport.rejected += 1 }
                if rowsRead % Self.progressInterval == 0 { report(.reading, bytesRead: pipeline.bytesRead) }
            case .reject(let location, let reason, let raw):
                rowsRead += 1
                fileReport.rejected += 1
                try reject(location, reason, raw)
            case .fileEnd(let rows):
                fileReport.rows = rows
                summary.files.append(fileReport)
                bytesDone += inputs[fileIndex - 1].size
            case .failure(let error):
                throw error
            }
        }
        currentFile = nil
    }

    /// Writes (or holds) what a record implies; false when it was rejected instead.
    private mutating func apply(_ mapped: MappedRecord, record: Record) throws -> Bool {
        switch mapped {
        case .candidacy(let c):
            catalogue.note(election: c.election)
            if let party = c.party { catalogue.note(party: party) }
            if let coalition = c.coalition { catalogue.note(coalition: coalition) }
            try writer.write(candidate: c.candidate)
        case .asset(let a):
            if let slot = try writer.goodsSlot(candidateID: a.good.candidateID) {
                try write(a, slot: slot)
            } else if !candidaciesMayFollow {
                try reject(record.location(of: "SQ_CANDIDATO"), Self.missingCandidacy(a.good.candidateID), record.rawBytes)
                return false
            } else {
                held.append(
                    HeldAsset(
                        objects: a, location: record.location(of: "SQ_CANDIDATO"), rawBytes: record.rawBytes,
                        fileReport: summary.files.count))
            }
        case .coalitionMember(let m):
            if let party = m.party { catalogue.note(party: party) }
            catalogue.note(coalition: m.coalition, member: m.party?.number)
        }
        return true
    }

    static func missingCandidacy(_ id: String) -> String {
        "no candidacy \(id) (CD_ELEICAO/SQ_CANDIDATO) in this file set or the database; import its consulta_cand file too"
    }

    private mutating func write(_ a: AssetObjects, slot: ElectionStoreWriter.GoodsSlot) throws {
        if let type = a.goodType { catalogue.note(goodType: type) }
        try writer.write(good: a.good, slot: slot)
    }

    // MARK: - After the files

    /// Writes the assets held for a candidacy, then the catalogues (elections, parties, coalitions, good types).
    mutating func finishRows() throws {
        report(.heldAssets)
        let waiting = held
        held = []
        for h in waiting {
            if let slot = try writer.goodsSlot(candidateID: h.objects.good.candidateID) {
                try write(h.objects, slot: slot)
                summary.heldAssets += 1
            } else {
                try reject(h.location, Self.missingCandidacy(h.objects.good.candidateID), h.rawBytes)
                if summary.files.indices.contains(h.fileReport) { summary.files[h.fileReport].rejected += 1 }
            }
        }
        report(.catalogues)
        try writer.flush(catalogue)
    }

    /// Links vices in every election the run touched; then the counts go into the summary.
    mutating func finishLinks() throws {
        report(.linkingVices)
        for election in catalogue.electionIDs { summary.headsWithVice += try writer.linkVices(election: election) }
        for (type, c) in writer.catalogueCounts { set(type, c) }
        set("Candidate", writer.candidateRows.counts)
        set("Good", writer.goodRows.counts)
    }

    private mutating func set(_ type: String, _ c: ObjectCounts) {
        summary.inserted[type] = c.inserted
        summary.updated[type] = c.updated
        summary.unchanged[type] = c.unchanged
    }

    // MARK: - Rejects and progress

    private mutating func reject(_ location: SourceLocation, _ reason: String, _ raw: [UInt8]) throws {
        try rejects.write(location: location, reason: reason, original: raw)
        summary.rejected += 1
        if let maxErrors, summary.rejected > maxErrors {
            try rejects.flush()
            throw ImportError.tooManyRejects(
                rejected: summary.rejected, maxErrors: maxErrors, rejectsFile: rejects.path)
        }
    }

    func report(_ phase: ImportProgressSnapshot.Phase, bytesRead: Int64? = nil) {
        guard let progress else { return }
        let d = clock.now - started
        let elapsed = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        progress.importProgress(
            ImportProgressSnapshot(
                phase: phase, file: phase == .reading ? currentFile : nil, fileIndex: fileIndex, fileCount: fileCount,
                bytesRead: min(max(bytesRead ?? bytesDone, bytesDone), bytesTotal), bytesTotal: bytesTotal,
                rowsRead: rowsRead, rejected: summary.rejected, elapsedSeconds: elapsed))
    }
}
