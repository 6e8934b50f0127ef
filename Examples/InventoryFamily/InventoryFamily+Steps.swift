import Foundation
import UrnaMigrator
import UrnaStore

extension InventoryFamily {
    /// "2024-01-05" as a date at midnight UTC; nil for text that is no such date.
    public static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else { return nil }
        return ISODate.date(year: parts[0], month: parts[1], day: parts[2])
    }

    /// The six steps, as the app's developer writes them.
    public static let steps: [MigrationStep] = [
        MigrationStep("Supplier renamed Vendor") { m in
            try m.enumerateObjects(ofType: "Supplier") { old, _ in
                try m.create("Vendor", value: ["id": old["id"], "name": old["name"], "phone": old["phone"]])
            }
            try m.enumerateObjects(ofType: "Product") { old, new in
                if case .link(let s) = old["supplier"] { new["vendor"] = .link(LinkTarget(type: "Vendor", key: s.key)) }
            }
        },
        MigrationStep("prices as decimals; added as a date (other text kept in a note)") { m in
            try m.enumerateObjects(ofType: "Product") { old, new in
                new["price"] = .decimal(units: Int64(((old["price"].doubleValue ?? 0) * 100).rounded()), scale: 2)
                guard let text = old["added"].stringValue else { return }
                if let d = day(text) {
                    new["added"] = .date(d)
                } else {
                    new["added"] = .null
                    try m.create("Note", value: ["text": .string("added: \(text)"), "product": new.link])
                }
            }
        },
        MigrationStep("prices in Pricing; notes are gone", allowances: [.discardType(type: "Note")]) { m in
            try m.enumerateObjects(ofType: "Product") { old, new in
                try m.create("Pricing", value: ["product": new.link, "amount": old["price"]])
            }
        },
        MigrationStep("a bin holds one product") { m in
            try m.enumerateObjects(ofType: "Bin") { old, new in
                guard case .list(let products) = old["products"] else { return }
                new["product"] = products.first.map { .link($0) } ?? .null
                for (j, p) in products.enumerated().dropFirst() {
                    let id = (old["id"].intValue ?? 0) * 1000 + Int64(j)
                    try m.create("Bin", value: ["id": .int(id), "warehouse": old["warehouse"], "product": .link(p)])
                }
            }
        },
        MigrationStep("products keyed by their SKU's number") { m in
            try m.enumerateObjects(ofType: "Product") { old, new in
                let digits = (old["sku"].stringValue ?? "").filter(\.isNumber)
                new["sku"] = .int(Int64(digits) ?? 0)
            }
        },
        MigrationStep("prices back in Product", allowances: [.discardType(type: "Pricing")]) { m in
            try m.enumerateObjects(ofType: "Product") { _, _ in }
            try m.enumerateObjects(ofType: "Pricing") { old, _ in
                guard let product = try old.linked("product"), let new = try m.newObject(for: product) else { return }
                new["price"] = old["amount"]
            }
        },
    ]

    public static let family = SchemaFamily(
        name: "inventory",
        versions: [SchemaVersion(v0)] + zip(versions.dropFirst(), steps).map { SchemaVersion($0.0, step: $0.1) })
}

extension InventoryFamily {
    /// v7 as a copy-paste slip ships it: `name` becomes `label`, and the second rename meant for `qty` also
    /// says `label`, so `qty`'s values would go. Refused as the family's problem before any file is read
    /// (`INVENTORY_APP_VARIANT=clash inventory-app ...`).
    public static var withRenameClash: SchemaFamily {
        let product = ObjectSchema(
            "Product",
            v6[type: "Product"]!.properties.map { p in
                p.name == "name" ? Property("label", .string, default: "", indexed: true) : p
            })
        let v7 = schema(7, v6.types.map { $0.name == "Product" ? product : $0 })
        let slip = MigrationStep(
            "name is label",
            renames: [
                PropertyRename(type: "Product", from: "name", to: "label"),
                PropertyRename(type: "Product", from: "qty", to: "label"),
            ])
        return SchemaFamily(name: "inventory", versions: family.versions + [SchemaVersion(v7, step: slip)])
    }
}
