import Foundation

/// Starts a thread that runs `body` once, for the import's and the migrator's reading threads.
///
/// No reference to the thread is kept: a body captures its owner, and an owner holding its thread would
/// then hold itself (the cycle that used to keep every import's pipeline and open input files alive).
/// Owners that must wait for the body to end signal that from the body itself.
package func startWorkerThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let t = Thread(block: body)
    t.name = name
    t.stackSize = 1 << 20
    t.start()
}
