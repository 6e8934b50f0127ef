import Foundation
import Testing
import UrnaStore

@Suite("Swift values as predicate arguments; aggregates")
struct QueryConveniencesTests {
    static func store() throws -> Store {
        let store = try Store.inMemory(schema: try ModelSemanticsTests.pets())
        try store.write {
            for (i, name) in ["Rex", "Fido", "Ben", "Bo"].enumerated() {
                try store.create(Puppy.self, value: ["id": i + 1, "name": name])
            }
        }
        return store
    }

    @Test("filter takes Swift values directly, and the old QueryArgument forms still compile")
    func swiftValues() throws {
        let store = try Self.store()
        let name = "Rex"
        let minimum = 2
        #expect(try store.objects(Puppy.self).filter("name == %@", name).count == 1)
        #expect(try store.objects("Puppy").filter("name == %@ AND id >= %d", name, minimum).count == 0)
        #expect(try store.objects("Puppy").filter("id IN %@", [1, 3]).count == 2)
        #expect(try store.objects("Puppy").filter("name == %@", .value("Fido")).count == 1)
        #expect(try store.objects("Puppy").filter("name == %@", .string(name)).count == 1)
        #expect(try store.objects("Puppy").filter("id > %d", 2).count == 2)
        #expect(try store.objects("Puppy").filter("%K == %@", .keyPath("name"), "Ben").count == 1)
    }

    @Test("sum, min, max and average by property; an unknown or non-numeric property throws")
    func aggregates() throws {
        let store = try Self.store()
        let all = try store.objects(Puppy.self)
        #expect(try all.sum(ofProperty: "id") == .int(10))
        #expect(try all.min(ofProperty: "id") == .int(1))
        #expect(try all.max(ofProperty: "id") == .int(4))
        #expect(try all.average(ofProperty: "id") == 2.5)
        let none = try all.filter("id > %d", 100)
        #expect(try none.sum(ofProperty: "id") == .int(0))
        #expect(try none.max(ofProperty: "id") == Optional<Value>.none)
        #expect(try none.average(ofProperty: "id") == nil)
        #expect(throws: StoreError.unknownProperty(type: "Puppy", property: "nmae")) { try all.sum(ofProperty: "nmae") }
        #expect(throws: (any Error).self) { try all.sum(ofProperty: "name") }
    }
}
