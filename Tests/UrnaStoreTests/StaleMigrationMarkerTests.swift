import Foundation
import Testing

@testable import UrnaStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A migrator killed between creating its lock file and writing its pid leaves the file empty. A write that met a
/// busy file waited while such a file looked like "a migration running", so it waited forever.
@Suite("The migration marker of a migrator that died before naming itself")
struct StaleMigrationMarkerTests {
    @Test("An empty lock file counts as a running migration only just after it was created")
    func emptyMarkerGoesStale() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-marker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("notes.sqlite").path
        try Data().write(to: URL(fileURLWithPath: path))
        let lockPath = try #require(MigrationMarker.lockPath(forDatabase: path))
        try Data().write(to: URL(fileURLWithPath: lockPath))
        defer { try? FileManager.default.removeItem(atPath: lockPath) }
        // Just created: the migrator writes its pid right after taking the lock.
        #expect(MigrationMarker.isRunning(forDatabase: path))
        // A minute old and still empty: nobody is going to name itself there.
        let old = Date().addingTimeInterval(-60)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: lockPath)
        #expect(!MigrationMarker.isRunning(forDatabase: path))
    }
}
