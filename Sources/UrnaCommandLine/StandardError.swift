#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Messages to standard error, written with `write(2)`. Foundation's `FileHandle.write(_:)` traps when the
/// write fails: with standard error on a full disk (`2>>import.log`) or a terminal that hung up, the error
/// message of any command (`urna status --db missing 2>/dev/full`) became a crash (SIGILL, exit 132). A message
/// that cannot be written is dropped; the exit code still says what happened.
enum StandardError {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes {
                posixWrite(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

// The enum's own `write` shadows the C function of that name inside it.
private func posixWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }
