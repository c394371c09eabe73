#if FUZZING
import CFuzzer
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The main of a fuzz executable. Built by scripts/fuzz (-sanitize=fuzzer -DFUZZING), libFuzzer
/// runs `target` over its inputs; built plainly, it runs `target` over the files given, to replay
/// a crash.
public enum FuzzMain {
    public static func run(_ target: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
        #if FUZZING
        current = target
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            FuzzMain.current?(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        })
        #else
        FuzzReplay.run(CommandLine.arguments.dropFirst(), target)
        exit(0)
        #endif
    }

    /// The target libFuzzer's callback (a C function, which captures nothing) calls.
    nonisolated(unsafe) static var current: ((UnsafeRawBufferPointer) -> Void)?
}
