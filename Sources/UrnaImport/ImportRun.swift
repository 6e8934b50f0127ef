import UrnaRecords
import UrnaStore

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
    var catalogue = CatalogueBuffer()
    private var held: [HeldAsset] = []
    private var rowsRead = 0
    /// Values that disagreed with a stored row of the same generation (said per value in the rejects file).
    private var sameGenerationTies = 0
    private var bytesDone: Int64 = 0
    private var currentFile: String?
    private var fileIndex = 0
    /// Whether this input or a later one can still bring candidacies; once none can, an asset whose
    /// candidacy is missing is rejected at once instead of being held in memory to the end.
    private var candidaciesMayFollow = true
    /// Goods whose candidacy is missing, kept in the database for a later run (`PendingGoods`).
    private var pending: PendingGoods?
    private var keptAside = 0

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
            case .warning(let text):
                summary.warnings.append(text)
            case .fileEnd(let rows):
                // Read to its end on the reading thread (the pipeline hands this event over after it): every
                // member it skipped is known now.
                let input = inputs[fileIndex - 1]
                let warnings = input.warnings
                summary.warnings += warnings
                if rows == 0 && warnings.isEmpty {
                    summary.warnings.append("\(input.path): no rows after its header; nothing was read from it")
                }
                fileReport.rows = rows
                summary.files.append(fileReport)
                bytesDone += input.size
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
            try warn(c.warnings)
            catalogue.note(election: c.election, at: record.location)
            if let party = c.party { catalogue.note(party: party, at: record.location) }
            if let coalition = c.coalition { catalogue.note(coalition: coalition, at: record.location) }
            try reportCatalogueTies(record.location, record.rawBytes)
            let outcome = try writer.write(candidate: c.candidate)
            if case .conflict(_, let reason) = outcome {
                try conflict(record.location(of: "NM_CANDIDATO"), reason, record.rawBytes)
                return false
            }
            try reportTies(writer.candidateTies, of: "Candidate", record.location(of: "SQ_CANDIDATO"), record.rawBytes)
            summary.rows.count(outcome)
        case .asset(let a):
            try warn(a.warnings)
            switch try resolve(a) {
            case .found(let objects):
                if let slot = try writer.goodsSlot(candidateID: objects.good.candidateID) {
                    return try write(objects, slot: slot, record.location(of: "SQ_CANDIDATO"), record.rawBytes)
                } else if !candidaciesMayFollow {
                    try keepAside(a, record.location(of: "SQ_CANDIDATO"), record.rawBytes)
                    return false
                }
            case .ambiguous:
                try conflict(record.location(of: "SQ_CANDIDATO"), Self.ambiguousCandidacy(a.good), record.rawBytes)
                return false
            case .none:
                if !candidaciesMayFollow {
                    try keepAside(a, record.location(of: "SQ_CANDIDATO"), record.rawBytes)
                    return false
                }
            }
            held.append(
                HeldAsset(
                    objects: a, location: record.location(of: "SQ_CANDIDATO"), rawBytes: record.rawBytes,
                    fileReport: summary.files.count))
        case .coalitionMember(let m):
            try warn(m.warnings)
            if let party = m.party { catalogue.note(party: party, at: record.location) }
            catalogue.note(coalition: m.coalition, member: m.party?.id, at: record.location)
            try reportCatalogueTies(record.location, record.rawBytes)
            summary.rows.legend += 1
        }
        return true
    }

    /// The asset with its candidacy settled (layouts without SG_UE find it by election + SQ_CANDIDATO).
    private enum Resolved {
        case found(AssetObjects)
        case none
        case ambiguous
    }

    private func resolve(_ a: AssetObjects) throws -> Resolved {
        guard a.good.needsLookup else {
            // A good kept aside by an earlier run comes back without its type's year.
            if a.good.typeKey == nil && a.good.typeID != nil { return .found(Self.settlingType(a, a.good)) }
            return .found(a)
        }
        var good = a.good
        if let code = good.lookupElectionCode {
            // Named by CD_ELEICAO alone: its first round, as read in this run or stored.
            guard let election = try catalogue.electionID(code: code) ?? writer.electionID(code: code) else {
                return .none
            }
            good.lookupElectionCode = nil
            if let unit = good.lookupUnit {
                good.candidateID = ElectionMapper.childID(ElectionMapper.childID(election, unit), good.sequence)
                good.lookupUnit = nil
            } else {
                good.lookupElectionID = election
            }
        }
        if good.lookupElectionID != nil {
            switch try writer.resolve(good) {
            case .none: return .none
            case .ambiguous: return .ambiguous
            case .found(let id):
                good.candidateID = id
                good.lookupElectionID = nil
            }
        }
        good.id = ElectionMapper.childID(good.candidateID, good.order)
        return .found(Self.settlingType(a, good))
    }

    /// `a` with `good` (its candidacy settled) and its type keyed by that candidacy's election year.
    private static func settlingType(_ a: AssetObjects, _ good: GoodValues) -> AssetObjects {
        var type = a.goodType
        type?.year = good.typeYear
        return AssetObjects(good: good.settlingType(), goodType: type, election: a.election, warnings: [])
    }

    static func missingCandidacy(_ good: GoodValues) -> String {
        let id =
            good.lookupElectionCode.map { "CD_ELEICAO \($0)/\(good.lookupUnit ?? "<any SG_UE>")/\(good.sequence)" }
            ?? good.lookupElectionID.map { "\($0)/<any SG_UE>/\(good.sequence)" } ?? good.candidateID
        return "no candidacy \(id) (election/SG_UE/SQ_CANDIDATO) in this file set or the database; import its "
            + "consulta_cand file too (the good is kept aside in \(StorageLayout.pendingGoodsTable) and attached by "
            + "the import that brings its candidacy)"
    }

    /// A good whose candidacy is missing: counted and said as a reject, and kept in the database for a later run.
    private mutating func keepAside(_ a: AssetObjects, _ location: SourceLocation, _ raw: [UInt8]) throws {
        try reject(location, Self.missingCandidacy(a.good), raw)
        if pending == nil { pending = try PendingGoods(connection: writer.connection) }
        try pending!.keep(a, location: location, original: raw)
        keptAside += 1
    }

    /// Attaches the goods earlier runs kept aside whose candidacy is now stored (not rows of this run: counted
    /// in the Good type's counts and a warning only).
    private mutating func attachPendingGoods() throws {
        if pending == nil { pending = try PendingGoods(connection: writer.connection) }
        var attached = 0
        var after: String?
        while true {
            let waiting = try pending!.batch(after: after)
            guard let last = waiting.last else { break }
            after = last.payload
            for entry in waiting {
                guard case .found(let objects) = try resolve(entry.objects),
                    let slot = try writer.goodsSlot(candidateID: objects.good.candidateID)
                else { continue }
                if let type = objects.goodType { catalogue.note(goodType: type, at: entry.location) }
                if let election = objects.election { catalogue.note(election: election, at: entry.location) }
                try reportCatalogueTies(entry.location, entry.original)
                let outcome = try writer.write(good: objects.good, slot: slot)
                if case .conflict(_, let reason) = outcome {
                    try rejects.write(location: entry.location, reason: reason, original: entry.original)
                }
                try pending!.remove(entry.payload)
                attached += 1
            }
        }
        if attached > 0 {
            summary.warnings.append(
                "\(attached) good\(attached == 1 ? "" : "s") an earlier import kept aside (their candidacy was not there "
                    + "yet) \(attached == 1 ? "was" : "were") attached to \(attached == 1 ? "its candidacy" : "their candidacies")"
            )
        }
        let left = try pending!.count()
        if left == 0 { try pending!.dropIfEmpty() }
        if left > 0 {
            summary.warnings.append(
                "\(left) good\(left == 1 ? "" : "s") wait\(left == 1 ? "s" : "") for \(left == 1 ? "its candidacy" : "their candidacies") "
                    + "in \(StorageLayout.pendingGoodsTable) (kept aside, not lost): the import of their consulta_cand "
                    + "file attaches them")
        }
    }

    static func ambiguousCandidacy(_ good: GoodValues) -> String {
        "conflict: SQ_CANDIDATO \(good.sequence) names several candidacies of election \(good.lookupElectionID ?? "") "
            + "(one per unit) and this asset layout has no SG_UE to tell them apart; the good was not attached"
    }

    private mutating func write(
        _ a: AssetObjects, slot: ElectionStoreWriter.GoodsSlot, _ location: SourceLocation, _ raw: [UInt8]
    ) throws -> Bool {
        if let type = a.goodType { catalogue.note(goodType: type, at: location) }
        let outcome = try writer.write(good: a.good, slot: slot)
        if let election = a.election { catalogue.note(election: election, at: location) }
        try reportCatalogueTies(location, raw)
        if case .conflict(_, let reason) = outcome {
            try conflict(location, reason, raw)
            return false
        }
        try reportTies(writer.goodTies, of: "Good", location, raw)
        summary.rows.count(outcome)
        return true
    }

    /// Values of a row that disagree with a stored row of the same generation: one generation cannot say which
    /// is right, so the merge keeps one by a fixed rule (the same in any import order), and each is said.
    mutating func reportTies(
        _ ties: [(column: String, kept: SQLValue, other: SQLValue)], of type: String, _ location: SourceLocation,
        _ raw: [UInt8]
    ) throws {
        for t in ties {
            func shown(_ v: SQLValue) -> String {
                guard case .text(let text) = v else { return "\(v)" }
                return "'" + (text.count > 60 ? String(text.prefix(57)) + "..." : text) + "'"
            }
            try rejects.write(
                location: location,
                reason: "warning: a row of the same generation (DT_GERACAO + HH_GERACAO) gives \(type).\(t.column) "
                    + "another value: kept \(shown(t.kept)), not \(shown(t.other)) (a fixed rule, the same in any "
                    + "import order); check which file is right",
                original: raw)
            sameGenerationTies += 1
        }
    }

    /// Field warnings go to the rejects file (the row itself is kept).
    private mutating func warn(_ warnings: [FieldWarning]) throws {
        for w in warnings {
            try rejects.write(location: w.location, reason: "warning: " + w.reason, original: Array(w.original.utf8))
            if w.nulled { summary.fieldsNulled += 1 } else { summary.fieldsCorrected += 1 }
        }
    }

    /// A row whose key names an object it does not match: reported, never merged.
    private mutating func conflict(_ location: SourceLocation, _ reason: String, _ raw: [UInt8]) throws {
        try rejects.write(location: location, reason: reason, original: raw)
        summary.rows.conflicts += 1
    }

    // MARK: - After the files

    /// Writes the assets held for a candidacy, then the catalogues (elections, parties, coalitions, good types).
    mutating func finishRows() throws {
        report(.heldAssets)
        let waiting = held
        held = []
        for h in waiting {
            switch try resolve(h.objects) {
            case .found(let objects):
                if let slot = try writer.goodsSlot(candidateID: objects.good.candidateID) {
                    if try write(objects, slot: slot, h.location, h.rawBytes) { summary.heldAssets += 1 }
                    continue
                }
            case .ambiguous:
                try conflict(h.location, Self.ambiguousCandidacy(h.objects.good), h.rawBytes)
                if summary.files.indices.contains(h.fileReport) { summary.files[h.fileReport].rejected += 1 }
                continue
            case .none: break
            }
            try keepAside(h.objects, h.location, h.rawBytes)
            if summary.files.indices.contains(h.fileReport) { summary.files[h.fileReport].rejected += 1 }
        }
        try attachPendingGoods()
        report(.catalogues)
        try writer.flush(catalogue)
        try reportStoredTies()
    }

    /// Writes the run's `Candidate.goods` lists when they are written at the end (`GoodsListBulk`): after the
    /// `Good` table's indexes are built (its `candidacy` index gives the goods in candidacy order, so only each
    /// candidacy's own goods are sorted) and before the list table's own index is.
    mutating func writeGoodsLists() throws {
        _ = try writer.goodsListBulk.write(writer.connection)
    }

    /// Links vices in every election the run touched; then the counts go into the summary.
    mutating func finishLinks() throws {
        try writer.sortGoodsLists()
        report(.linkingVices)
        for election in catalogue.electionIDs { summary.headsWithVice += try writer.linkVices(election: election) }
        summary.warnings += try writer.electionsSharingCode(touched: catalogue.electionIDs)
        summary.warnings += try writer.electionsSharingCandidacies(touched: catalogue.electionIDs)
        for (type, c) in writer.catalogueCounts { set(type, c) }
        if writer.personalDataErased > 0 {
            summary.warnings.append(
                "the CPF, e-mail and voter ID of \(writer.personalDataErased) candidacies, kept by an earlier "
                    + "--keep-personal-data import, were erased: this import keeps no personal data (run it with "
                    + "--keep-personal-data to keep them)")
        }
        set("Candidate", writer.candidateRows.counts)
        set("Good", writer.goodRows.counts)
        if sameGenerationTies > 0 {
            summary.warnings.append(
                "\(sameGenerationTies) values disagreed between rows of one generation (DT_GERACAO + HH_GERACAO) under "
                    + "one key; one was kept by a fixed rule, the same in any import order (each is a warning row in "
                    + "the rejects file)")
        }
        if rowsRead > 0 && summary.rejected + summary.rows.conflicts >= rowsRead {
            summary.warnings.append(
                "every one of the \(rowsRead) rows read was rejected: no object was stored"
                    + (keptAside > 0 ? " (\(keptAside) goods were kept aside for their candidacies)" : "")
                    + " (the rejects file says why for each row; --max-errors 0 makes such a run fail with exit 65)")
        }
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
