import Foundation

// `localizedDescription` (what apps print) reads as each error's own message, not "The operation could not be completed".
extension PostgresTransferError: LocalizedError { public var errorDescription: String? { description } }
extension PostgresError: LocalizedError { public var errorDescription: String? { description } }
extension PostgresWorkingCopy.LockTimeout: LocalizedError { public var errorDescription: String? { description } }
