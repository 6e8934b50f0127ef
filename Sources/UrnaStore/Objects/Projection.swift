import Foundation

/// A typed view of a model (seed 002's projections, Realm's `Projection<Root>`): a subclass declares the
/// properties it shows with `@Projected`, each one a key path on the root object that may pass a property
/// through or transform it.
///
/// ```swift
/// final class Profile: Projection<Person> {
///     @Projected(\Person.firstName) var firstName
///     @Projected(\Person.lastName.localizedCapitalized.first) var lastNameInitial
/// }
/// let profiles = try store.objects(Profile.self)   // one Profile per Person, in the store's order
/// ```
///
/// A projection reads through its root object every time, so it shows the root's current values (and
/// traps like the root does once the root is deleted; check `isInvalidated`).
open class Projection<Root: Object> {
    /// The object this projection reads.
    public let rootObject: Root

    /// A projection of one object.
    public required init(projecting object: Root) {
        self.rootObject = object
    }

    /// Whether the root object was deleted.
    public var isInvalidated: Bool { rootObject.isInvalidated }
}

/// One property of a `Projection`: the value of a key path on the projection's root object.
@propertyWrapper
public struct Projected<Root: Object, T> {
    /// The key path read on the root object.
    public let keyPath: KeyPath<Root, T>

    public init(_ keyPath: KeyPath<Root, T>) {
        self.keyPath = keyPath
    }

    /// `@Projected` belongs on `Projection` subclasses: reads go through the projection's root object.
    @available(*, unavailable, message: "@Projected can only be used on properties of Projection subclasses")
    public var wrappedValue: T {
        fatalError("@Projected outside a Projection subclass")
    }

    public static subscript<EnclosingSelf: Projection<Root>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: KeyPath<EnclosingSelf, T>,
        storage storageKeyPath: KeyPath<EnclosingSelf, Projected<Root, T>>
    ) -> T {
        projection.rootObject[keyPath: projection[keyPath: storageKeyPath].keyPath]
    }
}

extension Store {
    /// One projection per object of its root type, in the store's order.
    public func objects<Root: Object, P: Projection<Root>>(_ type: P.Type) throws -> [P] {
        try objects(Root.self).map { P(projecting: $0) }
    }
}

extension TypedResults {
    /// These results seen through a projection.
    public func projected<P: Projection<Element>>(as type: P.Type) -> [P] {
        map { P(projecting: $0) }
    }
}
