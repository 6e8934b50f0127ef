import Foundation
import Testing

/// Zip bombs end at once: a member is inflated no further than its declared size, overlapping members and
/// absurd ratios are refused before anything is inflated.
@Suite struct ZipBombTests {
    @Test("An 8 GiB member declaring 1,000 bytes is refused at byte 1,001; nothing is created")
    func lyingMember() throws {
        let dir = try Hostile.folder()
        let zip = ZipBomb.archive([
            .init(name: "consulta_cand_2018_MG.csv", data: ZipBomb.zeros(mebibytes: 8192), crc: 0, declaredSize: 1000)
        ])
        #expect(zip.count < 10_000_000)
        try zip.write(to: dir.appendingPathComponent("lying.zip"))
        let r = try Hostile.urna(["import", "--db", "b.sqlite", "lying.zip"], in: dir)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.stderr.contains("inflates past the 1000 bytes"), "\(r.stderr)")
        #expect(r.seconds < 30)
        #expect(Hostile.listing(dir) == ["lying.zip"])
    }

    @Test("A member declaring 4 GiB from 4 MB (over 200:1) is refused without inflating")
    func absurdRatio() throws {
        let dir = try Hostile.folder()
        let zip = ZipBomb.archive([
            .init(
                name: "consulta_cand_2018_MG.csv", data: ZipBomb.zeros(mebibytes: 4095), crc: 0,
                declaredSize: UInt32(4095) << 20)
        ])
        try zip.write(to: dir.appendingPathComponent("ratio.zip"))
        let r = try Hostile.urna(["import", "--db", "b.sqlite", "ratio.zip"], in: dir)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.stderr.contains("a ratio over 200 to 1"), "\(r.stderr)")
        #expect(r.seconds < 30)
        #expect(Hostile.listing(dir) == ["ratio.zip"])
    }

    @Test("2,000 entries sharing one 50 MB member are refused as overlapping")
    func overlappingMembers() throws {
        let dir = try Hostile.folder()
        var members: [ZipBomb.Member] = [
            .init(name: "consulta_cand_2018_MG.csv", data: ZipBomb.zeros(mebibytes: 50), crc: 0, declaredSize: 50 << 20)
        ]
        for i in 0..<1999 { members.append(.init(name: "m\(i).csv", data: nil, crc: 0, declaredSize: 50 << 20)) }
        let zip = ZipBomb.archive(members)
        #expect(zip.count < 400_000)
        try zip.write(to: dir.appendingPathComponent("overlap.zip"))
        let r = try Hostile.urna(["import", "--db", "b.sqlite", "overlap.zip"], in: dir)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.stderr.contains("the members overlap"), "\(r.stderr)")
        #expect(r.seconds < 30)
        #expect(Hostile.listing(dir) == ["overlap.zip"])
    }
}
