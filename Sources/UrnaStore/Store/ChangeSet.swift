/// What one committed write did, per type.
///
/// Writes through the store's API are counted per type; a commit made elsewhere (another store,
/// connection or process, found by `refresh()` or at the start of a write) and raw SQL inside a write
/// cannot be counted, so the types they may have changed are listed in `possiblyChanged`.
public struct ChangeSet: Sendable, Equatable {
    public var inserted: [String: Int] = [:]
    public var modified: [String: Int] = [:]
    public var deleted: [String: Int] = [:]
    /// Types that may have changed in ways not counted above (raw SQL, another connection's commit).
    public var possiblyChanged: Set<String> = []

    public init() {}

    /// A change set naming types that may have changed.
    public init(possiblyChanged: Set<String>) { self.possiblyChanged = possiblyChanged }

    public var isEmpty: Bool { inserted.isEmpty && modified.isEmpty && deleted.isEmpty && possiblyChanged.isEmpty }
    /// Every type that changed (or may have) in any way.
    public var types: Set<String> {
        Set(inserted.keys).union(modified.keys).union(deleted.keys).union(possiblyChanged)
    }
}
