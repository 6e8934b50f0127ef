import Foundation
import UrnaMigrator
import UrnaStore

extension FieldworkFamily {
    /// The observers' logins in fixture files (two with capitals, so v6's lower-casing changes their keys).
    public static let logins = ["Ana", "bruno", "Carla.Souza", "davi"]
    /// The fixture sites' keys; the third is never visited.
    public static let siteIDs = [
        UUID(uuidString: "0E0B7A52-4C2D-4F57-9A4B-0A5D2C9E1F01")!,
        UUID(uuidString: "0E0B7A52-4C2D-4F57-9A4B-0A5D2C9E1F02")!,
        UUID(uuidString: "0E0B7A52-4C2D-4F57-9A4B-0A5D2C9E1F03")!,
    ]
    static let siteHabitats: [String?] = ["forest", nil, "dune"]
    static let siteElevations: [Int64?] = [812, nil, 1500]

    static func observerValues(_ i: Int, lowerCased: Bool) -> [String: Any] {
        var o: [String: Any] = [
            "id": lowerCased ? logins[i].lowercased() : logins[i],
            "name": ["Ana Lúcia", "Bruno", "Carla Souza", "Davi"][i],
        ]
        if i % 2 == 0 { o["email"] = "\(logins[i].lowercased())@campo.example" } else if lowerCased { o["email"] = "" }
        return o
    }

    static func siteValues(_ i: Int, version: Int) -> [String: Any] {
        var s: [String: Any] = ["id": siteIDs[i], "code": "S\(i + 1)", "name": ["Mata Alta", "Brejo", "Duna Sul"][i]]
        if i != 1 { s["location"] = ["lat": -23.5 - Double(i), "lon": -46.6 + Double(i) / 10] }
        if let e = siteElevations[i] { s["elevation"] = version >= 2 ? "\(Double(e))" as Any : e as Any }
        if i == 0 { s["established"] = Date(timeIntervalSince1970: 1_500_000_000) }
        if version < 3, let h = siteHabitats[i] { s["habitat"] = h }
        if version >= 3, i == 2, let h = siteHabitats[i] { s["name"] = "Duna Sul (\(h))" }
        return s
    }

    /// The observers of visit `i` (indexes into `logins`).
    static func crew(_ i: Int) -> [Int] { i % 3 == 0 ? [] : [i % 4, (i + 1) % 4] }

    static func visitValues(_ i: Int) -> [String: Any] {
        var v: [String: Any] = [
            "id": i, "at": Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 86_400),
            "cost": Decimal(string: "\(10 + i).\(i % 10)5")!,
        ]
        if i % 2 == 1 { v["weather"] = ["sol", "chuva", "nublado ☁️"][i % 3] }
        if i % 4 != 0 { v["photo"] = Data((0..<(8 + i)).map { UInt8(($0 * 37 + i) % 256) }) }
        return v
    }

    static func sampleValues(_ i: Int, _ k: Int, version: Int) -> [String: Any] {
        let depth = Int64(i * 10 + k)
        var s: [String: Any] = [
            "id": "S-\(i * 10 + k)", "kind": ["soil", "water"][k],
            "depth": version >= 5 ? "\(Double(depth))" as Any : version >= 2 ? Double(depth) as Any : depth as Any,
        ]
        if k == 0 { s["mass"] = Decimal(string: "\(i).12\(k)")! }
        return s
    }

    /// Writes a v0 file as the app fills it: four observers, three sites (the third never visited), `visits`
    /// visits over the first two sites (some with no observers, no weather, no photo), two samples and a tag each.
    public static func fillV0(at path: String, visits: Int = 8) throws {
        let store = try Store(path: path, schema: v0)
        try store.write {
            let observers = try logins.indices.map {
                try store.create("Observer", value: observerValues($0, lowerCased: false))
            }
            let sites = try siteIDs.indices.map { try store.create("Site", value: siteValues($0, version: 0)) }
            for i in 1...visits {
                var v = visitValues(i)
                v["site"] = sites[i % 2]
                v["observers"] = crew(i).map { observers[$0] }
                let visit = try store.create("Visit", value: v)
                for k in 0..<2 {
                    var s = sampleValues(i, k, version: 0)
                    s["visit"] = visit
                    try store.create("Sample", value: s)
                }
                try store.create("Tag", value: ["label": "tag \(i)", "visit": visit] as [String: Any])
            }
        }
    }

    /// Writes, independently of the steps, the v6 file a migrated `fillV0(visits:)` file must equal.
    public static func fillV6(at path: String, visits: Int = 8) throws {
        let store = try Store(path: path, schema: v6)
        try store.write {
            let observers = try logins.indices.map {
                try store.create("Observer", value: observerValues($0, lowerCased: true))
            }
            let sites = try siteIDs.indices.map { try store.create("Site", value: siteValues($0, version: 6)) }
            for i in 1...visits {
                var v = visitValues(i)
                v["site"] = sites[i % 2]
                v["team"] = crew(i).prefix(1).map { observers[$0] }
                if v["weather"] == nil { v["weather"] = "" }
                if let h = siteHabitats[i % 2] { v["habitat"] = h }
                let visit = try store.create("Visit", value: v)
                for k in 0..<2 {
                    var s = sampleValues(i, k, version: 6)
                    s["visit"] = visit
                    try store.create("Specimen", value: s)
                }
            }
        }
    }
}
