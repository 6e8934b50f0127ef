import Foundation
import HotelFamily
import LibraryFamily
import Testing
import UrnaMigrator
import UrnaStore

/// The app trial's leftovers (issue 14, hotel): a refusal before anything is written says so, with the figures; a
/// step that stopped shows no counts after it as if its objects were removed; the dry run and the run state the
/// same disk need for the same file.
@Suite struct RefusedRunReportTests {
    /// The pre-check refuses before writing: it must not read as a write that failed on a full disk.
    @Test func theSpacePreCheckSaysNothingWasWrittenWithTheFigures() {
        let refusal = MigrationError.insufficientSpace(
            path: "/d/hotel.sqlite", backup: "/d/hotel.sqlite.v0.bak", needed: 13_316_915, available: 1_048_576,
            detail: "the backup takes 12.7 MB")
        let text = refusal.description
        #expect(!text.contains("cannot write the backup"), "\(text)")
        #expect(!text.contains("database or disk is full"), "\(text)")
        for needle in [
            "refused before writing", "/d/hotel.sqlite.v0.bak", "12.7 MB", "1.0 MB are free",
            "the file was not changed",
            "--backup PATH",
        ] {
            #expect(text.contains(needle), "'\(needle)' not in: \(text)")
        }
        // A real full disk during the backup's write keeps saying so.
        let real = MigrationError.backupFailed(path: "/d/hotel.sqlite.v0.bak", reason: "database or disk is full")
        #expect(real.description.hasPrefix("cannot write the backup /d/hotel.sqlite.v0.bak: database or disk is full"))
    }

    /// The library family with a v5 whose closure throws: its step stops before it finishes.
    static var throwingFamily: SchemaFamily {
        var v5 = LibraryFamily.v4
        v5.version = 5
        let step = MigrationStep("v5: a closure that fails") { _ in
            throw CocoaError(.featureUnsupported)
        }
        return SchemaFamily(name: "library", versions: LibraryFamily.family.versions + [SchemaVersion(v5, step: step)])
    }

    @Test func aStepThatStoppedShowsNoCountsAfterItInsteadOfDashes() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        let m = Migrator(family: LibraryFamily.family)
        _ = try m.run(try m.plan(path: path), backup: .none)

        let report = try Migrator(family: Self.throwingFamily).dryRun(path: path)
        #expect(report.outcome == .failed)
        let step = try #require(report.steps.last)
        #expect(!step.completed, "the step stopped in its closure")
        #expect(step.countsAfter.isEmpty)
        let text = report.renderText()
        #expect(!text.contains(" → -"), "reads as if every object were removed:\n\(text)")
        #expect(text.contains("the step stopped before it finished"), "\(text)")
        #expect(text.contains("    Author: 3\n"), "the counts before are still shown:\n\(text)")
        #expect(report.renderJSON().contains("\"completed\" : false"), "\(report.renderJSON())")
    }

    /// A step that ran to its end keeps its counts, and a removed type still shows its "-" after.
    @Test func aFinishedStepKeepsItsCounts() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        let report = try Migrator(family: LibraryFamily.family).dryRun(path: path)
        #expect(report.outcome == .previewed)
        #expect(report.steps.allSatisfy { $0.completed })
        #expect(!report.renderText().contains("the step stopped before it finished"))
    }

    @Test func theDryRunAndTheRunStateTheSameDiskNeed() throws {
        let dir = try Fixture.directory()
        for v in 0..<5 {
            let path = dir.file("hotel-v\(v).sqlite")
            try HotelFamily.fill(at: path, version: v)
            let m = Migrator(family: HotelFamily.family)
            let dry = try m.dryRun(path: path)
            let run = try m.run(try m.plan(path: path), backup: .besideFile)
            let (dryNeed, runNeed) = (try #require(dry.spaceNeed), try #require(run.spaceNeed))
            #expect(dryNeed == runNeed, "from v\(v): dry run \(dryNeed), run \(runNeed)")
            #expect(
                SpaceNeed.megabytes(dryNeed.totalBytes) == SpaceNeed.megabytes(runNeed.totalBytes), "from v\(v)")
        }
    }
}
