import UrnaStore

/// One version of a family: the full schema, and the step that reaches it from the previous version.
public struct SchemaVersion: Sendable {
    public let schema: Schema
    /// How this version is reached from the one before it (ignored for the first version).
    public let step: MigrationStep

    public init(_ schema: Schema, step: MigrationStep = MigrationStep()) {
        self.schema = schema
        self.step = step
    }

    /// The version number (the schema's).
    public var version: Int { schema.version }
}

/// An ordered history of schema versions sharing a name, and how to go from each to the next.
///
/// ```swift
/// let people = SchemaFamily(name: "people", versions: [
///     SchemaVersion(v0),
///     SchemaVersion(v1, step: MigrationStep("fullName") { m in ... }),
///     SchemaVersion(v2, step: MigrationStep("email, empty")),
/// ])
/// ```
///
/// Realm's single-block form (one closure given the old version) is also accepted:
/// `SchemaFamily(name: "people", versions: [...], migrationBlock: { migration, oldSchemaVersion in ... })`.
public struct SchemaFamily: Sendable {
    public let name: String
    /// Versions in ascending order.
    public let versions: [SchemaVersion]
    /// Realm's single-block form; when set, steps must not carry closures of their own.
    public let migrationBlock: MigrationBlock?

    /// The oldest version a file may be at to be upgraded: the baseline of a squashed history (the first declared
    /// version unless given). Older files are refused with `MigrationError.olderThanSupported` and the advice.
    public let minimumVersion: Int
    /// What the owner of a file older than `minimumVersion` should do, said in the refusal (e.g. "open it once
    /// with library-app 2.x, which upgrades it to version 3").
    public let olderFilesAdvice: String?

    /// A family; `minimumVersion` and `olderFilesAdvice` declare a squashed (baselined) history:
    ///
    /// ```swift
    /// // v0-v2 were squashed into v3: files at v0-v2 are told to go through app 2.x first.
    /// SchemaFamily(name: "library", versions: [SchemaVersion(v3), SchemaVersion(v4, step: ...)],
    ///              minimumVersion: 3, olderFilesAdvice: "open it once with library-app 2.x, which upgrades it to v3")
    /// ```
    public init(
        name: String, versions: [SchemaVersion], migrationBlock: MigrationBlock? = nil, minimumVersion: Int? = nil,
        olderFilesAdvice: String? = nil
    ) {
        self.name = name
        self.versions = versions
        self.migrationBlock = migrationBlock
        self.minimumVersion = minimumVersion ?? versions.first?.version ?? 0
        self.olderFilesAdvice = olderFilesAdvice
    }

    /// Whether a file at `version` is older than the oldest version the family upgrades.
    public func isOlderThanSupported(_ version: Int) -> Bool { version < minimumVersion }

    /// The newest schema.
    public var latest: Schema {
        guard let last = versions.last else { preconditionFailure("family \(name) has no versions") }
        return last.schema
    }

    /// The newest version number.
    public var latestVersion: Int { latest.version }

    /// The oldest version number.
    public var firstVersion: Int { versions.first?.version ?? 0 }

    /// The schema at `version`, or nil when the family has no such version.
    public func schema(version: Int) -> Schema? { versions.first { $0.version == version }?.schema }

    /// Every version number, ascending.
    public var versionNumbers: [Int] { versions.map(\.version) }

    /// What is wrong with the family's definition (a bug in the code that declares it); empty when fine.
    public func problems() -> [String] {
        var out: [String] = []
        if versions.isEmpty { out.append("family \(name) has no versions") }
        if !versions.isEmpty, schema(version: minimumVersion) == nil {
            out.append("\(name): minimumVersion \(minimumVersion) is not one of its versions")
        }
        var previous: Int?
        for v in versions {
            if v.schema.family != name {
                out.append("version \(v.version) of \(name) declares family '\(v.schema.family)'")
            }
            if let p = previous, v.version <= p {
                out.append("\(name): versions must ascend, \(v.version) comes after \(p)")
            }
            for problem in v.schema.problems() { out.append("\(name) v\(v.version): \(problem)") }
            if migrationBlock != nil, v.step.migration != nil {
                out.append(
                    "\(name) v\(v.version): a family with a single migration block cannot also have step closures")
            }
            if let p = previous, let old = schema(version: p) {
                for r in v.step.renames {
                    if old[type: r.type]?[property: r.from] == nil {
                        out.append(
                            "\(name) v\(v.version): rename of \(r.type).\(r.from), which v\(p) does not have"
                                + Self.nearest(r.from, in: old[type: r.type]))
                    }
                    if v.schema[type: r.type]?[property: r.to] == nil {
                        out.append(
                            "\(name) v\(v.version): rename to \(r.type).\(r.to), which v\(v.version) does not have"
                                + Self.nearest(r.to, in: v.schema[type: r.type]))
                    }
                }
                out += Self.clashes(v.step.renames).map { "\(name) v\(v.version): \($0)" }
                for r in v.step.renames where old[type: r.type]?.embedded == true {
                    out.append(
                        "\(name) v\(v.version): rename of \(r.type).\(r.from) to \(r.to): \(r.type) is embedded, and "
                            + "renames are not applied inside embedded objects; remove it, and give the step a closure "
                            + "that writes the owners' \(r.type) values (new[\"...\"] = .embedded([\"\(r.to)\": ...]))")
                }
            }
            previous = v.version
        }
        return out
    }

