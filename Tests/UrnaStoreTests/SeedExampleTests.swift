import Foundation
import Testing

@testable import UrnaStore

@Suite("Seed examples")
struct SeedExampleTests {
    @Test("Dogs created three ways (seed 000)")
    func dogsThreeWays() throws {
        let store = try Store.inMemory(schema: SeedSchemas.dogs())
        let myDog = Dog()
        myDog.name = "Rex"
        myDog.age = 10
        let myOtherDog = Dog(value: ["name": "Pluto", "age": 3])
        let myThirdDog = Dog(value: ["Fido", 5])
        try store.write {
            try store.add(myDog)
            try store.add(myOtherDog)
            try store.add(myThirdDog)
        }
        let dogs = try store.objects(Dog.self).sorted(byKeyPath: "name")
        #expect(dogs.map(\.name) == ["Fido", "Pluto", "Rex"])
        #expect(dogs.map(\.age) == [5, 3, 10])
        #expect(myDog.isManaged)
        #expect(myThirdDog.age == 5)
    }

    @Test("Nested values create linked objects inline (seed 000's Person with dogs)")
    func nestedCreation() throws {
        let store = try Store.inMemory(schema: SeedSchemas.dogs())
        try store.write {
            try store.create(
                DogOwner.self, value: ["Jane", Date(timeIntervalSince1970: 30), [["Buster", 5], ["Buddy", 6]]])
        }
        let jane = try #require(try store.objects(DogOwner.self).first)
        #expect(jane.name == "Jane")
        #expect(jane.dogs.map(\.name) == ["Buster", "Buddy"])
        let buddy = try #require(try store.objects(Dog.self).filter("name == 'Buddy'").first)
        #expect(buddy.owners.map(\.name) == ["Jane"])
        // Existing dogs can be given by object too.
        try store.write {
            let rex = Dog(value: ["Rex", 10])
            try store.create(DogOwner.self, value: ["Joe", Date(), [rex, buddy]])
        }
        #expect(buddy.owners.map(\.name).sorted() == ["Jane", "Joe"])
        #expect(try store.objects(Dog.self).count == 3)
    }

    @Test("Tan dogs filtered and sorted (seed 000)")
    func tanDogs() throws {
        let store = try Store.inMemory(schema: SeedSchemas.dogs())
        try store.write {
            for (name, color) in [
                ("Bobby", "tan"), ("Ben", "tan"), ("Rex", "tan"), ("Bolt", "black"), ("Bruno", "tan"),
            ] {
                try store.create("Dog", value: ["name": name, "color": color])
            }
        }
        let tanDogs = try store.objects(Dog.self).filter("color = 'tan' AND name BEGINSWITH 'B'").sorted(
            byKeyPath: "name")
        #expect(tanDogs.map(\.name) == ["Ben", "Bobby", "Bruno"])
        let chained = try store.objects(Dog.self).filter("color = %@", .value("tan")).filter(
            "name BEGINSWITH %@", .value("B"))
        #expect(try chained.count == 3)
        let desc = try tanDogs.sorted(byKeyPath: "name", ascending: false)
        #expect(desc.first?.name == "Bruno")
    }

