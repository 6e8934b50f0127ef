/// How a property's stored values change between two versions of its declaration.
public enum ConversionKind: String, Sendable, Codable, Equatable {
    /// Same type (optionality may widen to optional).
    case identical
    /// Every old value has an exact new value (Int16 -> Int64, float -> double, required -> optional,
    /// optional -> required with a default).
    case widening
    /// Narrowing, lossy or a change of kind: needs a closure that sets the values, or an allowance.
    case needsClosure
}
