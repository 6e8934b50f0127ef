/// One sort key: a key path from the sorted type (through to-one links allowed) and a direction.
///
/// ```swift
/// [SortKey(keyPath: "party.acronym"), SortKey(keyPath: "votes", ascending: false)]
/// ```
public struct SortKey: Sendable, Hashable {
    public var keyPath: String
    public var ascending: Bool

    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}
