import UrnaPaths

/// `PathText` lives in UrnaPaths, below both the store and the downloads (which do not depend on each other); the
/// modules above the store reach it through UrnaStore, as before the move.
package typealias PathText = UrnaPaths.PathText
