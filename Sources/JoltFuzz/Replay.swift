#if canImport(Glibc)
import Glibc
#endif

/// Runs a fuzz target over files, as `fuzz-trace crash-1234` does without the fuzzer.
public enum FuzzReplay {
    public static func run(_ paths: ArraySlice<String>, _ target: (UnsafeRawBufferPointer) -> Void) {
        for p in paths {
            guard let f = fopen(p, "rb") else {
                print("\(p): cannot open")
                exit(66)
            }
            var bytes: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = fread(&buf, 1, buf.count, f)
                if n == 0 { break }
                bytes += buf[0..<n]
            }
            fclose(f)
            bytes.withUnsafeBytes { target($0) }
            print("\(p): ok")
        }
    }
}
