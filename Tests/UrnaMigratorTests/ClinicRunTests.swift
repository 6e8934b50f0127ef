import ClinicFamily
import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// The clinic app's runs (issue 14's third trial): `migrateIfNeeded` from a task, with progress, cancelled
/// half-way; a failure in the last step of a four-step run.
@Suite struct ClinicRunTests {
    /// Fractions heard from the run's thread, read by the test's task.
    final class Fractions: MigrationReporter, @unchecked Sendable {
        private let lock = NSLock()
        private var heard: [Double] = []
        var values: [Double] { lock.withLock { heard } }
        func overallProgress(fraction: Double, phase: String) { lock.withLock { heard.append(fraction) } }
    }

    /// Holds the run at its first visit until the test has cancelled the task (a busy machine may not wake the
    /// test's task before an unheld run ends).
    final class Gate: @unchecked Sendable {
        private let lock = NSLock()
        private var isStarted = false
        private var isOpen = false
        var started: Bool { lock.withLock { isStarted } }
        func open() { lock.withLock { isOpen = true } }
        /// Called by the run: says it started, then waits (at most 30 s) for `open()`.
        func hold() {
            lock.withLock { isStarted = true }
            let deadline = Date().addingTimeInterval(30)
            while !lock.withLock({ isOpen }) && Date() < deadline { usleep(1_000) }
        }
    }

    /// The clinic family whose first step waits at `gate` at its first visit, then takes a quarter of a
    /// millisecond per visit.
    static func slowFamily(_ gate: Gate) -> SchemaFamily {
        var versions = ClinicFamily.family.versions
        let real = ClinicFamily.steps[0].migration!
        versions[1] = SchemaVersion(
            ClinicFamily.v1,
            step: MigrationStep(ClinicFamily.steps[0].summary) { m in
                try real(m)
                var first = true
                try m.enumerateObjects(ofType: "Visit") { _, _ in
                    if first { gate.hold() }
                    first = false
                    usleep(250)
                }
            })
        return SchemaFamily(name: "clinic", versions: versions)
    }

    @Test func aCancelledTaskLeavesTheFileAsItWasAndTheLedgerSaysSo() async throws {
        let dir = try Fixture.directory()
        let path = dir.file("clinic.sqlite")
        try ClinicFamily.fillV0(at: path, patients: 2_000)
        let before = try Fixture.dump(path)
        let gate = Gate()
        let m = Migrator(family: Self.slowFamily(gate))
        let task = Task { try await m.migrateIfNeeded(path: path, backup: .none) }
        while !gate.started { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        gate.open()
        await #expect(throws: MigrationError.self) { _ = try await task.value }
        #expect(try Fixture.dump(path) == before)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.integer("PRAGMA user_version") == 0)
        #expect(try c.rows("SELECT outcome FROM _urna_history").map { "\($0[0])" } == ["failed"])

        // Run again: every fraction is heard in order, the last is 1, and the file is at v4.
        let again = Fractions()
        let report = try await Migrator(family: ClinicFamily.family, reporter: again).migrateIfNeeded(
            path: path, backup: .none)
        #expect(report?.toVersion == 4)
        #expect(again.values == again.values.sorted() && again.values.last == 1)
        #expect(try await Migrator(family: ClinicFamily.family).migrateIfNeeded(path: path) == nil)
    }

    @Test func aThrowInTheLastStepRollsBackTheWholeRun() throws {
        struct Refused: Error, CustomStringConvertible {
            var description: String { "patient P3 has no consent on file" }
        }
        let dir = try Fixture.directory()
        let path = dir.file("clinic.sqlite")
        try ClinicFamily.fillV0(at: path)
        let before = try Fixture.master(path)
        let data = try Fixture.dump(path)
        var versions = ClinicFamily.family.versions
        let real = ClinicFamily.steps[3].migration!
        versions[4] = SchemaVersion(
            ClinicFamily.v4,
            step: MigrationStep("throws at P3") { m in
                try real(m)
                try m.enumerateObjects(ofType: "Patient") { _, new in if new["id"] == .string("P3") { throw Refused() }
                }
            })
        let m = Migrator(family: SchemaFamily(name: "clinic", versions: versions))
        #expect {
            _ = try m.run(try m.plan(path: path), backup: .none)
        } throws: { error in
            "\(error)".contains("patient P3 has no consent on file") && "\(error)".contains("v3 → v4")
        }
        #expect(try Fixture.dump(path) == data)
        #expect(
            try Fixture.master(path).filter { !$0.contains("_urna_history") }
                == before.filter { !$0.contains("_urna_history") })
    }
}
