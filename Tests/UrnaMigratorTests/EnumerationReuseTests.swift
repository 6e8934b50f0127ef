import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// An enumeration reuses its old and new objects row after row (memory stays flat): what the closure
/// keeps, sets on some objects only, or deletes must not leak into the objects that follow.
@Suite struct EnumerationReuseTests {
    static let v0 = try! Schema(
        family: "pets", version: 0,
        types: [
            ObjectSchema(
                "Pet",
                [
                    Property("name", .string, default: ""), Property("species", .string, default: ""),
                    Property("nickname", .string, optional: true), Property("age", .int64, default: 0),
                ])
        ])
    static let v1 = try! Schema(
        family: "pets", version: 1,
        types: [
            ObjectSchema(
                "Pet", [Property("label", .string, default: ""), Property("age", .int64, default: 0)])
        ])

    static func family(_ closure: @escaping MigrationClosure) -> SchemaFamily {
        SchemaFamily(
            name: "pets",
            versions: [
                SchemaVersion(v0),
                // label replaces name, species and nickname: some closures below read none of them, so the
                // loss is allowed by name.
                SchemaVersion(
                    v1,
                    step: MigrationStep(
                        "label",
                        allowances: ["name", "species", "nickname"].map { .discard(type: "Pet", property: $0) },
                        migration: closure)),
            ])
    }

    /// 300 pets; every third has a nickname (the others nil); ages 0...299.
    static func file(_ path: String) throws {
        let store = try Store(path: path, schema: v0)
        try store.write {
            for i in 0..<300 {
                var value: [String: Value] = ["name": .string("pet\(i)"), "species": "cat", "age": .int(Int64(i))]
                if i % 3 == 0 { value["nickname"] = .string("nick\(i)") }
                try store.create("Pet", value: value)
            }
        }
    }

    static func rows(_ path: String) throws -> [(label: String, age: Int64)] {
        try Connection(path: path, readOnly: true, create: false).rows(
            "SELECT label, age FROM \"Pet\" ORDER BY _id"
        ).map { r in
            guard case .text(let label) = r[0], case .integer(let age) = r[1] else { return ("?", -1) }
            return (label, age)
        }
    }

    @Test func keptObjectsKeepTheirOwnValues() throws {
        let dir = try Fixture.directory()
        let path = dir.file("pets.sqlite")
        try Self.file(path)
        final class Kept: @unchecked Sendable { var objects: [(MigrationObject, MigrationObject)] = [] }
        let kept = Kept()
        let family = Self.family { m in
            try m.enumerateObjects(ofType: "Pet") { old, new in
                new["label"] = .string("\(old["name"].stringValue ?? "")/\(old["species"].stringValue ?? "")")
                // Only some objects get a new age: the others must keep their own.
                if old["age"].intValue! % 2 == 1 { new["age"] = .int(1000 + old["age"].intValue!) }
                // Keep every seventh pair (old objects are kept without reading them).
                if old["age"].intValue! % 7 == 0 { kept.objects.append((old, new)) }
            }
            // Kept objects still show their own row, after the enumeration moved on.
            for (old, new) in kept.objects {
                let age = old["age"].intValue!
                #expect(old["name"] == .string("pet\(age)"))
                #expect(new["label"] == .string("pet\(age)/cat"))
                #expect(new["age"] == .int(age % 2 == 1 ? 1000 + age : age))
            }
        }
        let report = try Migrator(family: family).run(try Migrator(family: family).plan(path: path), backup: .none)
        #expect(kept.objects.count == 43)
        let rows = try Self.rows(path)
        #expect(rows.count == 300)
        for (i, row) in rows.enumerated() {
            #expect(row.label == "pet\(i)/cat")
            #expect(row.age == (i % 2 == 1 ? Int64(1000 + i) : Int64(i)))
        }
        let step = try #require(report.steps.first)
        #expect(step.activity == [TypeActivity(type: "Pet", enumerated: 300, changed: 300, copied: 300)])
        // Dropped data: every name and species (required, read by the closure), the 100 nicknames that are set
        // (never read: dropped by its allowance).
        #expect(
            step.droppedData == [
                DroppedData(type: "Pet", property: "name", values: 300, readByClosure: true),
                DroppedData(type: "Pet", property: "species", values: 300, readByClosure: true),
                DroppedData(type: "Pet", property: "nickname", values: 100),
            ])
    }

    @Test func deletedAndSkippedObjectsDoNotLeak() throws {
        let dir = try Fixture.directory()
        let path = dir.file("pets.sqlite")
        try Self.file(path)
        let family = Self.family { m in
            try m.enumerateObjects(ofType: "Pet") { old, new in
                let age = old["age"].intValue!
                if age % 5 == 0 {
                    new["label"] = "deleted"
                    new["age"] = -1
                    try m.delete(new)
                    return
                }
                if age % 5 == 1 { new["label"] = .string("one:\(old["nickname"].stringValue ?? "nil")") }
            }
        }
        let report = try Migrator(family: family).run(try Migrator(family: family).plan(path: path), backup: .none)
        let rows = try Self.rows(path)
        var expected: [(String, Int64)] = []
        for i in 0..<300 where i % 5 != 0 {
            let nickname = i % 3 == 0 ? "nick\(i)" : "nil"
            expected.append((i % 5 == 1 ? "one:" + nickname : "", Int64(i)))
        }
        #expect(rows.count == expected.count)
        for (row, e) in zip(rows, expected) {
            #expect(row.label == e.0)
            #expect(row.age == e.1)
        }
        let activity = try #require(report.steps.first?.activity.first)
        #expect(activity.deleted == 60)
        #expect(activity.copied == 240)
    }
}

