import Foundation
import Testing

@testable import UrnaDownload

#if canImport(Glibc)
    import Glibc
#endif

/// `DownloadLock` took any `flock(2)` failure for another run holding the lock: on a file system that cannot
/// lock (ENOLCK, EOPNOTSUPP) it said "another download … is running: waiting" and went on unguarded.
@Suite struct DownloadLockFailureTests {
    static func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lockfail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }

    final class Notes: @unchecked Sendable {
        var lines: [String] = []
    }

    @Test("A folder that cannot be locked is said so (never 'another download is running'); the lock is not held")
    func cannotLock() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for code in [ENOLCK, EOPNOTSUPP] {
            let notes = Notes()
            let lock = try DownloadLock(
                for: dir + "/a.zip", notice: { notes.lines.append($0) },
                lock: { _, _ in
                    errno = code
                    return -1
                })
            #expect(!lock.isHeld)
            #expect(notes.lines.count == 1, "\(notes.lines)")
            #expect(notes.lines.allSatisfy { !$0.contains("is running") }, "\(notes.lines)")
            #expect(notes.lines.first?.contains("cannot be locked (\(String(cString: strerror(code))))") == true)
            lock.release()
        }
    }

    @Test("A wait for another run that then fails is said so, and the lock is not claimed as held")
    func waitFails() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let notes = Notes()
        let lock = try DownloadLock(
            for: dir + "/a.zip", notice: { notes.lines.append($0) },
            lock: { _, operation in
                errno = operation & LOCK_NB != 0 ? EWOULDBLOCK : ENOLCK
                return -1
            })
        #expect(!lock.isHeld)
        #expect(notes.lines.count == 2, "\(notes.lines)")
        #expect(notes.lines.first?.contains("another download of a.zip into this folder is running") == true)
        #expect(notes.lines.last?.contains("cannot be locked") == true, "\(notes.lines)")
    }

    @Test("A lock taken with flock is held; a fetch given a lock on another path is refused before any request")
    func lockForAnotherPath() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lock = try DownloadLock(for: dir + "/a.zip")
        defer { lock.release() }
        #expect(lock.isHeld)
        do {
            _ = try Downloader().fetch("http://127.0.0.1:9/b.zip", to: dir + "/b.zip", holding: lock)
            Issue.record("a fetch under another path's lock went ahead")
        } catch let DownloadError.localFile(path, reason) {
            #expect(path == dir + "/b.zip")
            #expect(reason.contains("not this file's"), "\(reason)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/b.zip"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [".a.zip.lock"])
    }
}
