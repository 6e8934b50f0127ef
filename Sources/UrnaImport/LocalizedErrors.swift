import Foundation

// `localizedDescription` (what apps print) reads as each error's own message, not "The operation could not be completed".
extension OutputPathError: LocalizedError { public var errorDescription: String? { description } }
extension ExportError: LocalizedError { public var errorDescription: String? { description } }
extension MappingProblem: LocalizedError { public var errorDescription: String? { description } }
extension ImportError: LocalizedError { public var errorDescription: String? { description } }
extension CandidateCard.CardError: LocalizedError { public var errorDescription: String? { description } }
