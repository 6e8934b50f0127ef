// Compiled into every fuzz target (see run-fuzzers.sh); not part of any SwiftPM target.

/// The fuzzer's bytes, read front to back: a few leading bytes choose options, the rest is the payload.
///
/// An input shorter than the option bytes reads zeros for them, so every input is valid.
struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = UnsafeBufferPointer(start: data, count: size)
    }

    /// The next byte, or 0 past the end.
    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] {
        guard offset < bytes.count else { return [] }
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }
}

/// Stops the fuzz target with a message libFuzzer shows next to the crashing input.
///
/// Used only for broken invariants (the library misbehaved), never for errors the library reports.
func fuzzInvariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant broken: \(message())") }
}
