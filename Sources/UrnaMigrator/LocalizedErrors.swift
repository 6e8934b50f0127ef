import Foundation

// `localizedDescription` (what apps print) reads as each error's own message, not "The operation could not be completed".
extension MigrationError: LocalizedError { public var errorDescription: String? { description } }
extension MigrationObjectError: LocalizedError { public var errorDescription: String? { description } }