    /// " (did you mean label?)" for the type's property nearest to a name no property has, or "".
    static func nearest(_ name: String, in type: ObjectSchema?) -> String {
        let names = type?.properties.map(\.name) ?? []
        func distance(_ n: String) -> Int { Migrator.editDistance(n.lowercased(), name.lowercased()) }
        guard let best = names.min(by: { distance($0) < distance($1) }), distance(best) <= 2 else { return "" }
        return " (did you mean \(best)?)"
    }

    /// Renames of one step that contradict each other: two onto one name (one of them would lose its values),
    /// or one name renamed twice (the second is ignored).
    static func clashes(_ renames: [PropertyRename]) -> [String] {
        var out: [String] = []
        for (i, r) in renames.enumerated() {
            for s in renames[..<i] where s.type == r.type {
                if s.to == r.to && s.from != r.from {
                    out.append(
                        "\(r.type).\(s.from) and \(r.type).\(r.from) are both renamed to \(r.to): one of them would "
                            + "lose its values; rename one to another name, or merge them in a closure")
                }
                if s.from == r.from && s.to != r.to {
                    out.append(
                        "\(r.type).\(r.from) is renamed twice (to \(s.to) and to \(r.to)): keep one rename, and copy "
                            + "the values into the other property in a closure")
                }
            }
        }
        return out
    }

    /// A one-line summary per step from `from` (exclusive) to `to` (inclusive).
    public func pendingSteps(from: Int, to: Int) -> [PendingStep] {
        var out: [PendingStep] = []
        var previous = from
        for v in versions where v.version > from && v.version <= to {
            out.append(
                PendingStep(
                    from: previous, to: v.version, summary: v.step.summary,
                    hasClosure: v.step.migration != nil || migrationBlock != nil))
            previous = v.version
        }
        return out
    }

    /// The diff from one version to another, following renames across the versions between them.
    public func diff(from: Int, to: Int) throws -> SchemaDiff {
        guard let a = schema(version: from) else {
            throw MigrationError.unknownVersion(family: name, version: from, known: versionNumbers)
        }
        guard let b = schema(version: to) else {
            throw MigrationError.unknownVersion(family: name, version: to, known: versionNumbers)
        }
        return SchemaDiff(from: a, to: b, renames: from < to ? chainedRenames(from: from, to: to) : [])
    }

    /// The steps the runner executes between two versions (`from` < `to`).
    func resolvedSteps(from: Int, to: Int) throws -> [ResolvedStep] {
        guard let start = schema(version: from) else {
            throw MigrationError.unknownVersion(family: name, version: from, known: versionNumbers)
        }
        guard let end = schema(version: to) else {
            throw MigrationError.unknownVersion(family: name, version: to, known: versionNumbers)
        }
        let path = versions.filter { $0.version > from && $0.version <= to }
        if let block = migrationBlock {
            let summary = path.map { "v\($0.version): \($0.step.summary)" }.joined(separator: "; ")
            return [
                ResolvedStep(
                    from: start, to: end, renames: chainedRenames(from: from, to: to),
                    allowances: Set(path.flatMap(\.step.allowances)),
                    closure: { migration in try block(migration, from) }, summary: summary,
                    sqlBefore: path.flatMap(\.step.sqlBefore), sqlAfter: path.flatMap(\.step.sqlAfter))
            ]
        }
        var out: [ResolvedStep] = []
        var previous = start
        for v in path {
            out.append(
                ResolvedStep(
                    from: previous, to: v.schema, renames: v.step.renames, allowances: Set(v.step.allowances),
                    closure: v.step.migration, summary: v.step.summary, sqlBefore: v.step.sqlBefore,
                    sqlAfter: v.step.sqlAfter))
            previous = v.schema
        }
        return out
    }

    /// Renames composed across the versions between `from` and `to` (a→b then b→c gives a→c).
    func chainedRenames(from: Int, to: Int) -> [PropertyRename] {
        guard let start = schema(version: from), let end = schema(version: to) else { return [] }
        // current name -> original name, per type
        var current: [String: [String: String]] = [:]
        for t in start.types {
            current[t.name] = Dictionary(uniqueKeysWithValues: t.properties.map { ($0.name, $0.name) })
        }
        // A step's renames happen at once (a swap a -> b, b -> a read one after the other cancelled itself).
        for v in versions where v.version > from && v.version <= to {
            var next = current
            for r in v.step.renames { next[r.type]?[r.from] = nil }
            for r in v.step.renames {
                guard let original = current[r.type]?[r.from] else { continue }
                next[r.type]?[r.to] = original
            }
            current = next
        }
        var out: [PropertyRename] = []
        for (type, names) in current.sorted(by: { $0.key < $1.key }) {
            for (now, original) in names.sorted(by: { $0.key < $1.key }) where now != original {
                if start[type: type]?[property: original] != nil, end[type: type]?[property: now] != nil {
                    out.append(PropertyRename(type: type, from: original, to: now))
                }
            }
        }
        return out
    }
}

/// A step still to run on a file.
public struct PendingStep: Sendable, Codable, Equatable {
    public let from: Int
    public let to: Int
    public let summary: String
    public let hasClosure: Bool
}
