import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

@Suite struct ScratchTests {
    @Test func printElectionsDryRun() throws {
        let dir = try Fixture.directory()
        let path = dir.file("e.sqlite")
        try ElectionsSeed.createV1File(at: path)
        let migrator = Migrator(family: SchemaFamilies.elections)
        do {
            let report = try migrator.dryRun(path: path)
            print(report.renderText())
        } catch {
            print("ERROR:", error)
        }
    }
}
