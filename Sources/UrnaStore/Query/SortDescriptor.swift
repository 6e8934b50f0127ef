/// One sort key: a key path from the sorted type (through to-one links allowed) and a direction.
///
/// ```swift
/// [SortDescriptor(keyPath: "party.acronym"), SortDescriptor(keyPath: "votes", ascending: false)]
/// ```
public struct SortDescriptor: Sendable, Hashable {
    public var keyPath: String
    public var ascending: Bool

    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}
