import UrnaRecords

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Remembers the cleaned text of recently seen field values, so the columns that repeat from row to
/// row (office, state, unit, party, status, gender, education, occupation, asset type...) are decoded,
/// trimmed and allocated once instead of once per row. A hit costs a hash and a byte comparison and
/// hands out the same string storage; every row of a 500,000-candidacy file would otherwise build
/// about twenty of these strings and free them again.
///
/// Direct-mapped: each (column, reading) pair has `slotsPerColumn` slots picked by a hash of the field's
/// bytes; a slot remembers the bytes, their encoding and the result. Only CSV fields without `""`
/// escapes take this path (`Record.withEncodedField`); anything else is decoded as before.
final class FieldInterner {
    /// How a field's text becomes a value: `TSEField.text` or `TSEField.code`.
    enum Reading: Int {
        case text = 0
        case code = 1
    }

    private struct Entry {
        var bytes: [UInt8]
        var encoding: TextEncoding
        var value: String?
    }

    static let slotsPerColumn = 256
    /// Fields longer than this are not remembered (long values rarely repeat and would hold memory).
    static let maxLength = 96

    private var entries: [Entry?]

    init() {
        entries = Array(repeating: nil, count: MapperColumn.allCases.count * 2 * Self.slotsPerColumn)
    }

    /// The value `reading` gives for field `position` of `record` (column `column`), remembered.
    func value(_ column: MapperColumn, _ reading: Reading, position: Int, in record: Record) -> String? {
        let hit: String?? = record.withEncodedField(at: position) { bytes, encoding -> String?? in
            guard let bytes, bytes.count <= Self.maxLength else { return .none }
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in bytes { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
            let slot =
                (column.rawValue * 2 + reading.rawValue) * Self.slotsPerColumn
                + Int(truncatingIfNeeded: (hash ^ (hash >> 29)) & UInt64(Self.slotsPerColumn - 1))
            if let e = entries[slot], e.encoding == encoding, Self.same(e.bytes, bytes) {
                return .some(e.value)
            }
            let raw = encoding.decode(bytes)
            let value: String? =
                switch reading {
                case .text: TSEField.text(raw)
                case .code: TSEField.code(raw)
                }
            entries[slot] = Entry(bytes: Array(bytes), encoding: encoding, value: value)
            return .some(value)
        }
        if let hit { return hit }
        let raw = record.value(at: position)
        return reading == .text ? TSEField.text(raw) : TSEField.code(raw)
    }

    @inline(__always) private static func same(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let q = b.baseAddress, !a.isEmpty else { return true }
        return a.withUnsafeBufferPointer { memcmp($0.baseAddress!, q, a.count) == 0 }
    }
}

extension MapperColumn {
    /// Columns whose values repeat from row to row (few distinct values per file), worth remembering.
    var repeatsAcrossRows: Bool {
        switch self {
        case .DS_ELEICAO, .NM_TIPO_ELEICAO, .SG_UF, .SG_UE, .NM_UE, .DS_CARGO, .DS_SITUACAO_CANDIDATURA,
            .DS_SIT_TOT_TURNO, .TP_AGREMIACAO, .SG_PARTIDO, .NM_PARTIDO, .NM_COLIGACAO, .DS_COMPOSICAO_COLIGACAO,
            .DS_NACIONALIDADE, .SG_UF_NASCIMENTO, .NM_MUNICIPIO_NASCIMENTO, .DS_GENERO, .DS_GRAU_INSTRUCAO,
            .DS_ESTADO_CIVIL, .DS_COR_RACA, .DS_OCUPACAO, .DS_TIPO_BEM_CANDIDATO:
            true
        default: false
        }
    }
}