    @Test("Book partial upsert keeps the properties not given (seed 000)")
    func bookUpsert() throws {
        let store = try Store.inMemory(schema: SeedSchemas.books())
        try store.write {
            let b = Book()
            b.id = 1
            b.title = "Cheese recipes"
            b.price = 100
            try store.add(b)
        }
        try store.write {
            let cheeseBook = Book()
            cheeseBook.title = "Cheese recipes, 2nd edition"
            cheeseBook.price = 9000
            cheeseBook.id = 1
            try store.add(cheeseBook, update: .modified)
        }
        #expect(try store.objects(Book.self).count == 1)
        #expect(try store.object(ofType: Book.self, forPrimaryKey: 1)?.title == "Cheese recipes, 2nd edition")
        try store.write { try store.create(Book.self, value: ["id": 1, "price": 9500], update: .modified) }
        let book = try #require(try store.object(ofType: Book.self, forPrimaryKey: 1))
        #expect(book.price == 9500)
        #expect(book.title == "Cheese recipes, 2nd edition")
        // A plain insert of an existing key is refused and changes nothing.
        #expect(throws: StoreError.duplicatePrimaryKey(type: "Book", key: "1")) {
            try store.write { try store.create(Book.self, value: ["id": 1, "price": 1]) }
        }
        #expect(book.price == 9500)
        // Ignored properties have no column.
        let columns = try store.connection.rows("SELECT name FROM pragma_table_info('Book')").map { "\($0[0])" }
        #expect(columns == ["id", "price", "title"])
    }

    @Test("Task lists: open and completed filters on a list, bulk update (seed 001)")
    func taskLists() throws {
        let store = try Store.inMemory(schema: SeedSchemas.tasks())
        let list = TaskList(value: ["name": "Groceries"])
        try store.write {
            try store.add(list)
            for (i, name) in ["milk", "eggs", "bread", "coffee"].enumerated() {
                try list.tasks.append(TaskItem(value: ["name": name, "isCompleted": i % 2 == 0]))
            }
            try store.add(
                TaskList(value: [
                    "name": "Other", "tasks": [TaskItem(value: ["name": "unrelated", "isCompleted": false])],
                ]))
        }
        #expect(try list.tasks.count == 4)
        #expect(try list.tasks.filter("isCompleted = true").map(\.name) == ["milk", "bread"])
        #expect(try list.tasks.filter("isCompleted = false").map(\.name) == ["eggs", "coffee"])
        #expect(try list.tasks.sorted(byKeyPath: "name").map(\.name) == ["bread", "coffee", "eggs", "milk"])
        let all = try store.objects(TaskItem.self)
        try store.write { try all.setValue(true, forKey: "isCompleted") }
        #expect(try all.filter("isCompleted == false").count == 0)
        #expect(try all.count == 5)
        try store.write { try list.tasks.remove(at: 0) }
        #expect(list.tasks.map(\.name) == ["eggs", "bread", "coffee"])
        let lists = try store.objects(TaskList.self).sorted(byKeyPath: "name", ascending: false)
        #expect(lists.map(\.name) == ["Other", "Groceries"])
    }

    @Test("The election graph of seed 000, queried as the app does")
    func electionGraph() throws {
        let store = try Store.inMemory(schema: SeedSchemas.elections())
        try SeedSchemas.loadVanessaPortugal(into: store)
        let mayors = try store.objects(Candidate.self).filter("post = 'Prefeito - BELO HORIZONTE/MG'").sorted(
            byKeyPath: "nickname")
        #expect(mayors.map(\.nickname) == ["VANESSA PORTUGAL"])
        let vanessa = try #require(mayors.first)
        #expect(vanessa.vice?.nickname == "FIRMINIA RODRIGUES")
        #expect(vanessa.party?.acronym == "PSTU")
        #expect(vanessa.coalition?.parties.map(\.acronym) == ["PSTU"])
        #expect(try vanessa.goods.count == 5)
        #expect(vanessa.goods.reduce(0.0) { $0 + $1.value } == 275_000.0)
        #expect(vanessa.birthdate == SeedSchemas.date("12/04/1970"))
        let vice = try #require(vanessa.vice)
        #expect(vice.holder.map(\.nickname) == ["VANESSA PORTUGAL"])
        let land = try #require(try store.object(ofType: GoodType.self, forPrimaryKey: 7))
        #expect(land.goods.map(\.goodDescription).sorted() == ["1/6 DE GLEBA DE 10 HA", "1/6 DE GLEBA DE 64 HA"])
        let car = try #require(try store.object(ofType: Good.self, forPrimaryKey: 229))
        #expect(car.candidate.map(\.id) == [21])
        let pstu = try #require(try store.object(ofType: Party.self, forPrimaryKey: 17))
        #expect(try pstu.candidates.count == 2)
        #expect(pstu.coalition.map(\.id) == [11])
        // Key paths through links, @count and ANY on lists, diacritic-insensitive matching.
        #expect(try store.objects(Candidate.self).filter("party.acronym == 'PSTU'").count == 2)
        #expect(try store.objects(Candidate.self).filter("goods.@count > 3").map(\.id) == [21])
        #expect(try store.objects(Candidate.self).filter("ANY goods.value >= 150000").map(\.id) == [21])
        #expect(try store.objects(Good.self).filter("goodDescription CONTAINS[d] 'ESPERANCA'").map(\.id) == [226])
        #expect(try store.objects(Candidate.self).filter("vice != nil").map(\.id) == [21])
        #expect(try store.objects(Candidate.self).filter("holder.@count > 0").map(\.id) == [22])
    }
}
