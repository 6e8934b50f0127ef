import UrnaMigrator
import UrnaStore

/// The `elections` family at its latest version (6): v5's types and views, with one change: a good type is
/// one code in one election year (`GoodType` keyed `<ANO_ELEICAO>/<CD_TIPO_BEM_CANDIDATO>`, as `Party` is keyed
/// `<year>/<NR_PARTIDO>`), so each year's goods keep the DS_TIPO_BEM_CANDIDATO of their own files. TSE reworded
/// codes between years (73 is "Fundo de capitalização" in 2014, "Fundo de Investimento Imobiliário" from 2018;
/// 71 and 74 changed too): keyed by the code alone (v1-v5), the newest file's text stood for every year.
///
/// The year is the one of the good's candidacy's election; `code` keeps the number for queries
/// (`Good` where `type.code == 73`, or `CD_TIPO_BEM_CANDIDATO = 73` in the `goods` view).
public enum ElectionsV6 {
    public static let version = 6

    /// A good type's key: `<year>/<CD_TIPO_BEM_CANDIDATO>` (`2014/73`).
    public static func goodTypeKey(year: Int64, code: Int64) -> String { "\(year)/\(code)" }

    /// The year a candidacy key (or a good key, which starts with it) belongs to: its election's, the key's first
    /// part (`2014/1/ELEICOES GERAIS 2014/AC/10000000121`); nil when the key does not start with a year.
    public static func year(ofCandidacyKey key: String) -> Int64? {
        guard let slash = key.utf8.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let head = key.utf8[..<slash]
        guard (1...4).contains(head.count), head.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(String(Substring(head)))
    }

    public static let goodType = ObjectSchema(
        "GoodType",
        [
            Property("id", .string, primaryKey: true),  // "<year>/<CD_TIPO_BEM_CANDIDATO>"
            Property("year", .int64, default: 0),  // ANO_ELEICAO of the goods it describes
            Property("code", .int64, default: 0),  // CD_TIPO_BEM_CANDIDATO
            Property("typedescription", .string, default: ""),  // DS_TIPO_BEM_CANDIDATO of that year's files
            Property("generatedAt", .date, optional: true),
            Property("goods", .linkingObjects(type: "Good", property: "type")),
        ])

    /// The validated schema: `ElectionsV4`'s types with the per-year `goodType`, and `views`.
    public static let schema: Schema = {
        do {
            let types = ElectionsV4.schema.types.map { $0.name == "GoodType" ? goodType : $0 }
            return try Schema(family: "elections", version: version, types: types, views: views)
        } catch {
            preconditionFailure("ElectionsV6 is invalid: \(error)")
        }
    }()
}
