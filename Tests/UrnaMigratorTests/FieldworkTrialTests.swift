import FieldworkFamily
import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Every value of every table of a file, as text (blobs in hex, reals at full precision), for comparing two files
/// row by row: the fieldwork trial's checker.
enum RowChecker {
    static func rows(_ path: String, skipping: Set<String> = ["_urna_schema", "_urna_history"]) throws
        -> [String: [String]]
    {
        let c = try Connection(path: path, readOnly: true, create: false)
        var out: [String: [String]] = [:]
        for row in try c.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            guard case .text(let name) = row[0], !name.hasPrefix("sqlite_"), !skipping.contains(name) else { continue }
            out[name] = try c.rows("SELECT * FROM \(Identifier.quoted(name))").map { r in
                r.map { v -> String in
                    switch v {
                    case .null: "NULL"
                    case .integer(let i): "i:\(i)"
                    case .real(let d): "r:\(d.bitPattern)"
                    case .text(let s): "t:\(s)"
                    case .blob(let b): "b:" + b.map { String(format: "%02x", $0) }.joined()
                    }
                }.joined(separator: "|")
            }.sorted()
        }
        return out
    }

    /// What differs between two files' rows: table by table, the rows only one side holds.
    static func differences(_ a: String, _ b: String) throws -> [String] {
        let (x, y) = (try rows(a), try rows(b))
        var out: [String] = []
        for table in Set(x.keys).union(y.keys).sorted() {
            let (l, r) = (x[table] ?? [], y[table] ?? [])
            if l == r { continue }
            let onlyL = l.filter { !r.contains($0) }
            let onlyR = r.filter { !l.contains($0) }
            out.append(
                "\(table): \(l.count) vs \(r.count) rows; only left \(onlyL.prefix(3)); only right \(onlyR.prefix(3))")
        }
        return out
    }

    static func count(_ path: String) throws -> Int { try rows(path).values.reduce(0) { $0 + $1.count } }
}

/// Issue 14's fourth app trial: the fieldwork family, v0 to v6, compared value by value with a v6 file written
/// independently of the steps.
@Suite struct FieldworkTrialTests {
    @Test func migratedEqualsWrittenAtV6InOneRunAndStepByStep() throws {
        let dir = try Fixture.directory()
        let expected = dir.file("expected.sqlite")
        try FieldworkFamily.fillV6(at: expected, visits: 9)
        for stepwise in [false, true] {
            let path = dir.file("v0-\(stepwise).sqlite")
            try FieldworkFamily.fillV0(at: path, visits: 9)
            let m = Migrator(family: FieldworkFamily.family)
            for to in stepwise ? Array(1...6) : [6] {
                let report = try m.run(try m.plan(path: path, to: to), backup: .none)
                #expect(report.outcome == .applied)
            }
            #expect(try RowChecker.differences(path, expected) == [])
            #expect(try RowChecker.count(path) == RowChecker.count(expected))
        }
    }

    /// A file at `version` as the app's users have one: filled at v0 and upgraded by the app of that version.
    static func fixture(_ version: Int) -> (String) throws -> Void {
        { path in
            try FieldworkFamily.fillV0(at: path)
            if version > 0 {
                let m = Migrator(family: FieldworkFamily.family)
                _ = try m.run(try m.plan(path: path, to: version), backup: .none)
            }
        }
    }

    @Test func theHarnessAgreesOnEveryPath() throws {
        let dir = try Fixture.directory()
        var fixtures: [Int: (String) throws -> Void] = [6: { try FieldworkFamily.fillV6(at: $0) }]
        for v in 0...5 { fixtures[v] = Self.fixture(v) }
        #expect(try MigrationTestHarness(family: FieldworkFamily.family, fixtures: fixtures).check(in: dir.path) == [])
        // The squashed history: v3 (the baseline) to v6, and older files refused with the app's advice.
        let squashed = MigrationTestHarness(
            family: FieldworkFamily.squashed,
            fixtures: [3: Self.fixture(3), 4: Self.fixture(4), 6: { try FieldworkFamily.fillV6(at: $0) }])
        #expect(try squashed.check(in: dir.path) == [])
        let old = dir.file("v2.sqlite")
        try Self.fixture(2)(old)
        #expect {
            try Migrator(family: FieldworkFamily.squashed).plan(path: old)
        } throws: { error in
            "\(error)".contains("open it once with fieldwork-app 1.x, which upgrades it to version 3")
        }
    }

    @Test func aBiggerFileKeepsEveryValue() throws {
        let dir = try Fixture.directory()
        let (path, expected) = (dir.file("v0.sqlite"), dir.file("v6.sqlite"))
        try FieldworkFamily.fillV0(at: path, visits: 600)
        try FieldworkFamily.fillV6(at: expected, visits: 600)
        let m = Migrator(family: FieldworkFamily.family)
        _ = try m.run(try m.plan(path: path), backup: .none)
        #expect(try RowChecker.differences(path, expected) == [])
        #expect(try RowChecker.count(path) == 4 + 3 + 600 + 400 + 1_200)
    }
}
