public indirect enum Predicate { case and([Predicate]); case truth
  public static func parse(_ t: String, arguments: [QueryArgument] = []) throws -> Predicate { .truth } }
public enum QueryArgument { case value(Value) }
public struct SortDescriptor { public var keyPath: String; public var ascending: Bool
  public init(keyPath: String, ascending: Bool = true) { self.keyPath = keyPath; self.ascending = ascending } }
struct QueryCompiler { init(schema: Schema) {}
  func compile(_ p: Predicate, on: String, alias: String) throws -> (sql: String, bindings: [SQLValue]) { ("1", []) }
  func orderBy(_ s: [SortDescriptor], on: String, alias: String) throws -> String { "1" }
  static func registerFunctions(on c: Connection) throws {} }
