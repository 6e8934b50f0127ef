import Foundation

// `localizedDescription` (what apps print) reads as each error's own message, not "The operation could not be completed".
extension XMLReadError: LocalizedError { public var errorDescription: String? { description } }
extension MalformedRow: LocalizedError { public var errorDescription: String? { description } }
extension RecordFileError: LocalizedError { public var errorDescription: String? { description } }
