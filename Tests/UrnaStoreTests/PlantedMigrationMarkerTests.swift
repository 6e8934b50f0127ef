import Foundation
import Testing

@testable import UrnaStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The marker of a running migration lives in the shared temporary folder under a name anyone can compute
/// (`urna-migrate-<device>-<inode>.lock`). A name planted there by someone else (a symlink, another user's file,
/// a hard link) naming a process that always runs (1) made every write that met a busy file wait for "the
/// migration" for as long as the name stayed: only a file the migrator itself could have made counts.
@Suite("A migration marker planted in the temporary folder")
struct PlantedMigrationMarkerTests {
    /// A database file in a folder of its own, its marker's path, and a cleanup.
    func database() throws -> (path: String, lockPath: String, dir: URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-planted-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("notes.sqlite").path
        try Data().write(to: URL(fileURLWithPath: path))
        return (path, try #require(MigrationMarker.lockPath(forDatabase: path)), dir)
    }

    @Test("Our own marker naming a live process counts; a symlink to a file naming process 1 does not")
    func symlinkIsNotAMigration() throws {
        let (path, lockPath, dir) = try database()
        defer {
            unlink(lockPath)
            try? FileManager.default.removeItem(at: dir)
        }
        // The genuine form first, so the check below can fail only for the planted form's sake.
        try Data("\(getpid())\n".utf8).write(to: URL(fileURLWithPath: lockPath))
        #expect(MigrationMarker.isRunning(forDatabase: path))
        unlink(lockPath)
        let bait = dir.appendingPathComponent("bait").path
        try Data("1\n".utf8).write(to: URL(fileURLWithPath: bait))
        #expect(symlink(bait, lockPath) == 0)
        #expect(!MigrationMarker.isRunning(forDatabase: path))
    }

    @Test("A marker with a second name (a hard link someone else keeps) does not count")
    func hardLinkIsNotAMigration() throws {
        let (path, lockPath, dir) = try database()
        defer {
            unlink(lockPath)
            try? FileManager.default.removeItem(at: dir)
        }
        try Data("1\n".utf8).write(to: URL(fileURLWithPath: lockPath))
        #expect(MigrationMarker.isRunning(forDatabase: path))
        #expect(link(lockPath, dir.appendingPathComponent("kept").path) == 0)
        #expect(!MigrationMarker.isRunning(forDatabase: path))
    }

    @Test(
        "Another user's marker does not count",
        .enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func otherOwnerIsNotAMigration() throws {
        let (path, lockPath, dir) = try database()
        defer {
            unlink(lockPath)
            try? FileManager.default.removeItem(at: dir)
        }
        try Data("1\n".utf8).write(to: URL(fileURLWithPath: lockPath))
        #expect(MigrationMarker.isRunning(forDatabase: path))
        #expect(chown(lockPath, 65534, 65534) == 0)
        #expect(!MigrationMarker.isRunning(forDatabase: path))
    }

    @Test("A marker naming process 0 or a negative number (every process of a group) does not count")
    func nonPositivePidIsNotAMigration() throws {
        let (path, lockPath, dir) = try database()
        defer {
            unlink(lockPath)
            try? FileManager.default.removeItem(at: dir)
        }
        for text in ["0", "-1"] {
            try Data("\(text)\n".utf8).write(to: URL(fileURLWithPath: lockPath))
            #expect(!MigrationMarker.isRunning(forDatabase: path), "marker \(text)")
        }
    }
}
