import Foundation
import UrnaStore

/// Checks a family's whole history the way its users' files will meet it: a file built from a fixture at each
/// historical version is migrated to the latest along every path (in one run, and one run per step), and each
/// result is compared with a fresh latest file: the same tables (column by column) and, when a latest fixture
/// holds the same data, the same rows.
///
/// ```swift
/// let harness = MigrationTestHarness(family: LibraryFamily.family, fixtures: [
///     0: { path in try LibraryFamily.fillV0(at: path) },
/// ])
/// let problems = try harness.check(in: temporaryFolder)   // empty when every path agrees
/// ```
public struct MigrationTestHarness {
    public let family: SchemaFamily
    /// Builds a file at a version at the given path (a fixture), per version.
    public let fixtures: [Int: (String) throws -> Void]
    /// Runs migrations with these options (allowances, for example).
    public var options: MigrationOptions

    public init(
        family: SchemaFamily, fixtures: [Int: (String) throws -> Void], options: MigrationOptions = MigrationOptions()
    ) {
        self.family = family
        self.fixtures = fixtures
        self.options = options
    }

    /// Every path checked, and what differed; empty when all agree. Files are made in a new folder inside
    /// `directory` (left there for inspection).
    public func check(in base: String) throws -> [String] {
        let directory = (base as NSString).appendingPathComponent("harness-\(family.name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var problems: [String] = []
        let latest = family.latestVersion
        let expected = try DatabaseShape.expected(for: family.latest)
        let latestRows: [String: [String]]? = try fixtures[latest].map { build in
            let p = (directory as NSString).appendingPathComponent("fixture-v\(latest).sqlite")
            try build(p)
            return try Self.rows(p, schema: family.latest)
        }
        for start in family.versionNumbers where start < latest {
            guard let build = fixtures[start] else { continue }
            let direct = (directory as NSString).appendingPathComponent("v\(start)-direct.sqlite")
            let stepwise = (directory as NSString).appendingPathComponent("v\(start)-stepwise.sqlite")
            try build(direct)
            try build(stepwise)
            let m = Migrator(family: family, options: options)
            // A run that fails (a closure that throws, a loss nobody allowed) is a problem of that path, said.
            do {
                _ = try m.run(try m.plan(path: direct), backup: .none)
            } catch let e as MigrationError {
                problems.append("v\(start) → v\(latest) in one run failed: \(e)")
                continue
            }
            do {
                for v in family.versionNumbers where v > start {
                    _ = try m.run(try m.plan(path: stepwise, to: v), backup: .none)
                }
            } catch let e as MigrationError {
                problems.append("v\(start) → v\(latest) step by step failed: \(e)")
                continue
            }
            for (name, path) in [
                ("v\(start) → v\(latest) in one run", direct), ("v\(start) → v\(latest) step by step", stepwise),
            ] {
                let c = try Connection(path: path, readOnly: true, create: false)
                let actual = RunLedger.withoutLedgerColumns(try DatabaseShape.read(c), expected: expected)
                for d in actual.differences(from: expected, allowExtraIndexes: false, allowExtraTables: true) {
                    problems.append("\(name): differs from a fresh v\(latest) file: \(d)")
                }
                let rows = try Self.rows(path, schema: family.latest)
                if let latestRows, rows != latestRows {
                    problems.append(
                        "\(name): its rows differ from the v\(latest) fixture's: "
                            + Self.differences(rows, latestRows, expectedName: "the fixture"))
                }
            }
            let directRows = try Self.rows(direct, schema: family.latest)
            let stepwiseRows = try Self.rows(stepwise, schema: family.latest)
            if directRows != stepwiseRows {
                problems.append(
                    "v\(start): one run and step by step give different rows: "
                        + Self.differences(directRows, stepwiseRows, expectedName: "step by step"))
            }
        }
        return problems
    }
}
