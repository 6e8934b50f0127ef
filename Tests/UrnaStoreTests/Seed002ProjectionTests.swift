import Foundation
import Testing
import UrnaStore

// Seed 002's DoggoDB models and projection, as written in the seed (only `import RealmSwift` becomes
// `import UrnaStore`), inside a namespace because this test target already has a `Dog`.
enum Seed002 {
    class Person: Object, ObjectKeyIdentifiable {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var personId = ""
        @Persisted var company = "MongoDB"
        @Persisted var businessUnit = BusinessUnitEnum.engineering
        @Persisted var profileImageUrl: URL?
        @Persisted var dogs: List<Dog>
    }
    enum BusinessUnitEnum: String, PersistableEnum, CaseIterable {
        case customerEngineering = "Customer Engineering"
        case educationCommunityAndDocs = "Education, Community and Docs"
        case engineering = "Engineering"
        case financeAndOperations = "Finance and Operations"
        case humanResourcesAndRescruiting = "Human Resources and Recruiting"
        case management = "Management"
        case marketing = "Marketing"
        case product = "Product"
        case sales = "Sales"
    }
    class Dog: Object, ObjectKeyIdentifiable {
        @Persisted(primaryKey: true) var _id: UUID
        @Persisted var name = ""
        @Persisted var breed = ""
        @Persisted var weight = 0
        @Persisted var favoriteToy = ""
        @Persisted var profileImageUrl: URL?
        @Persisted var dateLastUpdated = Date()
        @Persisted(originProperty: "dogs") var person: LinkingObjects<Person>
        var firstLetter: String {
            guard let char = name.first else {
                return ""
            }
            return String(char)
        }
    }
    class Profile: Projection<Person> {
        @Projected(\Person.firstName) var firstName // Passthrough from original object
        @Projected(\Person.lastName.localizedCapitalized.first) var lastNameInitial // Access and transform the original property
        @Projected(\Person.personId) var personId
        @Projected(\Person.businessUnit) var businessUnit
        @Projected(\Person.profileImageUrl) var profileImageUrl
        @Projected(\Person.dogs) var dogs
    }
}

@Suite("Seed 002: DoggoDB models and a typed projection")
struct Seed002ProjectionTests {
    static func store() throws -> Store {
        try Store.inMemory(
            schema: Schema(family: "doggo", version: 1, models: [Seed002.Person.self, Seed002.Dog.self]))
    }

    @Test("Profile projects, transforms and follows the list; ids are fresh and identities stable")
    func profile() throws {
        typealias Person = Seed002.Person
        typealias Dog = Seed002.Dog
        let store = try Self.store()
        let before = Date()
        try store.write {
            let ana = Person()
            ana.firstName = "Ana"
            ana.lastName = "souza"
            ana.personId = "p-1"
            ana.businessUnit = .product
            ana.profileImageUrl = URL(string: "https://example.org/ana.png")
            let rex = Dog()
            rex.name = "Rex"
            rex.breed = "Vira-lata"
            let lua = Dog()
            lua.name = "Lua"
            try ana.dogs.append(rex)
            try ana.dogs.append(lua)
            try store.add(ana)
            let bia = Person()
            bia.firstName = "Bia"
            bia.lastName = "lima"
            try store.add(bia)
        }
        let profiles = try store.objects(Seed002.Profile.self).sorted { $0.firstName < $1.firstName }
        #expect(profiles.map(\.firstName) == ["Ana", "Bia"])
        #expect(profiles.map(\.lastNameInitial) == ["S", "L"])
        #expect(profiles.map(\.personId) == ["p-1", ""])
        #expect(profiles.map(\.businessUnit) == [.product, .engineering])
        #expect(profiles[0].profileImageUrl == URL(string: "https://example.org/ana.png"))
        #expect(profiles[1].profileImageUrl == nil)
        #expect(profiles[0].dogs.map(\.name) == ["Rex", "Lua"])
        #expect(profiles[0].dogs.map(\.firstLetter) == ["R", "L"])
        #expect(profiles[0].dogs[0].person.map(\.firstName) == ["Ana"])

        // ObjectId and UUID keys are fresh per object; Date() defaults are creation times.
        let people = try store.objects(Person.self)
        #expect(Set(people.map(\._id)).count == 2)
        #expect(Set(try store.objects(Dog.self).map(\._id)).count == 2)
        #expect(try store.objects(Dog.self).allSatisfy { $0.dateLastUpdated >= before.addingTimeInterval(-1) })
        let ana = try #require(people.first { $0.firstName == "Ana" })
        #expect(try store.object(ofType: Person.self, forPrimaryKey: ana._id.persistedValue)?.firstName == "Ana")
        #expect(ana.company == "MongoDB")

        // Identifiable by stored identity: two reads of the same row share an id.
        let again = try #require(try store.objects(Person.self).filter("firstName == %@", "Ana").first)
        #expect(again.id == ana.id)
        #expect(again.id != profiles[1].rootObject.id)

        // A projection is live: it reads the root's current values.
        try store.write { ana.lastName = "castro" }
        #expect(profiles[0].lastNameInitial == "C")
        try store.write { try store.delete(ana) }
        #expect(profiles[0].isInvalidated)
    }

    @Test("ObjectId text round trip, order by time, and refusal of bad text")
    func objectIdText() throws {
        let a = ObjectId.generate()
        let b = ObjectId.generate()
        #expect(a != b)
        #expect(ObjectId(string: a.stringValue) == a)
        #expect(a.stringValue.count == 24)
        #expect(abs(a.timestamp.timeIntervalSinceNow) < 5)
        #expect(ObjectId(string: "not an id") == nil)
        #expect(throws: ObjectIdError.self) { try ObjectId(hexString: "zz0000000000000000000000") }
        let decoded = try JSONDecoder().decode([ObjectId].self, from: JSONEncoder().encode([a]))
        #expect(decoded == [a])
    }
}
