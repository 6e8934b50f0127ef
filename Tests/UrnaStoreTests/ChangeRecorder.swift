import Synchronization
import UrnaStore

/// Collects what observers are told, from whichever thread tells them.
final class ChangeRecorder<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    func append(_ e: Element) { items.withLock { $0.append(e) } }
    var all: [Element] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}
