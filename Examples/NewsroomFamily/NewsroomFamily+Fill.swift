import Foundation
import UrnaMigrator
import UrnaStore

extension NewsroomFamily {
    /// The reporters' numeric ids (the extremes of Int64 included) and what each one holds.
    static let reporterIDs: [Int64] = [1, 2, 3, .min, .max]
    static let reporterNames = ["Ana Lúcia", "", "李小龍 🐉", "Zoë O'Brien", "Robert'); DROP TABLE Story;--"]
    static let reporterEmails: [String?] = ["ana@jornal.example", nil, "", nil, "x@y"]
    static let reporterBeats: [String?] = ["política", nil, "esportes", "", nil]
    /// The tags' names (the empty name is a key too).
    public static let tagNames = ["", "economia", "ção ✓", "Tag with space", "🗞️"]

    static func storyID(_ i: Int) -> UUID { UUID(uuidString: String(format: "5E000000-0000-4000-8000-%012d", i))! }
    static func reporterOf(_ i: Int) -> Int? { i % 4 == 0 ? nil : i % reporterIDs.count }
    static func title(_ i: Int) -> String {
        switch i {
        case 1: ""
        case 2: "Ação: 'aspas' \"duplas\" ✓ — ﷽"
        default: "Story \(i) about \(tagNames[i % tagNames.count])"
        }
    }
    static func fee(_ i: Int) -> String {
        i == 5 ? "-0.01" : i == 6 ? "1000000000000.25" : String(format: "%.2f", Double(i) * 12.34)
    }
    static func words(_ i: Int) -> Int64? { i == 1 ? .max : i == 2 ? .min : i == 3 ? nil : Int64(i * 100) }
    /// A photo: `big` bytes (3 MB by default) for the first story, empty for the second, none for every third.
    static func photo(_ i: Int, big: Int) -> Data? {
        if i == 1 {
            var bytes = [UInt8](repeating: 0, count: big)
            for k in 0..<big { bytes[k] = UInt8(truncatingIfNeeded: k &* 31 &+ 7) }
            return Data(bytes)
        }
        if i == 2 { return Data() }
        return i % 3 == 0 ? nil : Data((0..<(i * 5)).map { UInt8(truncatingIfNeeded: $0 + i) })
    }
    static func credit(_ i: Int) -> String? { i % 2 == 0 ? "Foto: Agência \(i)" : nil }

    static func reporterValues(_ r: Int, version: Int) -> [String: Any] {
        var v: [String: Any] = [
            "id": version >= 2 ? "r\(reporterIDs[r])" as Any : reporterIDs[r] as Any,
            version >= 2 ? "fullName" : "name": reporterNames[r],
        ]
        if let e = reporterEmails[r] { v["email"] = e } else if version >= 3 { v["email"] = "" }
        if version < 5, let b = reporterBeats[r] { v["beat"] = b }
        return v
    }

    /// Story i as stored at `version` by an app that filled it at `origin` (values that a later step makes up,
    /// a rating of 0 for a required rating or a default role, depend on where they came from).
    static func storyValues(_ i: Int, version: Int, origin: Int, photoBytes: Int) -> [String: Any] {
        var v: [String: Any] = [
            "id": storyID(i), "slug": "story-\(i)", version >= 6 ? "headline" : "title": title(i),
            "fee": version >= 2 ? Decimal(string: fee(i))! as Any : Double(fee(i))! as Any,
        ]
        if i % 2 == 1 { v["published"] = Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 3_600.5) }
        if let p = photo(i, big: photoBytes) { v["photo"] = p }
        if let w = words(i) { v["words"] = w }
        let rating: Int64? = i % 3 == 0 ? nil : Int64(i % 5)
        if let rating { v["rating"] = rating } else if origin < 3 { v["rating"] = Int64(0) }
        if i % 3 != 0 {
            var byline: [String: Any] = ["text": i == 4 ? "" : "Por \(reporterNames[i % reporterNames.count])"]
            if version >= 4 { byline["role"] = origin >= 4 && i % 2 == 1 ? "editor" : "staff" }
            if version < 5 { byline["credit"] = credit(i) } else if let c = credit(i) { v["credit"] = c }
            v["byline"] = byline
        }
        if version >= 5, let r = reporterOf(i), let beat = reporterBeats[r] { v["beat"] = beat }
        return v
    }

    /// Story i's tags (indexes into `tagNames`); some stories have none, one has a tag twice.
    static func storyTags(_ i: Int) -> [Int] { i % 5 == 0 ? [] : i == 3 ? [1, 1, 0] : [i % 5, (i + 2) % 5] }

    /// Writes a file at `version` as the app at that version fills it: five reporters, five tags, `stories` stories
    /// (every fourth without a reporter), a memo on every odd story while memos exist, the app's search index.
    /// `origin` is the version whose app wrote the data (`version` for a fixture, an older one for an expected file).
    public static func fill(
        at path: String, version: Int, origin: Int? = nil, stories n: Int = 8, photoBytes: Int = 3_000_000
    ) throws {
        let origin = origin ?? version
        let store = try Store(path: path, schema: versions[version])
        try store.write {
            for sql in searchSQL(title: version >= 6 ? "headline" : "title") { try store.connection.execute(sql) }
            let reporters = try reporterIDs.indices.map {
                try store.create(version >= 1 ? "Reporter" : "Writer", value: reporterValues($0, version: version))
            }
            let tags = try tagNames.map { try store.create(version >= 4 ? "Label" : "Tag", value: ["name": $0]) }
            for i in 1...n {
                var s = storyValues(i, version: version, origin: origin, photoBytes: photoBytes)
                if let r = reporterOf(i) { s[version >= 1 ? "reporter" : "writer"] = reporters[r] }
                s["tags"] = storyTags(i).map { tags[$0] }
                let story = try store.create("Story", value: s)
                if version < 5, origin < 5, i % 2 == 1 {
                    try store.create(
                        "Memo", value: ["text": i == 1 ? "" : "memo ✎ \(i)", "story": story] as [String: Any])
                }
            }
        }
    }
}
