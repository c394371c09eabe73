#if canImport(Glibc)
import Glibc
#endif
import JoltCorpus

/// Prints `message` on stderr and exits with `code`.
func fail(_ message: String, _ code: Int32) -> Never {
    let line = message + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(code)
}

// Writes the labelled evaluation corpus: `jolt-corpus [--seed N] [--rate HZ] DIR`.
// The committed test split is `jolt-corpus --seed 2026 Tests/Corpus/test` (100 Hz).
var args = Array(CommandLine.arguments.dropFirst())
var seed: UInt64 = 2026
var rate = 100.0
var dir: String?
var gaitMinutes = 2.0
var noise = 0.004
while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--seed":
        guard let v = args.first.flatMap({ UInt64($0) }) else { fail("jolt-corpus: --seed needs a number", 64) }
        seed = v
        args.removeFirst()
    case "--rate":
        guard let v = args.first.flatMap({ Double($0) }), [12.5, 25, 50, 100, 200, 250, 400, 500, 1000].contains(v) else {
            fail("jolt-corpus: --rate must divide 2000 Hz: 12.5, 25, 50, 100, 200, 250, 400, 500 or 1000", 64)
        }
        rate = v
        args.removeFirst()
    case "--gait-minutes":
        guard let v = args.first.flatMap({ Double($0) }), v > 0 else { fail("jolt-corpus: --gait-minutes needs a positive number", 64) }
        gaitMinutes = v
        args.removeFirst()
    case "--noise":
        guard let v = args.first.flatMap({ Double($0) }), v >= 0, v <= 100 else { fail("jolt-corpus: --noise needs the accelerometer's noise in mg RMS, 0 to 100", 64) }
        noise = v / 1000
        args.removeFirst()
    case "-h", "--help":
        print("usage: jolt-corpus [--seed N] [--rate HZ] [--gait-minutes M] [--noise MG] DIR\nwrites the labelled corpus (jolt-trace v1 files with # label: comments) into DIR")
        exit(0)
    default:
        if a.hasPrefix("-") { fail("jolt-corpus: unknown option \(a)", 64) }
        dir = a
    }
}
guard let dir else { fail("usage: jolt-corpus [--seed N] [--rate HZ] [--gait-minutes M] [--noise MG] DIR", 64) }
// Create the folder and its parents, as mkdir -p does.
var prefix = dir.hasPrefix("/") ? "/" : ""
for part in dir.split(separator: "/") {
    prefix += part + "/"
    mkdir(prefix, 0o755)
}
var generator = CorpusGenerator(rate: rate, seed: seed)
generator.gaitMinutes = gaitMinutes
generator.noise = noise
for trace in generator.all() {
    let path = dir + "/" + trace.name + ".csv"
    guard let f = fopen(path, "w") else { fail("jolt-corpus: cannot write \(path)", 73) }
    fputs(trace.text(), f)
    fclose(f)
    print("\(path): \(trace.samples.count) samples, \(trace.labels.count) labels")
}
