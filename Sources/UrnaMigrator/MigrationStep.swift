import UrnaStore

/// A migration closure: runs once per step, with the old and new schema (Realm's `migrationBlock`,
/// without the version argument because a step knows its versions).
///
/// ```swift
/// MigrationStep("fullName from first and last name") { migration in
///     try migration.enumerateObjects(ofType: "Person") { old, new in
///         new["fullName"] = .string("\(old["firstName"]) \(old["lastName"])")
///     }
/// }
/// ```
public typealias MigrationClosure = @Sendable (_ migration: Migration) throws -> Void

/// Realm's single-block form: one closure for every upgrade, told the version the file was at.
///
/// ```swift
/// { migration, oldSchemaVersion in
///     try migration.enumerateObjects(ofType: "Person") { old, new in
///         if oldSchemaVersion < 1 { new["fullName"] = ... }
///         if oldSchemaVersion < 2 { new["email"] = "" }
///     }
/// }
/// ```
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: Int) throws -> Void

/// A property that keeps its data under a new name (never dropped and re-added).
public struct PropertyRename: Sendable, Hashable, Codable {
    public var type: String
    public var from: String
    public var to: String

    public init(type: String, from: String, to: String) {
        self.type = type
        self.from = from
        self.to = to
    }
}

extension [PropertyRename] {
    /// The name under which `type`'s old property `oldName` keeps its values in `new`, or nil when they are not
    /// kept: `new` has no property of that name, or the name now belongs to another old property renamed onto it
    /// (`title` renamed to `name` while the old `name` goes: the old names are dropped, not kept).
    func keptName(type: String, oldName: String, in new: ObjectSchema) -> String? {
        let name = first { $0.type == type && $0.from == oldName }?.to ?? oldName
        guard new[property: name] != nil else { return nil }
        let source = first { $0.type == type && $0.to == name }?.from ?? name
        return source == oldName ? name : nil
    }

    /// The old property whose values the new property `newName` of `type` takes, following renames (every type's
    /// renames when `type` is nil): the one renamed onto it, else the old property of its name, unless a rename took
    /// that name away (`name` renamed to `title` while a new `name` is added: the new `name` is new, not a copy of
    /// the old values, which went to `title`).
    func sourceName(type: String?, newName: String) -> String? {
        func ofType(_ r: PropertyRename) -> Bool { type == nil || r.type == type }
        if let r = first(where: { ofType($0) && $0.to == newName }) { return r.from }
        if contains(where: { ofType($0) && $0.from == newName }) { return nil }
        return newName
    }
}

