import Foundation
import UrnaMigrator
import UrnaStore

extension InventoryFamily {
    static let supplierPhones: [String?] = ["+55 11 4000-0001", nil, "+55 21 3000-0002"]

    static func supplierValues(_ i: Int, phoneRequired: Bool) -> [String: Any] {
        var s: [String: Any] = ["id": i + 1, "name": ["Ferragens Sul", "Parafusos & Cia", "Metalúrgica Ômega"][i]]
        if let p = supplierPhones[i] { s["phone"] = p } else if phoneRequired { s["phone"] = "" }
        return s
    }

    static func warehouseValues(_ i: Int) -> [String: Any] {
        var w: [String: Any] = ["code": ["POA", "REC"][i], "city": ["Porto Alegre", "Recife"][i]]
        if i == 0 { w["address"] = ["street": "Av. Ipiranga, 10", "zip": "90160-091"] }
        return w
    }

    /// Product i's added text: a date, a text that is no date, or nil.
    static func added(_ i: Int) -> String? {
        i % 7 == 0 ? nil : i % 4 == 0 ? "em breve" : "2024-01-\(String(format: "%02d", i % 28 + 1))"
    }

    static func price(_ i: Int) -> Double { Double(i) * 1.25 + 0.1 }

    /// The products of bin b (indexes into the products); some bins are empty.
    static func binProducts(_ b: Int, products n: Int) -> [Int] { (0..<(b % 4)).map { (b * 3 + $0) % n } }

    static func productValues(_ i: Int, version: Int) -> [String: Any] {
        var p: [String: Any] = [
            "sku": version >= 5 ? i as Any : String(format: "SKU-%04d", i) as Any, "name": "item \(i) ✓", "qty": i * 3,
        ]
        if version < 2 {
            p["price"] = price(i)
            if let a = added(i) { p["added"] = a }
        } else if let a = added(i), let d = day(a) {
            p["added"] = d
        }
        if version >= 6 { p["price"] = Decimal(string: String(format: "%.2f", price(i)))! }
        return p
    }

    /// A v0 file as the app fills it: 3 suppliers, 2 warehouses, `products` products (every fifth without a
    /// supplier), `products / 2` bins holding 0 to 3 products, a note on every third product.
    public static func fillV0(at path: String, products n: Int = 12) throws {
        let store = try Store(path: path, schema: v0)
        try store.write {
            let suppliers = try (0..<3).map {
                try store.create("Supplier", value: supplierValues($0, phoneRequired: false))
            }
            let warehouses = try (0..<2).map { try store.create("Warehouse", value: warehouseValues($0)) }
            let products = try (1...n).map { i in
                var p = productValues(i, version: 0)
                if i % 5 != 0 { p["supplier"] = suppliers[i % 3] }
                return try store.create("Product", value: p)
            }
            for b in 1...(n / 2) {
                try store.create(
                    "Bin",
                    value: [
                        "id": b, "warehouse": warehouses[b % 2],
                        "products": binProducts(b, products: n).map { products[$0] },
                    ]
                        as [String: Any])
            }
            for i in stride(from: 3, through: n, by: 3) {
                try store.create("Note", value: ["text": "check \(i)", "product": products[i - 1]] as [String: Any])
            }
        }
    }

    /// Writes, independently of the steps, the v6 file a migrated `fillV0(products:)` file must equal.
    public static func fillV6(at path: String, products n: Int = 12) throws {
        let store = try Store(path: path, schema: v6)
        try store.write {
            let vendors = try (0..<3).map { try store.create("Vendor", value: supplierValues($0, phoneRequired: true)) }
            let warehouses = try (0..<2).map { try store.create("Warehouse", value: warehouseValues($0)) }
            let products = try (1...n).map { i in
                var p = productValues(i, version: 6)
                if i % 5 != 0 { p["vendor"] = vendors[i % 3] }
                return try store.create("Product", value: p)
            }
            for b in 1...(n / 2) {
                let held = binProducts(b, products: n)
                var bin: [String: Any] = ["id": b, "warehouse": warehouses[b % 2]]
                if let first = held.first { bin["product"] = products[first] }
                try store.create("Bin", value: bin)
                for (j, p) in held.enumerated().dropFirst() {
                    try store.create(
                        "Bin",
                        value: ["id": b * 1000 + j, "warehouse": warehouses[b % 2], "product": products[p]]
                            as [String: Any])
                }
            }
        }
    }
}
