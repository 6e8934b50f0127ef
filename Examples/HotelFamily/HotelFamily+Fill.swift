import Foundation
import UrnaMigrator
import UrnaStore

extension HotelFamily {
    static let guestIDs: [Int64] = [1, 2, 3, -5, .max, 0]
    static let guestNames = ["Ana Souza", "", "李小龍 🐉", "Zoë O'Brien", "Robert'); DROP TABLE Guest;--", "José Lima"]
    static let guestEmails: [String?] = ["ana@example.com", nil, "", nil, "x@y", nil]
    static let guestTiers: [Int64] = [0, 1, 2, 7, 0, 1]
    static let roomNumbers = ["101", "102", "P1", "B-1"]
    static let roomKinds = ["single", "double", "suite", "single"]
    static let roomRates = ["120.50", "180.00", "999999999.99", "0.01"]
    static let roomFloors: [Int64?] = [1, nil, 10, -1]
    static let complaints = ["Noisy ✗", "", "Água fria no quarto 'P1'"]
    static let compliments = ["Great breakfast 🥐", "Staff 👍"]

    static func bookingID(_ i: Int) -> UUID { UUID(uuidString: String(format: "B0000000-0000-4000-8000-%012d", i))! }
    /// Booking i's guest (an index into the guests), none for every fifth.
    static func guestOf(_ i: Int) -> Int? { i % 5 == 0 ? nil : i % guestIDs.count }
    /// Booking i's room (an index into the rooms, never the last: room B-1 has no stays), none for booking 4.
    static func roomOf(_ i: Int) -> Int? { i == 4 ? nil : i % 3 }

    static func photo(_ g: Int, big: Int) -> Data? {
        switch g {
        case 0: Data((0..<big).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        case 1: Data()
        case 3: Data([0, 255, 0, 1])
        default: nil
        }
    }
    static func born(_ g: Int) -> Date? {
        g % 2 == 0 ? Date(timeIntervalSince1970: -86_400 * Double(g * 3_000 + 1)) : nil
    }

    static func guestValues(_ g: Int, version v: Int, photoBytes: Int) -> [String: Any] {
        let id = guestIDs[g]
        var values: [String: Any] = [
            "id": v >= 3 ? "G\(id)" as Any : id as Any, "name": guestNames[g],
            "tier": v >= 3 ? tierName(guestTiers[g]) as Any : guestTiers[g] as Any,
        ]
        if let e = guestEmails[g] { values["email"] = e } else if v >= 1 { values["email"] = unknownEmail(id) }
        if g % 3 != 2 {
            var a: [String: Any] = ["street": "Rua \(g), \(g * 10)", "city": g == 1 ? "" : "Recife"]
            if g % 2 == 0 { a["zip"] = "5\(g)000-000" }
            values["address"] = a
        }
        if v < 4 {
            if let p = photo(g, big: photoBytes) { values["photo"] = p }
            if let b = born(g) { values["born"] = b }
        }
        return values
    }

    static func bookingValues(_ i: Int, version v: Int) -> [String: Any] {
        var b: [String: Any] = [
            "id": bookingID(i), v == 0 ? "nights" : "length": Int64(i == 7 ? 0 : i),
            "status": ["held", "confirmed", "cancelled"][i % 3],
        ]
        if i % 2 == 1 {
            b[v == 0 ? "checkIn" : "arrival"] = Date(timeIntervalSince1970: 1_750_000_000 + Double(i) * 86_400.25)
        }
        if i % 3 == 0 { b["notes"] = i == 3 ? "" : "late arrival ✈ \(i)" }
        if v >= 2 { b["rate"] = Decimal(string: roomOf(i).map { roomRates[$0] } ?? "0")! }
        return b
    }

    /// Writes a file at `version` as the app at that version fills it: six guests, four rooms (one never booked),
    /// eight bookings, three complaints and two compliments, and the app's own tables, view, triggers and search.
    public static func fill(at path: String, version v: Int, photoBytes: Int = 200_000) throws {
        let store = try Store(path: path, schema: versions[v])
        try store.write {
            let guests = try guestIDs.indices.map {
                try store.create("Guest", value: guestValues($0, version: v, photoBytes: photoBytes))
            }
            let rooms = try roomNumbers.indices.map { r in
                var values: [String: Any] = ["number": roomNumbers[r], "kind": roomKinds[r]]
                if v < 2 { values["rate"] = Decimal(string: roomRates[r])! }
                if let f = roomFloors[r] { values["floor"] = f }
                return try store.create("Room", value: values)
            }
            for i in 1...8 {
                var b = bookingValues(i, version: v)
                if let g = guestOf(i) { b["guest"] = guests[g] }
                if let r = roomOf(i) {
                    if v == 2 || v == 3 { b["rooms"] = [rooms[r]] } else { b["room"] = rooms[r] }
                } else if v == 2 || v == 3 {
                    b["rooms"] = [Any]()
                }
                try store.create(v == 0 ? "Booking" : "Stay", value: b)
            }
            if v >= 4 {
                for g in guestIDs.indices {
                    var p: [String: Any] = ["id": "G\(guestIDs[g])", "guest": guests[g]]
                    if let photo = photo(g, big: photoBytes) { p["photo"] = photo }
                    if let b = born(g) { p["born"] = b }
                    try store.create("Profile", value: p)
                }
            }
            for (list, prefix, type) in [(complaints, "c", "Complaint"), (compliments, "p", "Compliment")] {
                for (k, text) in list.enumerated() {
                    let guest: Any? = k == 1 ? nil : guests[(k * 2 + prefix.count) % guests.count]
                    var f: [String: Any] = [v >= 5 ? "body" : "text": text]
                    if let guest { f["guest"] = guest }
                    if v >= 2 {
                        f["id"] = "\(prefix)\(k + 1)"
                        f["kind"] = type.lowercased()
                    } else {
                        f["id"] = Int64(k + 1)
                    }
                    try store.create(v >= 2 ? "Feedback" : type, value: f)
                }
            }
            // The app's own objects come after its data (the audit trigger would otherwise see the seeding).
            for sql in ownSQL { try store.connection.execute(sql) }
            try store.connection.execute("INSERT INTO housekeeping(room, day, done) VALUES ('101', '2026-01-02', 1)")
            if v >= 2 {
                for sql in searchSQL(column: v >= 5 ? "body" : "text", fill: true) { try store.connection.execute(sql) }
            }
        }
    }
}
