import Foundation
import UrnaMigrator
import UrnaStore

/// Issue 14's fifth app trial: a shop's inventory, as its developer writes the schema, v0 to v6.
///
/// | version | change | closure |
/// |---|---|---|
/// | 0 | Supplier(id, name, phone?), Warehouse(code, city, address Address?), Product(sku "SKU-n", name indexed, price double, qty, supplier →, added text?), Bin(id, warehouse →, products [Product]), Note(no key: text, product →) | — |
/// | 1 | Supplier renamed Vendor (Product.supplier → Product.vendor; Vendor.products is its inverse) | yes |
/// | 2 | price double → decimal(2); added text → date (text that is no date goes to a Note); Vendor.phone required, default "" | yes |
/// | 3 | price split into Pricing(product →, amount); Note removed | yes |
/// | 4 | Bin.products list → Bin.product link (each further product gets a Bin of its own); Warehouse.city optional | yes |
/// | 5 | Product keyed by the number in its SKU (Int), links follow | yes |
/// | 6 | Pricing merged back into Product.price | yes |
public enum InventoryFamily {
    static func schema(_ version: Int, _ types: [ObjectSchema]) -> Schema {
        do { return try Schema(family: "inventory", version: version, types: types) } catch {
            preconditionFailure("inventory v\(version): \(error)")
        }
    }

    static let address = ObjectSchema(
        "Address", embedded: true, [Property("street", .string, default: ""), Property("zip", .string, optional: true)])

    static func warehouse(cityOptional: Bool) -> ObjectSchema {
        ObjectSchema(
            "Warehouse",
            [
                Property("code", .string, primaryKey: true),
                cityOptional ? Property("city", .string, optional: true) : Property("city", .string, default: ""),
                Property("address", .embedded("Address"), optional: true),
            ])
    }

    static func supplier(_ name: String, phoneRequired: Bool, inverse: Bool) -> ObjectSchema {
        ObjectSchema(
            name,
            [
                Property("id", .int64, primaryKey: true), Property("name", .string, default: ""),
                phoneRequired ? Property("phone", .string, default: "") : Property("phone", .string, optional: true),
            ] + (inverse ? [Property("products", .linkingObjects(type: "Product", property: "vendor"))] : []))
    }

    static func product(
        key: PropertyType, price: PropertyType?, added: PropertyType, supplier: String, supplierType: String
    ) -> ObjectSchema {
        ObjectSchema(
            "Product",
            [
                Property("sku", key, primaryKey: true), Property("name", .string, default: "", indexed: true),
            ] + (price.map { [Property("price", $0, default: 0)] } ?? []) + [
                Property("qty", .int64, default: 0), Property(supplier, .link(supplierType)),
                Property("added", added, optional: true),
            ])
    }

    static func bin(list: Bool) -> ObjectSchema {
        ObjectSchema(
            "Bin",
            [
                Property("id", .int64, primaryKey: true), Property("warehouse", .link("Warehouse")),
                list ? Property("products", .list("Product")) : Property("product", .link("Product")),
            ])
    }

    static let note = ObjectSchema(
        "Note", [Property("text", .string, default: ""), Property("product", .link("Product"))])
    static let pricing = ObjectSchema(
        "Pricing", [Property("product", .link("Product")), Property("amount", .decimal(scale: 2), default: 0)])

    public static let v0 = schema(
        0,
        [
            address, warehouse(cityOptional: false), supplier("Supplier", phoneRequired: false, inverse: false),
            product(key: .string, price: .double, added: .string, supplier: "supplier", supplierType: "Supplier"),
            bin(list: true), note,
        ])
    public static let v1 = schema(
        1,
        [
            address, warehouse(cityOptional: false), supplier("Vendor", phoneRequired: false, inverse: true),
            product(key: .string, price: .double, added: .string, supplier: "vendor", supplierType: "Vendor"),
            bin(list: true), note,
        ])
    public static let v2 = schema(
        2,
        [
            address, warehouse(cityOptional: false), supplier("Vendor", phoneRequired: true, inverse: true),
            product(key: .string, price: .decimal(scale: 2), added: .date, supplier: "vendor", supplierType: "Vendor"),
            bin(list: true), note,
        ])
    public static let v3 = schema(
        3,
        [
            address, warehouse(cityOptional: false), supplier("Vendor", phoneRequired: true, inverse: true),
            product(key: .string, price: nil, added: .date, supplier: "vendor", supplierType: "Vendor"),
            bin(list: true), pricing,
        ])
    public static let v4 = schema(
        4,
        [
            address, warehouse(cityOptional: true), supplier("Vendor", phoneRequired: true, inverse: true),
            product(key: .string, price: nil, added: .date, supplier: "vendor", supplierType: "Vendor"),
            bin(list: false), pricing,
        ])
    public static let v5 = schema(
        5,
        [
            address, warehouse(cityOptional: true), supplier("Vendor", phoneRequired: true, inverse: true),
            product(key: .int64, price: nil, added: .date, supplier: "vendor", supplierType: "Vendor"),
            bin(list: false), pricing,
        ])
    public static let v6 = schema(
        6,
        [
            address, warehouse(cityOptional: true), supplier("Vendor", phoneRequired: true, inverse: true),
            product(key: .int64, price: .decimal(scale: 2), added: .date, supplier: "vendor", supplierType: "Vendor"),
            bin(list: false),
        ])

    public static let versions = [v0, v1, v2, v3, v4, v5, v6]
}
