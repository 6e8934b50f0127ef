import Foundation
import UrnaMigrator
import UrnaStore

/// Issue 14's seventh app trial: a small hotel's own schema family, as its developer writes it, v0 to v5.
///
/// | version | change | closure |
/// |---|---|---|
/// | 0 | Address(street, city, zip?) embedded; Guest(id int, name indexed, email?, tier int8 enum, address?, photo data?, born date?, bookings ← Booking.guest); Room(number, kind string enum, rate decimal(2), floor int?); Booking(id uuid, guest →, room →, checkIn date?, nights, status string enum, notes?); Complaint(id int, guest →, text); Compliment(id int, guest →, text) | — |
/// | 1 | Booking renamed Stay with checkIn → arrival, nights → length in the same step (Guest.bookings → Guest.stays); Guest.email required, a nil filled by the closure | yes |
/// | 2 | Stay.room (link) → Stay.rooms (list); Room.rate moves to Stay.rate; Complaint and Compliment merged into Feedback (text keys, kind enum) | yes |
/// | 3 | Guest re-keyed int → text ("G7"), links from Stay and Feedback follow; tier int → text enum | yes |
/// | 4 | Guest split: photo and born move to Profile (one per guest); Stay.rooms (list) → Stay.room (link) again | yes |
/// | 5 | Feedback.text renamed body; the app's own search triggers dropped before and made again after (SQL) | SQL |
///
/// The app keeps its own objects beside the family: a plain `housekeeping` table, a `guest_names` view, an FTS5
/// index over feedback text kept by triggers, and an audit trigger on Guest; all must survive every migration.
public enum HotelFamily {
    static func schema(_ version: Int, _ types: [ObjectSchema]) -> Schema {
        do { return try Schema(family: "hotel", version: version, types: types) } catch {
            preconditionFailure("hotel v\(version): \(error)")
        }
    }

    static let address = ObjectSchema(
        "Address", embedded: true,
        [
            Property("street", .string, default: ""), Property("city", .string, default: ""),
            Property("zip", .string, optional: true),
        ])

    static func guest(version v: Int) -> ObjectSchema {
        ObjectSchema(
            "Guest",
            [
                Property("id", v >= 3 ? .string : .int64, primaryKey: true),
                Property("name", .string, default: "", indexed: true),
                v >= 1 ? Property("email", .string, default: "") : Property("email", .string, optional: true),
                v >= 3 ? Property("tier", .string, default: "regular") : Property("tier", .int8, default: 0),
                Property("address", .embedded("Address"), optional: true),
            ]
                + (v < 4 ? [Property("photo", .data, optional: true), Property("born", .date, optional: true)] : [])
                + [
                    v >= 1
                        ? Property("stays", .linkingObjects(type: "Stay", property: "guest"))
                        : Property("bookings", .linkingObjects(type: "Booking", property: "guest"))
                ])
    }

    static func room(rate: Bool) -> ObjectSchema {
        ObjectSchema(
            "Room",
            [Property("number", .string, primaryKey: true), Property("kind", .string, default: "single")]
                + (rate ? [Property("rate", .decimal(scale: 2), default: 0)] : [])
                + [Property("floor", .int64, optional: true)])
    }

    static func booking(version v: Int) -> ObjectSchema {
        ObjectSchema(
            v == 0 ? "Booking" : "Stay",
            [
                Property("id", .uuid, primaryKey: true), Property("guest", .link("Guest"), optional: true),
                v == 2 || v == 3 ? Property("rooms", .list("Room")) : Property("room", .link("Room"), optional: true),
                Property(v == 0 ? "checkIn" : "arrival", .date, optional: true),
                Property(v == 0 ? "nights" : "length", .int64, default: 1),
                Property("status", .string, default: "held"), Property("notes", .string, optional: true),
            ] + (v >= 2 ? [Property("rate", .decimal(scale: 2), default: 0)] : []))
    }

    static func remark(_ name: String) -> ObjectSchema {
        ObjectSchema(
            name,
            [
                Property("id", .int64, primaryKey: true), Property("guest", .link("Guest"), optional: true),
                Property("text", .string, default: ""),
            ])
    }

    static func feedback(body: String) -> ObjectSchema {
        ObjectSchema(
            "Feedback",
            [
                Property("id", .string, primaryKey: true), Property("guest", .link("Guest"), optional: true),
                Property(body, .string, default: ""), Property("kind", .string, default: "complaint"),
            ])
    }

    static let profile = ObjectSchema(
        "Profile",
        [
            Property("id", .string, primaryKey: true), Property("guest", .link("Guest"), optional: true),
            Property("photo", .data, optional: true), Property("born", .date, optional: true),
        ])

    public static let v0 = schema(
        0,
        [address, guest(version: 0), room(rate: true), booking(version: 0), remark("Complaint"), remark("Compliment")])
    public static let v1 = schema(
        1,
        [address, guest(version: 1), room(rate: true), booking(version: 1), remark("Complaint"), remark("Compliment")])
    public static let v2 = schema(
        2, [address, guest(version: 2), room(rate: false), booking(version: 2), feedback(body: "text")])
    public static let v3 = schema(
        3, [address, guest(version: 3), room(rate: false), booking(version: 3), feedback(body: "text")])
    public static let v4 = schema(
        4, [address, guest(version: 4), room(rate: false), booking(version: 4), feedback(body: "text"), profile])
    public static let v5 = schema(
        5, [address, guest(version: 5), room(rate: false), booking(version: 5), feedback(body: "body"), profile])

    public static let versions = [v0, v1, v2, v3, v4, v5]
}
