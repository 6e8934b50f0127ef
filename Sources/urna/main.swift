import UrnaCommandLine
import UrnaSchemas

// The `urna` command: the shared command line with the built-in families (people, elections).
// Results on stdout, errors and progress on stderr. Exit codes: 0 ok, 1 failure, 64 bad usage, 65 bad data,
// 66 missing input.
UrnaCommandLine.main(families: SchemaFamilies.all, toolName: "urna")
