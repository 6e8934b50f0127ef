extension Schema {
    /// How this (the code's) schema differs from the one a file records at the same version, one line per
    /// difference; empty when they describe the same types and properties (declaration order aside).
    ///
    /// ```swift
    /// schema.differences(fromRecorded: recorded)
    /// // ["Dog.age: the file has int64, the code has string", "Dog.nickname: only in the code"]
    /// ```
    public func differences(fromRecorded recorded: Schema) -> [String] {
        var out: [String] = []
        for t in recorded.types where self[type: t.name] == nil { out.append("type \(t.name): only in the file") }
        for code in types {
            guard let file = recorded[type: code.name] else {
                out.append("type \(code.name): only in the code")
                continue
            }
            if code.embedded != file.embedded {
                out.append("type \(code.name): embedded in the \(code.embedded ? "code" : "file") only")
            }
            for p in file.properties where code[property: p.name] == nil {
                out.append("\(code.name).\(p.name): only in the file")
            }
            for p in code.properties {
                guard let f = file[property: p.name] else {
                    out.append("\(code.name).\(p.name): only in the code")
                    continue
                }
                out += Self.differences(code: p, file: f, in: code.name)
            }
        }
        for v in recorded.views where self[view: v.name] == nil { out.append("view \(v.name): only in the file") }
        for v in views {
            guard let f = recorded[view: v.name] else {
                out.append("view \(v.name): only in the code")
                continue
            }
            if v.checksum != f.checksum { out.append("view \(v.name): its SQL differs (checksum \(f.checksum) in the file, \(v.checksum) in the code)") }
        }
        return out
    }

    private static func differences(code p: Property, file f: Property, in type: String) -> [String] {
        var out: [String] = []
        let name = "\(type).\(p.name)"
        if p.type != f.type { out.append("\(name): the file has \(f.type.name), the code has \(p.type.name)") }
        if p.optional != f.optional {
            out.append(
                "\(name): \(f.optional ? "optional" : "required") in the file, \(p.optional ? "optional" : "required") in the code"
            )
        }
        if p.primaryKey != f.primaryKey {
            out.append("\(name): the primary key in the \(p.primaryKey ? "code" : "file") only")
        }
        if p.indexed != f.indexed { out.append("\(name): indexed in the \(p.indexed ? "code" : "file") only") }
        if p.ignored != f.ignored {
            out.append("\(name): ignored (not stored) in the \(p.ignored ? "code" : "file") only")
        }
        let codeDefault = p.defaultValue.map { DefaultValue.normalised($0, for: p.type) }
        let fileDefault = f.defaultValue.map { DefaultValue.normalised($0, for: f.type) }
        if codeDefault != fileDefault {
            out.append(
                "\(name): default \(Self.render(fileDefault)) in the file, \(Self.render(codeDefault)) in the code")
        }
        return out
    }

    private static func render(_ d: DefaultValue?) -> String {
        switch d {
        case nil: "none"
        case .bool(let b): "\(b)"
        case .int(let i): "\(i)"
        case .double(let x): "\(x)"
        case .string(let s): "\"\(s)\""
        }
    }
}
