import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// For every family: a file at every historical version, with data, migrated to the latest version,
/// has the same tables as a fresh latest file and the data a latest file written directly holds.
@Suite struct MigrationPathsTests {
    /// Writes the same facts at any version of a family (nil: no builder, which fails the test).
    static func builder(family: String, version: Int) -> ((String) throws -> Void)? {
        switch family {
        case "people": { path in try Fixture.peopleFile(at: path, version: version) }
        case "elections": { path in try ElectionsFixtures.file(version: version, at: path) }
        default: nil
        }
    }

    static var paths: [(String, Int)] {
        SchemaFamilies.all.flatMap { f in f.versionNumbers.dropLast().map { (f.name, $0) } }
    }

    @Test(arguments: paths)
    func everyVersionUpgradesToLatest(family name: String, version: Int) throws {
        let family = try #require(SchemaFamilies.named(name))
        let build = try #require(Self.builder(family: name, version: version), "no fixture builder for \(name)")
        let expectedBuild = try #require(Self.builder(family: name, version: family.latestVersion))
        let dir = try Fixture.directory()
        let old = dir.file("old.sqlite")
        let fresh = dir.file("fresh.sqlite")
        try build(old)
        try expectedBuild(fresh)

        let migrator = Migrator(family: family)
        let report = try migrator.run(try migrator.plan(path: old), backup: .none)
        #expect(report.outcome == .applied)
        #expect(report.versionPath.first == version)
        #expect(report.versionPath.last == family.latestVersion)

        // Same tables, columns, keys, indexes (sqlite_master, whitespace-normalised).
        #expect(try Fixture.master(old) == Fixture.master(fresh))
        let shape = try DatabaseShape.read(Connection(path: old, readOnly: true, create: false))
        #expect(shape.differences(from: try DatabaseShape.expected(for: family.latest), compareOthers: true).isEmpty)
        // Same data, row by row.
        #expect(try Fixture.dump(old) == Fixture.dump(fresh))
        // The file records the latest descriptor and opens with the latest schema.
        #expect(try FamilyRegistry.recordedSchema(at: old) == family.latest)
        _ = try Store(path: old, schema: family.latest)
    }

    @Test func everyFamilyHasABuilderForEveryVersion() {
        for f in SchemaFamilies.all {
            #expect(f.problems().isEmpty, "\(f.name): \(f.problems())")
            for v in f.versionNumbers { #expect(Self.builder(family: f.name, version: v) != nil, "\(f.name) v\(v)") }
        }
    }
}
