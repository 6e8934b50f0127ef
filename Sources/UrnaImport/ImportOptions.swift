import UrnaRecords

/// What an import writes to and how strict it is.
///
/// ```swift
/// var options = ImportOptions(dbPath: "urna.sqlite")
/// options.maxErrors = 100          // more than 100 rejected rows: roll everything back
/// options.keepPersonalData = true  // keep CPF, e-mail and voter ID
/// ```
public struct ImportOptions: Sendable {
    /// The database file; created with the elections schema when it does not exist.
    public var dbPath: String
    /// Where rejected rows go, as a person named it (a FIFO or a device there is written through); nil means
    /// `defaultRejectsPath`.
    public var rejectsPath: String?
    /// Where rejected rows go when `rejectsPath` is nil, a name the program chose rather than the person (nil means
    /// `<dbPath>.rejects.csv`). Like that default, it is never written through: when anything (a FIFO, a device,
    /// a file) is at the name, the rows go to the first free numbered name.
    public var defaultRejectsPath: String?
    /// Most rejected rows tolerated; one more rolls the whole import back. nil: no limit.
    public var maxErrors: Int?
    /// How the files' bytes are decoded (TSE ships ISO-8859-1; `.auto` detects).
    public var encoding: TextEncodingChoice
    /// Keep CPF, e-mail and voter-ID number (personal data; dropped by default).
    public var keepPersonalData: Bool
    /// Let triggers the file holds on Urna's tables run during the import (refused by default).
    public var allowTriggers = false
    /// The order every file's slash dates are read in (`--date-order`): `.dayFirst` (TSE's `dd/MM/yyyy`) or
    /// `.monthFirst` (a US spreadsheet's `M/d/yyyy`). nil, the default: each file's (zip member's) own dates decide
    /// (`DateOrderSniffer`), which cannot see an order that shows only after its first rows. A date that
    /// contradicts the order asked for is left empty with a warning.
    public var dateOrder: TSEDate.Order?
    /// Most rows the rejects file takes; one more stops the import (nothing committed). nil: no bound.
    public var rejectsRowLimit: Int? = ImportOptions.defaultRejectsRowLimit
    /// Most bytes the rejects file takes; a row that would go past it stops the import. nil: no bound.
    public var rejectsByteLimit: Int64? = ImportOptions.defaultRejectsByteLimit
    /// Whether a run into a file without goods writes the goods lists at the end in one statement
    /// (`GoodsListBulk`); the tests turn it off to compare with the good-by-good path.
    var listsGoodsInBulk = true
    /// Default of `rejectsRowLimit`: a million rows.
    public static let defaultRejectsRowLimit = 1_000_000
    /// Default of `rejectsByteLimit`: 100 MiB (a flood of bad rows stops there instead of filling the disk).
    public static let defaultRejectsByteLimit: Int64 = 100 << 20

    /// Options for importing into `dbPath`.
    public init(
        dbPath: String, rejectsPath: String? = nil, maxErrors: Int? = nil, encoding: TextEncodingChoice = .auto,
        keepPersonalData: Bool = false
    ) {
        self.dbPath = dbPath
        self.rejectsPath = rejectsPath
        self.maxErrors = maxErrors
        self.encoding = encoding
        self.keepPersonalData = keepPersonalData
    }

    /// The rejects file actually asked for: `rejectsPath`, or `defaultRejectsPath`, or `<dbPath>.rejects.csv` next
    /// to the database.
    public var effectiveRejectsPath: String { rejectsPath ?? defaultRejectsPath ?? dbPath + ".rejects.csv" }
}
