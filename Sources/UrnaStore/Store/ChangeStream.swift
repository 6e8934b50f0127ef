import Foundation

/// An observation as an async sequence (`store.changes`, `results.changes`, `object.changes`) that every task
/// iterating it hears in full.
///
/// The sequence is `Sendable`, so Swift 6 lets an app hand one to several tasks. A plain `AsyncStream` has one
/// consumer: two tasks iterating it split its elements between them (each heard about half of the commits), and
/// an `AsyncThrowingStream` traps ("attempt to await next() on more than one task"). Here each iterator is an
/// observation of its own: the first one made hears everything since the sequence was made (it takes the
/// observation that began then), any later one everything since it was made.
///
/// ```swift
/// let changes = try store.objects(Dog.self).changes
/// Task { for try await change in changes { print("list", change) } }    // both tasks hear every change
/// Task { for try await change in changes { print("badge", change) } }
/// ```
public struct ChangeStream<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable {
    public typealias Element = Base.Element
    public typealias AsyncIterator = Base.AsyncIterator

    private let first: FirstObservation<Base>
    private let start: @Sendable () -> Base

    /// `start` begins one observation; it is called once now and once for each iterator after the first.
    init(_ start: @escaping @Sendable () -> Base) {
        self.first = FirstObservation(start())
        self.start = start
    }

    public func makeAsyncIterator() -> Base.AsyncIterator {
        (first.take() ?? start()).makeAsyncIterator()
    }
}

/// The observation a `ChangeStream` began when it was made, until its first iterator takes it.
private final class FirstObservation<Base: Sendable>: @unchecked Sendable {
    // `base` is only touched while `lock` is held (an NSLock: the thread sanitizer understands it).
    private let lock = NSLock()
    private var base: Base?

    init(_ base: Base) { self.base = base }

    func take() -> Base? {
        lock.withLock {
            defer { base = nil }
            return base
        }
    }
}
