import Foundation

// `localizedDescription` (what apps print) reads as the error's own message.
extension SchemaObjectSQL.Refusal: LocalizedError { public var errorDescription: String? { description } }
