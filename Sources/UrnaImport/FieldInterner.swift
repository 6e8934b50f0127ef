import UrnaRecords
import UrnaSchemas

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
/// bytes; a slot remembers the bytes, their encoding and the result. Only fields lent as bytes take this
/// path (`EncodedRowView.field`: CSV fields without `""` escapes, XML columns with text); anything else
/// is decoded as before.
final class FieldInterner {
    /// How a field's text becomes a value: `TSEField.text` or `TSEField.code`.
    enum Reading: Int {
        case text = 0
        case code = 1
    }

    static let slotsPerColumn = 256
    /// Fields longer than this are not remembered (long values rarely repeat and would hold memory).
    static let maxLength = 96

    // Slot storage in plain memory (no array copies, reference counting or exclusivity checks per field):
    // the remembered bytes, their length (-1: empty slot), their encoding, and the value.
    /// Slot groups: one per (column, reading), then one per `ElectionsV4.sourceColumns` entry.
    private static let groupCount = MapperColumn.allCases.count * 2 + ElectionsV4.sourceColumns.count
    private let slotCount = FieldInterner.groupCount * FieldInterner.slotsPerColumn
    private let keys: UnsafeMutablePointer<UInt8>
    private let lengths: UnsafeMutablePointer<Int16>
    private let encodings: UnsafeMutablePointer<TextEncoding>
    private let values: UnsafeMutablePointer<String?>

    init() {
        keys = .allocate(capacity: slotCount * Self.maxLength)
        lengths = .allocate(capacity: slotCount)
        lengths.initialize(repeating: -1, count: slotCount)
        encodings = .allocate(capacity: slotCount)
        encodings.initialize(repeating: .utf8, count: slotCount)
        values = .allocate(capacity: slotCount)
        values.initialize(repeating: nil, count: slotCount)
    }

    deinit {
        values.deinitialize(count: slotCount)
        values.deallocate()
        encodings.deallocate()
        lengths.deallocate()
        keys.deallocate()
    }

    /// The value `reading` gives for a field of column `column` whose bytes (in `encoding`, without `""`
    /// escapes) are `bytes`, remembered.
    func value(_ column: MapperColumn, _ reading: Reading, bytes: UnsafeBufferPointer<UInt8>, encoding: TextEncoding)
        -> String?
    {
        value(group: column.rawValue * 2 + reading.rawValue, reading, bytes: bytes, encoding: encoding)
    }

    /// The same for entry `index` of `ElectionsV4.sourceColumns` (always read the one way, `reading`).
    func sourceValue(_ index: Int, _ reading: Reading, bytes: UnsafeBufferPointer<UInt8>, encoding: TextEncoding)
        -> String?
    {
        value(group: MapperColumn.allCases.count * 2 + index, reading, bytes: bytes, encoding: encoding)
    }

    private func value(group: Int, _ reading: Reading, bytes: UnsafeBufferPointer<UInt8>, encoding: TextEncoding)
        -> String?
    {
        let n = bytes.count
        guard n <= Self.maxLength else { return Self.read(reading, encoding.decode(bytes)) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        let slot =
            group * Self.slotsPerColumn
            + Int(truncatingIfNeeded: (hash ^ (hash >> 29)) & UInt64(Self.slotsPerColumn - 1))
        let key = keys + slot * Self.maxLength
        if Int(lengths[slot]) == n, encodings[slot] == encoding,
            n == 0 || memcmp(key, bytes.baseAddress!, n) == 0
        {
            return values[slot]
        }
        let value = Self.read(reading, encoding.decode(bytes))
        if n > 0 { key.update(from: bytes.baseAddress!, count: n) }
        lengths[slot] = Int16(n)
        encodings[slot] = encoding
        values[slot] = value
        return value
    }

    @inline(__always) static func read(_ reading: Reading, _ raw: String?) -> String? {
        reading == .text ? TSEField.text(raw) : TSEField.code(raw)
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
