import UrnaRecords
import UrnaStore

/// The state of one import while it runs: the loop over records, held assets, rejects, counts.
struct ImportRun {
    /// An asset read before its candidacy, kept until the end of the files.
    private struct HeldAsset {
        var objects: AssetObjects
        var location: SourceLocation
        var rawBytes: [UInt8]
    }

    let store: Store
    let writer: ElectionStoreWriter
    let mapper: ElectionMapper
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
    private var currentInput: ImportInput?
    private var fileIndex = 0

    /// How often (in rows) progress is reported.
    static let progressInterval = 8192

    init(
        store: Store, writer: ElectionStoreWriter, mapper: ElectionMapper, rejects: RejectsFile, maxErrors: Int?,
        progress: ImportProgress?, clock: ContinuousClock, started: ContinuousClock.Instant, bytesTotal: Int64,
        fileCount: Int
    ) {
        self.store = store
        self.writer = writer
        self.mapper = mapper
        self.rejects = rejects
        self.maxErrors = maxErrors
        self.progress = progress
        self.clock = clock
        self.started = started
        self.bytesTotal = bytesTotal
        self.fileCount = fileCount
    }

    // MARK: - Reading

    /// Reads every record of one input and writes what it implies.
    mutating func read(_ input: ImportInput, index: Int) throws {
        fileIndex = index
        currentFile = input.path
        currentInput = input
        var fileReport = ImportSummary.FileReport(path: input.path, layout: input.layoutName, rows: 0, rejected: 0)
        report(.reading)
        defer {
            bytesDone += input.size
            currentInput = nil
        }
        while true {
            let item: RecordOrReject?
            do {
                item = try input.next()
            } catch {
                throw ImportError.unreadableFile(file: input.path, reason: "\(error)")
            }
            guard let item else { break }
            fileReport.rows += 1
            rowsRead += 1
            switch item {
            case .reject(let bad):
                fileReport.rejected += 1
                try reject(bad.location, bad.reason, bad.rawBytes)
            case .record(let record):
                switch mapper.map(record) {
                case .failure(let problem):
                    fileReport.rejected += 1
                    try reject(problem.location, problem.reason, record.rawBytes)
                case .success(let mapped):
                    try apply(mapped, record: record)
                }
            }
            if rowsRead % Self.progressInterval == 0 { self.report(.reading) }
        }
        summary.files.append(fileReport)
    }

    private mutating func apply(_ mapped: MappedRecord, record: Record) throws {
        switch mapped {
        case .candidacy(let c):
            catalogue.note(election: c.election)
            if let party = c.party { catalogue.note(party: party) }
            if let coalition = c.coalition { catalogue.note(coalition: coalition) }
            try writer.write(candidate: c.candidate)
        case .asset(let a):
            if let rowid = try writer.candidateRowid(id: a.good.candidateID) {
                try write(a, candidateRowid: rowid)
            } else {
                held.append(HeldAsset(objects: a, location: record.location(of: "SQ_CANDIDATO"), rawBytes: record.rawBytes))
            }
        case .coalitionMember(let m):
            if let party = m.party { catalogue.note(party: party) }
            catalogue.note(coalition: m.coalition, member: m.party?.number)
        }
    }

    private mutating func write(_ a: AssetObjects, candidateRowid: Int64) throws {
        if let type = a.goodType { catalogue.note(goodType: type) }
        try writer.write(good: a.good, candidateRowid: candidateRowid)
    }

    // MARK: - After the files

    /// Writes the assets held for a candidacy, then the catalogues (elections, parties, coalitions, good types).
    mutating func finishRows() throws {
        currentFile = nil
        report(.heldAssets)
        let waiting = held
        held = []
        for h in waiting {
            if let rowid = try writer.candidateRowid(id: h.objects.good.candidateID) {
                try write(h.objects, candidateRowid: rowid)
                summary.heldAssets += 1
            } else {
                try reject(
                    h.location,
                    "no candidacy \(h.objects.good.candidateID) (CD_ELEICAO/SQ_CANDIDATO) in this file set or the "
                        + "database; import its consulta_cand file too",
                    h.rawBytes)
                if let i = summary.files.lastIndex(where: { h.location.file.hasPrefix(fileName($0.path)) }) {
                    summary.files[i].rejected += 1
                }
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
            throw ImportError.tooManyRejects(rejected: summary.rejected, maxErrors: maxErrors, rejectsFile: rejects.path)
        }
    }

    func report(_ phase: ImportProgressSnapshot.Phase) {
        guard let progress else { return }
        let d = clock.now - started
        let elapsed = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        let bytes = phase == .reading ? bytesDone + (currentInput?.bytesRead ?? 0) : bytesDone
        progress.importProgress(
            ImportProgressSnapshot(
                phase: phase, file: phase == .reading ? currentFile : nil, fileIndex: fileIndex, fileCount: fileCount,
                bytesRead: min(bytes, bytesTotal), bytesTotal: bytesTotal, rowsRead: rowsRead,
                rejected: summary.rejected, elapsedSeconds: elapsed))
    }

    private func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
