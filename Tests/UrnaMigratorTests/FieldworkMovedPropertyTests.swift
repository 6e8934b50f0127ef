import FieldworkFamily
import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// A property moved to another type by a closure that reads it only through links (`old.linked("site")?["habitat"]`)
/// was trusted with every value: the habitat of a site no visit linked to ("dune") was dropped, exit 0. Found by
/// the fieldwork trial.
@Suite struct FieldworkMovedPropertyTests {
    /// v0 → v1: Site.habitat moves to Visit.habitat, read through each visit's site link only.
    static func family(allowances: [MigrationAllowance] = []) throws -> SchemaFamily {
        let v0 = FieldworkFamily.v0
        let site = v0[type: "Site"]!
        let visit = v0[type: "Visit"]!
        let types = v0.types.map { t -> ObjectSchema in
            switch t.name {
            case "Site": ObjectSchema("Site", site.properties.filter { $0.name != "habitat" })
            case "Visit": ObjectSchema("Visit", visit.properties + [Property("habitat", .string, optional: true)])
            default: t
            }
        }
        let v1 = try Schema(family: "fieldwork", version: 1, types: types)
        return SchemaFamily(
            name: "fieldwork",
            versions: [
                SchemaVersion(v0),
                SchemaVersion(
                    v1,
                    step: MigrationStep("habitat per visit", allowances: allowances) { m in
                        try m.enumerateObjects(ofType: "Visit") { old, new in
                            new["habitat"] = try old.linked("site")?["habitat"] ?? .null
                        }
                    }),
            ])
    }

    @Test func aValueOnAnObjectNoLinkReachedIsNotDroppedUnasked() throws {
        let dir = try Fixture.directory()
        let path = dir.file("fieldwork.sqlite")
        try FieldworkFamily.fillV0(at: path)
        let before = try RowChecker.rows(path)
        let m = Migrator(family: try Self.family())
        let dry = try m.dryRun(path: path, sample: 0)
        #expect(dry.outcome == .failed)
        let dropped = dry.steps.first?.droppedData.first { $0.type == "Site" && $0.property == "habitat" }
        #expect(dropped?.values == 2 && dropped?.readByClosure == false)
        var message = ""
        do {
            _ = try m.run(try m.plan(path: path), backup: .none)
        } catch {
            message = "\(error)"
        }
        #expect(message.contains("Site.habitat is removed and 1 of its 2 non-nil value(s) would be dropped unseen"))
        #expect(message.contains(#".discard(type: "Site", property: "habitat")"#))
        #expect(message.contains("--allow-loss Site.habitat"))
        #expect(try RowChecker.rows(path) == before)
        #expect(try Connection(path: path, readOnly: true, create: false).scalar("PRAGMA user_version") == .integer(0))
    }

    @Test func theAllowanceLetsItGoAndTheVisitedSitesHabitatMoves() throws {
        let dir = try Fixture.directory()
        let path = dir.file("fieldwork.sqlite")
        try FieldworkFamily.fillV0(at: path)
        let m = Migrator(family: try Self.family(allowances: [.discard(type: "Site", property: "habitat")]))
        #expect(try m.run(try m.plan(path: path), backup: .none).outcome == .applied)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.scalar("SELECT count(*) FROM Visit WHERE habitat = 'forest'") == .integer(4))
    }
}
