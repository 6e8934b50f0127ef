import Foundation

// The `urna` command: parse arguments, call one library function, print. Results on stdout,
// errors and progress on stderr. Exit codes: 0 ok, 1 failure, 64 bad usage, 65 bad data, 66 missing input.
let code = CLI.main(Array(CommandLine.arguments.dropFirst()))
exit(code)
