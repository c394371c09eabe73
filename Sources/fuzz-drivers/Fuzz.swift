import JoltFuzz

#if FUZZING
import CFuzzer
#if canImport(Glibc)
import Glibc
#endif

// Built by scripts/fuzz with -sanitize=fuzzer -DFUZZING: libFuzzer runs the target.
@main
struct Fuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            FuzzTargets.drivers(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        })
    }
}
#else
/// Without the fuzzer: runs the target over the files given (to replay a crash).
@main
struct Replay {
    static func main() { FuzzReplay.run(CommandLine.arguments.dropFirst()) { FuzzTargets.drivers($0) } }
}
#endif