/// Text read by closures and handed to the INSERT: short and long, ASCII and not, empty, ill-formed
/// UTF-8 (repaired as `String(decoding:as:)` repairs it); and the carried default of a property the
/// closure sets on some objects only.
@Suite struct EnumerationTextTests {
    @Test func textRoundTripsAndDefaultsStayPerObject() throws {
        let dir = try Fixture.directory()
        let path = dir.file("pets.sqlite")
        let names = [
            "", "Ana", "José", "Conceição da Silva", String(repeating: "x", count: 15),
            String(repeating: "y", count: 16), "日本語のテキスト", "a\u{301}",
        ]
        do {
            let store = try Store(path: path, schema: EnumerationReuseTests.v0)
            try store.write {
                for (i, n) in names.enumerated() {
                    let value: [String: Value] = ["name": .string(n), "species": "cat", "age": .int(Int64(i))]
                    try store.create("Pet", value: value)
                }
            }
        }
        // One name with bytes that are not UTF-8.
        let c = try Connection(path: path, create: false)
        try c.execute("UPDATE \"Pet\" SET \"name\" = CAST(x'416263ff' AS TEXT) WHERE \"age\" = 0")
        let family = EnumerationReuseTests.family { m in
            try m.enumerateObjects(ofType: "Pet") { old, new in
                let age = old["age"].intValue!
                // Odd objects: the name, as read; even ones keep the default label (""), except age 2.
                if age % 2 == 1 { new["label"] = old["name"] }
                if age == 2 { new["label"] = "" }
                if age == 0 { new["label"] = .string("[\(old["name"].stringValue!)]") }
            }
        }
        _ = try Migrator(family: family).run(try Migrator(family: family).plan(path: path), backup: .none)
        let rows = try EnumerationReuseTests.rows(path)
        #expect(rows.count == names.count)
        for (i, row) in rows.enumerated() {
            let expected: String
            switch i {
            case 0: expected = "[Abc\u{FFFD}]"
            case _ where i % 2 == 1: expected = names[i]
            default: expected = ""
            }
            #expect(Array(row.label.utf8) == Array(expected.utf8), "row \(i)")
        }
    }
}

/// Values a closure reads straight from the row (text, integers, nil) are the same however often and in
/// whatever order they are read, on the old object and on the new one's carried properties.
@Suite struct EnumerationDirectReadTests {
    @Test func repeatedAndCarriedReadsAgree() throws {
        let dir = try Fixture.directory()
        let path = dir.file("pets.sqlite")
        try EnumerationReuseTests.file(path)
        final class Seen: @unchecked Sendable { var rows: [[Value]] = [] }
        let seen = Seen()
        let family = EnumerationReuseTests.family { m in
            try m.enumerateObjects(ofType: "Pet") { old, new in
                // New first (carried age, still on the row), then old, then old again.
                let carriedAge = new["age"]
                seen.rows.append([
                    carriedAge, old["age"], old["name"], old["nickname"], old["name"], old["nickname"], new["age"],
                ])
                new["label"] = old["nickname"].isNull ? old["name"] : old["nickname"]
            }
        }
        _ = try Migrator(family: family).run(try Migrator(family: family).plan(path: path), backup: .none)
        #expect(seen.rows.count == 300)
        for (i, row) in seen.rows.enumerated() {
            let nickname: Value = i % 3 == 0 ? .string("nick\(i)") : .null
            #expect(
                row == [
                    .int(Int64(i)), .int(Int64(i)), .string("pet\(i)"), nickname, .string("pet\(i)"), nickname,
                    .int(Int64(i)),
                ], "row \(i)")
        }
        let labels = try EnumerationReuseTests.rows(path).map(\.label)
        #expect(labels == (0..<300).map { $0 % 3 == 0 ? "nick\($0)" : "pet\($0)" })
    }
}
