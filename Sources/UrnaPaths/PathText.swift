import Foundation

/// Paths taken apart without `NSString`: on Linux, `("x" as NSString).deletingLastPathComponent` (any
/// one-character name, such as `--db x` or `--db -`) traps in Foundation (`_startOfLastPathComponent` requires two
/// characters), and `urna import --db x`, `restore` and `adopt` crashed with SIGILL.
package enum PathText {
    /// The folder part of `path`, as `NSString.deletingLastPathComponent` gives it: "" for a bare name, "/" for a
    /// name at the root, trailing and repeated slashes dropped (`a//b/` → `a`).
    package static func folder(of path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "" }
        var head = p[..<slash]
        while head.hasSuffix("/") { head = head.dropLast() }
        return head.isEmpty ? "/" : String(head)
    }
}
