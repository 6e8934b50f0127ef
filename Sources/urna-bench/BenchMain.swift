import Foundation

enum BenchMain {
    static func run(_ args: [String]) -> Int32 {
        var sections = Set(["store", "migrate", "import"])
        var rows = 1_000_000
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--only": i += 1; sections = Set(args[i].split(separator: ",").map(String.init))
            case "--rows": i += 1; rows = Int(args[i]) ?? rows
            case "--help":
                print("urna-bench [--only store,migrate,import] [--rows N]\nPrints urna's time against a real peer on the same data, as a ratio.")
                return 0
            default: print("unknown argument \(args[i])"); return 64
            }
            i += 1
        }
        do {
            if sections.contains("store") { try StoreBench.run(rows: rows) }
        } catch {
            print("benchmark failed: \(error)")
            return 1
        }
        return 0
    }
}

enum BenchChildren {
    static func run(_ name: String, _ args: [String]) -> Int32 {
        do {
            switch name {
            case "child-store-insert": try StoreBench.childStore(path: args[0], rows: Int(args[1])!)
            case "child-raw-insert": try StoreBench.childRaw(path: args[0], rows: Int(args[1])!)
            default:
                print("unknown child \(name)")
                return 64
            }
        } catch {
            print("child \(name) failed: \(error)")
            return 1
        }
        return 0
    }
}
