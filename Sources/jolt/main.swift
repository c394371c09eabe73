#if canImport(Glibc)
import Glibc
#endif
import JoltApp

exit(JoltCLI.main(Array(CommandLine.arguments.dropFirst())))
