import Foundation
import Testing
import UrnaStore

/// The README's "Threads, tasks and freshness" examples, run as written (Swift 6 language mode).
@Suite("README: threads, tasks and freshness")
struct ReadmeConcurrencyExampleTests {
    final class Dog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var name = ""
        @Persisted var age = 0
        @Persisted var owner: Person?
    }

    final class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<Dog>
        @Persisted(originProperty: "owner") var ownedDogs: LinkingObjects<Dog>
        var scratch = ""
    }

    @Test("Tasks share one store; asyncRead/asyncWrite; observe, refresh, isInvalidated")
    func example() async throws {
        let (dir, path) = try ConcurrencyTests.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let schema = try Schema(family: "pets", version: 1, models: [Dog.self, Person.self])
        // As in the README:
        let store = try Store(path: path, schema: schema)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<100 { try store.write { try store.create(Dog.self, value: [t * 100 + i, "Rex"]) } }
                }
            }
            try await group.waitForAll()
        }
        let task = Task { try store.write { try store.create(Dog.self, value: [900, "Fido"]) } }  // as in the README
        try await task.value
        let count = try await store.asyncRead { try store.objects(Dog.self).count }
        try await store.asyncWrite { _ = try store.create(Dog.self, value: [901, "Ben"]) }
        #expect(count == 801)

        let rex = try store.object(ofType: Dog.self, forPrimaryKey: 2)!
        let heard = ChangeRecorder<ResultsChange>()
        let token = try store.objects(Dog.self).sorted(byKeyPath: "name").observe { change in heard.append(change) }
        let dogHeard = ChangeRecorder<ObjectChange>()
        let dogToken = try rex.observe { change in dogHeard.append(change) }
        let other = try Store(path: path, schema: schema)
        try other.write { try other.delete(try other.object(ofType: Dog.self, forPrimaryKey: 2)!) }
        try store.refresh()
        #expect(rex.isInvalidated)
        #expect(dogHeard.all == [.deleted])
        #expect(heard.all.count == 2)
        token.invalidate()
        dogToken.invalidate()
    }
}
