import FieldworkFamily
import Foundation
import Testing
import UrnaCommandLine
import UrnaMigrator

/// An app's executable given families declared inconsistently: found by the fieldwork trial, where versions
/// registered out of order let `init` make files and `status` call v1 the latest, and a family given twice (the full
/// history and its squashed form) silently used the first.
@Suite struct CLIFamilyDeclarationTests {
    static let v = FieldworkFamily.family.versions

    @Test func versionsOutOfOrderAndANameGivenTwiceAreNamed() {
        let outOfOrder = SchemaFamily(name: "fieldwork", versions: [Self.v[0], Self.v[2], Self.v[1]])
        #expect(
            UrnaCommandLine.problems(of: [outOfOrder]) == ["fieldwork: versions must ascend, 1 comes after 2"])
        #expect(
            UrnaCommandLine.problems(of: [FieldworkFamily.family, FieldworkFamily.squashed]) == [
                "family fieldwork is given twice"
            ])
        #expect(UrnaCommandLine.problems(of: [FieldworkFamily.family]) == [])
    }

    @Test func noCommandRunsWithThemButHelp() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fieldwork.sqlite").path
        let outOfOrder = SchemaFamily(name: "fieldwork", versions: [Self.v[0], Self.v[2], Self.v[1]])
        let code = UrnaCommandLine.run(
            ["init", "--db", db, "--family", "fieldwork", "--version", "0"], families: [outOfOrder],
            toolName: "fieldwork-app")
        #expect(code == 1)
        #expect(!FileManager.default.fileExists(atPath: db))
        #expect(UrnaCommandLine.run(["--version"], families: [outOfOrder], toolName: "fieldwork-app") == 0)
    }
}
