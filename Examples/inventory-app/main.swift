import Foundation
import InventoryFamily
import UrnaCommandLine

// A shop's own executable: every urna command for its "inventory" family, under its own name.
// INVENTORY_APP_VARIANT=clash ships a v7 whose two renames end on one name (refused by every command but help).
let family =
    ProcessInfo.processInfo.environment["INVENTORY_APP_VARIANT"] == "clash"
    ? InventoryFamily.withRenameClash : InventoryFamily.family
UrnaCommandLine.main(families: [family], toolName: "inventory-app", appVersion: "3.0")
