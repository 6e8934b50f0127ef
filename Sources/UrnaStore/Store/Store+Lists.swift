import Foundation

/// A list's edits, each a few statements on its table whatever the list's length (append reads the last
/// position through the (owner, position) key instead of rewriting the list).
extension Store {
    /// The list's table, its owner's key and the members' type, for a managed owner in a write.
    func listContext(owner: DynamicObject, property: String) throws -> (
        table: String, owner: SQLValue, target: ObjectSchema
    ) {
        try requireWrite()
        guard let p = owner.type[property: property], case .list(let target) = p.type, let key = owner.storedKey else {
            throw StoreError.unknownProperty(type: owner.type.name, property: property)
        }
        // A handle a read found deleted: its key may be another object's now.
        if owner.foundGone { throw StoreError.invalidated(type: owner.type.name) }
        return (
            Identifier.quoted(StorageLayout.listTable(type: owner.type.name, property: p.name)), key,
            try objectSchema(target)
        )
    }

    /// The stored key of a member: a managed object's own, or the key it gets when added now.
    func memberKey(_ object: Object, target: ObjectSchema) throws -> SQLValue {
        if let m = object.managedObject, m.store === self, let k = m.storedKey { return k }
        let k = try upsert(type: target, input: object, update: target.primaryKey == nil ? .error : .modified)
        object.bind(to: DynamicObject(type: target, store: self, key: k))
        return k
    }

    func listAppend(owner: DynamicObject, property: String, members: [Object]) throws {
        try writing {
            let c = try listContext(owner: owner, property: property)
            for m in members {
                let k = try memberKey(m, target: c.target)
                try connection.run(
                    "INSERT INTO \(c.table)(owner, position, target) SELECT ?1, coalesce(max(position) + 1, 0), ?2 FROM \(c.table) WHERE owner = ?1",
                    [c.owner, k])
            }
            listChanged(owner)
        }
    }

    func listInsert(owner: DynamicObject, property: String, member: Object, at index: Int) throws {
        try writing {
            let c = try listContext(owner: owner, property: property)
            let count = try listCount(c)
            guard index >= 0 && index <= count else { throw StoreError.indexOutOfRange(index: index, count: count) }
            let k = try memberKey(member, target: c.target)
            let position = index == count ? try nextPosition(c) : try positionOf(index, c)
            try shift(c, from: position, by: 1)
            try connection.run(
                "INSERT INTO \(c.table)(owner, position, target) VALUES (?, ?, ?)", [c.owner, .integer(position), k])
            listChanged(owner)
        }
    }

    func listRemove(owner: DynamicObject, property: String, at index: Int) throws {
        try writing {
            let c = try listContext(owner: owner, property: property)
            let count = try listCount(c)
            guard index >= 0 && index < count else { throw StoreError.indexOutOfRange(index: index, count: count) }
            let position = try positionOf(index, c)
            try connection.run(
                "DELETE FROM \(c.table) WHERE owner = ? AND position = ?", [c.owner, .integer(position)])
            try shift(c, from: position + 1, by: -1)
            listChanged(owner)
        }
    }

    func listReplace(owner: DynamicObject, property: String, at index: Int, with member: Object) throws {
        try writing {
            let c = try listContext(owner: owner, property: property)
            let count = try listCount(c)
            guard index >= 0 && index < count else { throw StoreError.indexOutOfRange(index: index, count: count) }
            let k = try memberKey(member, target: c.target)
            try connection.run(
                "UPDATE \(c.table) SET target = ? WHERE owner = ? AND position = ?",
                [k, c.owner, .integer(try positionOf(index, c))])
            listChanged(owner)
        }
    }

    func listMove(owner: DynamicObject, property: String, from: Int, to: Int) throws {
        try writing {
            let c = try listContext(owner: owner, property: property)
            let count = try listCount(c)
            guard from >= 0 && from < count else { throw StoreError.indexOutOfRange(index: from, count: count) }
            guard to >= 0 && to < count else { throw StoreError.indexOutOfRange(index: to, count: count) }
            guard from != to else { return }
            let fromPosition = try positionOf(from, c)
            guard
                case .some(let k) = try connection.scalar(
                    "SELECT target FROM \(c.table) WHERE owner = ? AND position = ?", [c.owner, .integer(fromPosition)])
            else { return }
            try connection.run(
                "DELETE FROM \(c.table) WHERE owner = ? AND position = ?", [c.owner, .integer(fromPosition)])
            try shift(c, from: fromPosition + 1, by: -1)
            let newCount = count - 1
            let position = to == newCount ? try nextPosition(c) : try positionOf(to, c)
            try shift(c, from: position, by: 1)
            try connection.run(
                "INSERT INTO \(c.table)(owner, position, target) VALUES (?, ?, ?)", [c.owner, .integer(position), k])
            listChanged(owner)
        }
    }

    func listRemoveAll(owner: DynamicObject, property: String) throws {
        try writing {
            let c = try listContext(owner: owner, property: property)
            try connection.run("DELETE FROM \(c.table) WHERE owner = ?", [c.owner])
            listChanged(owner)
        }
    }

    private func listCount(_ c: (table: String, owner: SQLValue, target: ObjectSchema)) throws -> Int {
        Int(try connection.integer("SELECT count(*) FROM \(c.table) WHERE owner = ?", [c.owner]))
    }

    private func nextPosition(_ c: (table: String, owner: SQLValue, target: ObjectSchema)) throws -> Int64 {
        try connection.integer("SELECT coalesce(max(position) + 1, 0) FROM \(c.table) WHERE owner = ?", [c.owner])
    }

    /// The stored position of the member at `index` (positions may have gaps in files written elsewhere).
    private func positionOf(_ index: Int, _ c: (table: String, owner: SQLValue, target: ObjectSchema)) throws -> Int64 {
        try connection.integer(
            "SELECT position FROM \(c.table) WHERE owner = ? ORDER BY position LIMIT 1 OFFSET ?",
            [c.owner, .integer(Int64(index))])
    }

    /// Moves every member at `position` or after by `delta`, in two steps through negative positions so no
    /// step collides with a member not moved yet (the key is (owner, position)).
    private func shift(
        _ c: (table: String, owner: SQLValue, target: ObjectSchema), from position: Int64, by delta: Int64
    ) throws {
        try connection.run(
            "UPDATE \(c.table) SET position = -1 - (position + ?) WHERE owner = ? AND position >= ?",
            [.integer(delta), c.owner, .integer(position)])
        try connection.run("UPDATE \(c.table) SET position = -1 - position WHERE owner = ? AND position < 0", [c.owner])
    }

    private func listChanged(_ owner: DynamicObject) {
        pendingChanges.modified[owner.type.name, default: 0] += 1
        bumpGeneration()
    }
}
