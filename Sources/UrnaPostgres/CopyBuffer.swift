/// A growable byte buffer for COPY data, written through a raw pointer: appending a byte costs no
/// uniqueness or exclusivity check at run time (as a `[UInt8]` held by a class does).
struct CopyBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written so far, valid only inside `body`.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    mutating func removeAll() { count = 0 }

    @inline(__always) private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grown = max(capacity * 2, count + extra)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = grown
    }

    @inline(__always) mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// `value` in network byte order (COPY's binary format).
    @inline(__always) mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        reserve(size)
        withUnsafeBytes(of: value.bigEndian) {
            UnsafeMutableRawPointer(base + count).copyMemory(from: $0.baseAddress!, byteCount: size)
        }
        count += size
    }

    /// Bytes as they are.
    @inline(__always) mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let from = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: from, byteCount: bytes.count)
        count += bytes.count
    }

    /// Text field bytes with COPY's escapes for backslash, tab, newline and CR.
    @inline(__always) mutating func appendEscaped(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count * 2)
        var n = count
        for b in bytes {
            if b > 13 && b != 92 {
                base[n] = b
                n += 1
                continue
            }
            if let letter = CopyText.escapeLetter(b) {
                base[n] = 92
                base[n + 1] = letter
                n += 2
            } else {
                base[n] = b
                n += 1
            }
        }
        count = n
    }

    /// `value / 10^scale` in decimal, as `PostgresColumnKind.decimalText` writes it (`-0.05`, `123.45`, `7`).
    @inline(__always) mutating func appendDecimal(_ value: Int64, scale: Int) {
        // 20 digits at most, plus the sign, the point and the leading zeros a small fraction needs.
        reserve(23 + scale)
        if value < 0 {
            base[count] = 45
            count += 1
        }
        var digitCount = 0
        var v = value.magnitude
        repeat {
            digitCount += 1
            v /= 10
        } while v > 0
        // At least scale + 1 digits, so a fraction gets its leading "0.".
        let width = max(digitCount, scale + 1)
        let total = width + (scale > 0 ? 1 : 0)
        var position = count + total - 1  // written from the right
        v = value.magnitude
        for written in 0..<width {
            if scale > 0 && written == scale {
                base[position] = 46
                position -= 1
            }
            base[position] = UInt8(48 + v % 10)
            v /= 10
            position -= 1
        }
        count += total
    }
}