/// An explicit permission for a change the migrator would otherwise refuse without a closure.
public enum MigrationAllowance: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Convert the property's values as well as possible; values that don't convert exactly take the
    /// new property's default (or nil) and the report counts them.
    case lossyConversion(type: String, property: String)
    /// The property becomes required without a default (or is added required without a default): its nils
    /// (every existing object's, for an added property) become the type's zero value.
    case nullsBecomeDefault(type: String, property: String)
    /// The property is removed and its non-nil values are dropped with it.
    case discard(type: String, property: String)
    /// The type is removed and its objects are dropped with it.
    case discardType(type: String)

    /// Every allowance that lets `Type.property` lose data (what `--allow-loss Type.property` grants), or,
    /// for a bare `Type`, the removal of the type's objects.
    ///
    /// ```swift
    /// options.allowances = MigrationAllowance.loss(of: "Author.fullName")
    /// ```
    public static func loss(of name: String) -> [MigrationAllowance] {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return [.discardType(type: name)] }
        return [
            .lossyConversion(type: parts[0], property: parts[1]),
            .nullsBecomeDefault(type: parts[0], property: parts[1]),
            .discard(type: parts[0], property: parts[1]),
        ]
    }

    public var type: String {
        switch self {
        case .lossyConversion(let t, _), .nullsBecomeDefault(let t, _), .discard(let t, _), .discardType(let t): t
        }
    }

    /// The property concerned ("" for `discardType`).
    public var property: String {
        switch self {
        case .lossyConversion(_, let p), .nullsBecomeDefault(_, let p), .discard(_, let p): p
        case .discardType: ""
        }
    }

    /// The allowance as Swift source, for messages (`.lossyConversion(type: "Book", property: "price")`).
    var swiftSpelling: String {
        switch self {
        case .lossyConversion(let t, let p): ".lossyConversion(type: \"\(t)\", property: \"\(p)\")"
        case .nullsBecomeDefault(let t, let p): ".nullsBecomeDefault(type: \"\(t)\", property: \"\(p)\")"
        case .discard(let t, let p): ".discard(type: \"\(t)\", property: \"\(p)\")"
        case .discardType(let t): ".discardType(type: \"\(t)\")"
        }
    }

    /// The `--allow-loss` argument that gives the allowance: `Type.property`, or `Type` for `.discardType`.
    var commandLineSpelling: String {
        switch self {
        case .lossyConversion(let t, let p), .nullsBecomeDefault(let t, let p), .discard(let t, let p): "\(t).\(p)"
        case .discardType(let t): t
        }
    }

    /// Both spellings, as refusals give them: `.discard(type: "Book", property: "isbn") (command line: --allow-loss
    /// Book.isbn)`.
    var spelledOut: String { "\(swiftSpelling) (command line: --allow-loss \(commandLineSpelling))" }

    public var description: String {
        switch self {
        case .lossyConversion(let t, let p): "lossy conversion of \(t).\(p)"
        case .nullsBecomeDefault(let t, let p): "nils of \(t).\(p) become its default"
        case .discard(let t, let p): "the values of \(t).\(p) are dropped"
        case .discardType(let t): "the objects of \(t) are dropped"
        }
    }
}

/// How one version is reached from the previous one: renames, allowances and an optional closure.
///
/// What needs no closure happens by itself: added properties get their default (or nil), removed
/// properties and types are dropped, index and primary-key changes, widening conversions.
public struct MigrationStep: Sendable {
    /// One line saying what the step does, for plans and status.
    public var summary: String
    public var renames: [PropertyRename]
    public var allowances: [MigrationAllowance]
    /// Runs with the old and new forms of objects; nil when the step is automatic.
    public var migration: MigrationClosure?
    /// SQL run (from this code, never from a file) inside the run's transaction before the step touches any
    /// table: e.g. `DROP VIEW shelf_titles` before the column it reads is renamed.
    public var sqlBefore: [String]
    /// SQL run after the step's objects are copied and its tables are in their new form, before the checks:
    /// e.g. recreating a view on the renamed column, or a backfill.
    public var sqlAfter: [String]

    public init(
        _ summary: String = "", renames: [PropertyRename] = [], allowances: [MigrationAllowance] = [],
        sqlBefore: [String] = [], sqlAfter: [String] = [], migration: MigrationClosure? = nil
    ) {
        self.summary = summary
        self.renames = renames
        self.allowances = allowances
        self.sqlBefore = sqlBefore
        self.sqlAfter = sqlAfter
        self.migration = migration
    }
}

/// One step as the runner executes it: from one full schema to another.
///
/// A family written in Realm's single-block form resolves to one step from the file's version to the
/// target, whose closure calls the block with the file's version (as Realm does).
struct ResolvedStep: @unchecked Sendable {
    let from: Schema
    let to: Schema
    let renames: [PropertyRename]
    let allowances: Set<MigrationAllowance>
    let closure: MigrationClosure?
    let summary: String
    var sqlBefore: [String] = []
    var sqlAfter: [String] = []

    /// The old name of a new property, following renames; nil for a name a rename took away and nothing was renamed
    /// onto (a new property).
    func oldName(type: String, newName: String) -> String? {
        renames.sourceName(type: type, newName: newName)
    }

    /// The new name of an old property, following renames.
    func newName(type: String, oldName: String) -> String {
        renames.first { $0.type == type && $0.from == oldName }?.to ?? oldName
    }

    func allows(_ allowance: MigrationAllowance) -> Bool { allowances.contains(allowance) }
}
