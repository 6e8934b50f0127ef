import Foundation
import UrnaStore

/// An app's executable opens `<toolName>.sqlite` when `--db` is not given; before, it opened `urna.sqlite`. A user
/// whose data is still in that file was told only that the app's file does not exist and to create it: this
/// names the old file when it holds one of the app's families, so the data is found, not started over.
enum FormerDefaultDatabase {
    static let name = "urna.sqlite"

    /// " (`urna.sqlite` here holds a library file: pass --db urna.sqlite)" when `path`, which does not exist, is
    /// the app's default file and an `urna.sqlite` in its folder holds a family the app knows; "" otherwise.
    static func hint(for path: String, context: CommandContext = .current) -> String {
        let url = URL(fileURLWithPath: path)
        guard context.toolName != "urna", url.lastPathComponent == context.defaultDatabase else { return "" }
        let folder = PathText.folder(of: path)
        let old = folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
        guard let family = recordedFamily(old), context.family(named: family) != nil else { return "" }
        let place = folder.isEmpty ? "`\(name)` here" : "`\(old)`"
        return "; \(place) holds a \(family) file (the default before \(context.defaultDatabase)): pass --db \(old)"
    }

    /// The family recorded in a regular file (never a FIFO, device or link, which opening could hang on or follow
    /// elsewhere), read-only; nil for anything else or a file that cannot be read.
    static func recordedFamily(_ path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else { return nil }
        // Only a table of that name is read: a view planted under it (a recursive one hung the hint) is not run.
        guard let c = try? Connection(path: path, readOnly: true, create: false),
            (try? c.scalar(
                "SELECT type FROM sqlite_master WHERE name = ?", [.text(StorageLayout.schemaTable)])) == .text("table"),
            let rows = try? c.rows("SELECT family FROM \"\(StorageLayout.schemaTable)\" WHERE id = 1"),
            case .text(let family)? = rows.first?.first
        else { return nil }
        return family
    }
}
