import CZlib
import Foundation

/// Builds hostile zip archives at test time (nothing big is committed): members are raw deflate streams of
/// zeros made from one flushed 1 MiB block repeated, so an 8 GiB member costs one compression of 1 MiB.
enum ZipBomb {
    /// A raw deflate stream inflating to `mebibytes` MiB of zeros.
    static func zeros(mebibytes: Int) -> [UInt8] {
        var stream = z_stream()
        precondition(urna_deflate_init_raw(&stream, 9) == Z_OK)
        defer { deflateEnd(&stream) }
        func run(_ input: [UInt8], _ flush: Int32) -> [UInt8] {
            var input = input
            var out = [UInt8](repeating: 0, count: 1 << 20)
            var produced: [UInt8] = []
            input.withUnsafeMutableBufferPointer { inp in
                stream.next_in = inp.baseAddress
                stream.avail_in = UInt32(inp.count)
                repeat {
                    out.withUnsafeMutableBufferPointer { o in
                        stream.next_out = o.baseAddress
                        stream.avail_out = UInt32(o.count)
                        _ = deflate(&stream, flush)
                        produced += o[0..<(o.count - Int(stream.avail_out))]
                    }
                } while stream.avail_out == 0
            }
            return produced
        }
        let block = run([UInt8](repeating: 0, count: 1 << 20), Z_FULL_FLUSH)
        let tail = run([], Z_FINISH)
        var all: [UInt8] = []
        all.reserveCapacity(block.count * mebibytes + tail.count)
        for _ in 0..<mebibytes { all += block }
        return all + tail
    }

    /// A raw deflate stream of `input` and its CRC-32: an honest member for `archive`.
    static func member(_ name: String, _ input: [UInt8]) -> Member {
        var stream = z_stream()
        precondition(urna_deflate_init_raw(&stream, 6) == Z_OK)
        defer { deflateEnd(&stream) }
        var input = input
        var out = [UInt8](repeating: 0, count: input.count + 1024)
        let produced = input.withUnsafeMutableBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = inp.baseAddress
                stream.avail_in = UInt32(inp.count)
                stream.next_out = o.baseAddress
                stream.avail_out = UInt32(o.count)
                precondition(deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return o.count - Int(stream.avail_out)
            }
        }
        let crc = input.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        return Member(name: name, data: Array(out[0..<produced]), crc: crc, declaredSize: UInt32(input.count))
    }

    struct Member {
        var name: String
        var data: [UInt8]?  // nil: point at the first member's bytes
        var crc: UInt32
        var declaredSize: UInt32
    }

    /// A zip with these deflated members (central directory and end record as zip tools write them).
    static func archive(_ members: [Member]) -> Data {
        var out: [UInt8] = []
        var central: [UInt8] = []
        func u16(_ v: Int, _ to: inout [UInt8]) { to += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: UInt32, _ to: inout [UInt8]) {
            for s in [0, 8, 16, 24] { to.append(UInt8(v >> UInt32(s) & 0xFF)) }
        }
        var firstSize: UInt32 = 0
        for m in members {
            let name = Array(m.name.utf8)
            var offset: UInt32 = 0
            var size: UInt32 = firstSize
            if let data = m.data {
                offset = UInt32(out.count)
                size = UInt32(data.count)
                if firstSize == 0 { firstSize = size }
                u32(0x0403_4B50, &out)
                u16(20, &out)
                u16(0, &out)
                u16(8, &out)
                u16(0, &out)
                u16(0, &out)
                u32(m.crc, &out)
                u32(size, &out)
                u32(m.declaredSize, &out)
                u16(name.count, &out)
                u16(0, &out)
                out += name + data
            }
            u32(0x0201_4B50, &central)
            u16(20, &central)
            u16(20, &central)
            u16(0, &central)
            u16(8, &central)
            u16(0, &central)
            u16(0, &central)
            u32(m.crc, &central)
            u32(size, &central)
            u32(m.declaredSize, &central)
            u16(name.count, &central)
            u16(0, &central)
            u16(0, &central)
            u16(0, &central)
            u16(0, &central)
            u32(0, &central)
            u32(offset, &central)
            central += name
        }
        let directoryOffset = UInt32(out.count)
        out += central
        u32(0x0605_4B50, &out)
        u16(0, &out)
        u16(0, &out)
        u16(members.count, &out)
        u16(members.count, &out)
        u32(UInt32(central.count), &out)
        u32(directoryOffset, &out)
        u16(0, &out)
        return Data(out)
    }
}
