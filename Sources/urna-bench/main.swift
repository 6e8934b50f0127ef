import Foundation

// `make bench`: every benchmark measures urna against a real peer on the same data in the same run and
// prints the ratio. Each measured part runs in a child process so its peak memory is its own.
let args = Array(CommandLine.arguments.dropFirst())
if let first = args.first, first.hasPrefix("child-") {
    exit(BenchChildren.run(first, Array(args.dropFirst())))
}
exit(BenchMain.run(args))
