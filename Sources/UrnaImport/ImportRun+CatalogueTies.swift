import UrnaRecords
import UrnaStore

extension ImportRun {
    /// Says each value the row just noted gave an election, party, coalition or good type otherwise than an
    /// earlier row of the same generation (`CatalogueBuffer.Tie`): a warning row in the rejects file, counted.
    mutating func reportCatalogueTies(_ location: SourceLocation, _ raw: [UInt8]) throws {
        guard !catalogue.ties.isEmpty else { return }
        for t in catalogue.takeTies() { try reportTies([(t.column, t.kept, t.other)], of: t.type, location, raw) }
    }

    /// Says each value of this run's elections, parties, coalitions and good types that disagreed with the row an
    /// earlier run stored from the same generation, at the line that first brought the object in this run.
    mutating func reportStoredTies() throws {
        for t in writer.catalogueTies {
            let location = catalogue.firstLocation(t.type, t.id) ?? SourceLocation(file: "(this run)", line: 0)
            try reportTies([(t.column, t.kept, t.other)], of: t.type, location, [])
        }
        writer.catalogueTies.removeAll()
    }
}
