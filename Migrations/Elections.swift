import UrnaMigrator
import UrnaStore

/// The `elections` family: seed 000's iElections model (v1) grown to fit real TSE data.
///
/// | version | what changes | closure |
/// |---|---|---|
/// | 1 | seed 000's model as written: Int16 ids, naturalness in one string, money as Double | — |
/// | 2 | Election type; candidacy keyed by election + SQ_CANDIDATO; party keyed by number; good by candidacy + order; ticket number; post, CD_CARGO, state and electoral unit split out; Int16 → Int64 | `ElectionsV2.step` |
/// | 3 | birth state and city split out of naturalness; money as exact cents; e-mail, CPF, voter id, status, result; coalition composition and kind; election kind and date | `ElectionsV3.step` |
///
/// | 4 | identities for every year and generation; generations; every TSE candidacy column kept | `ElectionsV4.step` |
/// | 5 | views for analysis (`candidacies`, `goods`, `coalition_members`), TSE column names; no table changes | `ElectionsV5.step` |
/// | 6 | good types per election year (`GoodType` keyed `<year>/<CD_TIPO_BEM_CANDIDATO>`): each year's goods keep their own files' DS_TIPO_BEM_CANDIDATO | `ElectionsV6.step` |
///
/// Later versions keep the seed's type and property names. The importers write v6.
public enum Elections {
    public static let family = SchemaFamily(
        name: "elections",
        versions: [
            SchemaVersion(ElectionsV1.schema, step: MigrationStep("seed 000's iElections model")),
            SchemaVersion(ElectionsV2.schema, step: ElectionsV2.step),
            SchemaVersion(ElectionsV3.schema, step: ElectionsV3.step),
            SchemaVersion(ElectionsV4.schema, step: ElectionsV4.step),
            SchemaVersion(ElectionsV5.schema, step: ElectionsV5.step),
            SchemaVersion(ElectionsV6.schema, step: ElectionsV6.step),
        ])
}
