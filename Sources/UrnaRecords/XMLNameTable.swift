import CLibXML2

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Element and attribute names met in one XML file, each given a small id the first time it is seen.
///
/// libxml2's parser hands out names interned in its dictionary (one address per distinct name, stable
/// while the parser lives), so a name is found by address in a small open-addressed cache (a few probes
/// from a multiplicative hash of the address), confirmed with `strcmp` against a private copy: a String
/// is made once per distinct name, never per element (unless a file has thousands of distinct names).
struct XMLNameTable {
    /// What an element name means to the reader.
    enum Role: UInt8 {
        case candidatos, candidato, bens, bem, coligacoes, coligacao, other
    }

    private let canonicalName: (String) -> String
    /// The names as spelled in the file.
    private(set) var raw: [String] = []
    private(set) var roles: [Role] = []
    /// Canonical column id of each name.
    private(set) var canonical: [Int32] = []
    /// False for names in no TSE layout (counted as unknown when used as a column).
    private(set) var known: [Bool] = []
    /// Canonical column names by id.
    private(set) var canonicalNames: [String] = []
    private var canonicalIds: [String: Int32] = [:]
    /// NUL-terminated UTF-8 copies of the names, back to back: name `id` starts at `starts[id]`
    /// (canonical names are kept the same way in `canonicalBytes`, for rendering).
    private(set) var bytes: [UInt8] = []
    private(set) var starts: [Int] = []
    private(set) var canonicalBytes: [UInt8] = []
    private(set) var canonicalStarts: [Int] = []
    private var idsByText: [String: Int32] = [:]
    /// Cache slots (a power of two) and how many consecutive slots a name may sit in.
    private static let cacheSize = 4096
    private static let cacheProbes = 4
    private var cacheAddresses = [UInt](repeating: 0, count: XMLNameTable.cacheSize)
    private var cacheIds = [Int32](repeating: -1, count: XMLNameTable.cacheSize)

    init(canonicalName: @escaping (String) -> String) {
        self.canonicalName = canonicalName
    }

    /// The id of a name given as libxml2's NUL-terminated UTF-8 string.
    @inline(__always) mutating func id(_ pointer: UnsafePointer<xmlChar>) -> Int32 {
        let address = UInt(bitPattern: pointer)
        var slot = Self.home(address)
        for _ in 0..<Self.cacheProbes {
            let known = cacheAddresses[slot]
            if known == address {
                let cached = cacheIds[slot]
                if matches(cached, pointer) { return cached }
                break
            }
            if known == 0 { break }
            slot = (slot &+ 1) & (Self.cacheSize - 1)
        }
        return cacheMiss(pointer, address: address)
    }

    /// The first cache slot tried for an address.
    @inline(__always) private static func home(_ address: UInt) -> Int {
        Int(truncatingIfNeeded: (UInt64(address) &* 0x9E37_79B9_7F4A_7C15) >> 52)  // 12 bits: cacheSize
    }

    /// Finds a name the cache does not hold and caches it: in the first free (or same-address) slot of its
    /// probe sequence, else in its home slot.
    private mutating func cacheMiss(_ pointer: UnsafePointer<xmlChar>, address: UInt) -> Int32 {
        let id = slowId(pointer)
        let home = Self.home(address)
        var target = home
        var slot = home
        for _ in 0..<Self.cacheProbes {
            if cacheAddresses[slot] == 0 || cacheAddresses[slot] == address {
                target = slot
                break
            }
            slot = (slot &+ 1) & (Self.cacheSize - 1)
        }
        cacheAddresses[target] = address
        cacheIds[target] = id
        return id
    }

    /// The id of a name given as text (the reader's own names for text nodes, such as `#text`): such a name takes
    /// no place among the file's `maximumDistinctNames`, so a file with exactly that many names of its own and stray
    /// text beside its records is still read.
    mutating func id(named name: String) -> Int32 {
        name.withCString { slowId(UnsafeRawPointer($0).assumingMemoryBound(to: xmlChar.self), own: false) }
    }

    /// The id of a canonical column name, adding it when new.
    mutating func canonicalId(for name: String) -> Int32 {
        if let id = canonicalIds[name] { return id }
        let id = Int32(canonicalNames.count)
        canonicalNames.append(name)
        canonicalIds[name] = id
        canonicalStarts.append(canonicalBytes.count)
        canonicalBytes.append(contentsOf: name.utf8)
        canonicalBytes.append(0)
        return id
    }

    @inline(__always) static func cString(_ pointer: UnsafePointer<UInt8>) -> UnsafePointer<CChar> {
        UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self)
    }

    @inline(__always) private func matches(_ id: Int32, _ pointer: UnsafePointer<xmlChar>) -> Bool {
        bytes.withUnsafeBufferPointer { all in
            strcmp(Self.cString(all.baseAddress! + starts[Int(id)]), Self.cString(pointer)) == 0
        }
    }

    /// Distinct names kept at most; later new names share one entry, so a hostile file with millions of
    /// different element names cannot grow memory (the record holding them is rejected anyway).
    static let maximumDistinctNames = 20_000
    /// The entry every name past the limit shares.
    static let overflowName = "#more-distinct-names"

    /// Whether `id` is the entry every name past `maximumDistinctNames` shares.
    func isOverflow(_ id: Int32) -> Bool { id == overflowId }

    /// The id of the entry every name past the limit shares (-1 until there is one).
    private var overflowId: Int32 = -1
    /// How many of the names are the file's own (not the reader's `#text` and `#cdata-section`).
    private var ownNames = 0

    private mutating func slowId(_ pointer: UnsafePointer<xmlChar>, own: Bool = true) -> Int32 {
        var text = String(cString: pointer)
        if let id = idsByText[text] { return id }
        if own && ownNames >= Self.maximumDistinctNames {
            if overflowId >= 0 { return overflowId }
            text = Self.overflowName
        }
        let id = Int32(raw.count)
        if own { ownNames += 1 }
        if text == Self.overflowName { overflowId = id }
        let role: Role
        switch text {
        case "candidatos": role = .candidatos
        case "candidato": role = .candidato
        case "bens": role = .bens
        case "bem": role = .bem
        case "coligacoes": role = .coligacoes
        case "coligacao": role = .coligacao
        default: role = .other
        }
        let canonicalText = canonicalName(text)
        raw.append(text)
        roles.append(role)
        canonical.append(canonicalId(for: canonicalText))
        known.append(
            role != .other || TSELayouts.knownColumnNames.contains(text)
                || TSELayouts.knownColumnNames.contains(canonicalText))
        starts.append(bytes.count)
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
        idsByText[text] = id
        return id
    }
}
