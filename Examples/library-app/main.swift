import LibraryFamily
import UrnaCommandLine

// An app's own executable: every urna command for the app's "library" family, under the app's own name.
UrnaCommandLine.main(families: [LibraryFamily.family], toolName: "library-app")
