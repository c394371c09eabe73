#if canImport(Glibc)
import Glibc
#endif
import CAllocCount
import JoltBaselines
import JoltCore
import JoltJSON
import JoltMotion
import JoltTrace

// jolt-bench: what Jolt's core costs per sample, against a floating-point implementation of the
// same detectors in the same run; its memory; replay throughput; the daemon's cost; and the
// core's size for a Cortex-M. One table, or --json. See docs/performance.md.

struct Options {
    var samples = 10_000_000
    var runs = 5
    var json = false
    var daemonSeconds = 60
    var replayMinutes = 60
    var callgrind: Int?          // run only the default set over N samples (under valgrind)
    var restWorkload = false     // with --callgrind: a device lying still instead of mixed motion
    var disarmed = false         // with --callgrind: the tamper detector not armed
    var fullPath = false         // with --callgrind: the rest path off (every sample the full one)
    var withCallgrind = true
    var jolt: String?
    var signalTrials = 10
    var workload: (name: String, count: Int)?   // print a workload's samples and stop
    var equivalence: [String]?   // check the rest path against the full path over these traces
}

func fail(_ m: String) -> Never {
    let line = "jolt-bench: " + m + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(64)
}

func int(_ s: String, _ what: String) -> Int {
    guard let v = Int(s) else { fail(what) }
    return v
}

nonisolated(unsafe) var o = Options()
var args = Array(CommandLine.arguments.dropFirst())
while !args.isEmpty {
    let a = args.removeFirst()
    func value() -> String {
        guard !args.isEmpty else { fail("\(a) needs a value") }
        return args.removeFirst()
    }
    switch a {
    case "--json": o.json = true
    case "--samples": o.samples = int(value(), "--samples needs a whole number")
    case "--runs": o.runs = max(int(value(), "--runs needs a whole number"), 1)
    case "--daemon-seconds": o.daemonSeconds = int(value(), "--daemon-seconds needs a whole number")
    case "--replay-minutes": o.replayMinutes = int(value(), "--replay-minutes needs a whole number")
    case "--callgrind": o.callgrind = int(value(), "--callgrind needs a sample count")
    case "--rest": o.restWorkload = true
    case "--disarmed": o.disarmed = true
    case "--full-path": o.fullPath = true
    case "--no-callgrind": o.withCallgrind = false
    case "--workload":
        let name = value()
        guard name == "mixed" || name == "rest" else { fail("--workload must be mixed or rest") }
        o.workload = (name, int(value(), "--workload needs a sample count after the name"))
    case "--jolt": o.jolt = value()
    case "--equivalence": o.equivalence = []
    case _ where o.equivalence != nil && !a.hasPrefix("-"): o.equivalence!.append(a)
    case "--smoke":
        o.samples = 1_000_000
        o.runs = 2
        o.daemonSeconds = 3
        o.replayMinutes = 5
        o.signalTrials = 3
    case "-h", "--help":
        print("""
            usage: jolt-bench [--json] [--samples N] [--runs K] [--daemon-seconds S] [--replay-minutes M]
                              [--no-callgrind] [--jolt PATH] [--smoke]
                   jolt-bench --workload mixed|rest N
                   jolt-bench --equivalence [--jolt PATH] [TRACE...]
            Build with -c release. --smoke: a short run that checks every figure is produced.
            --workload: print N samples of the mixed-motion or at-rest workload as `jolt replay
            --samples` does, for another build of the core (scripts/cortex-m-bench).
            --equivalence: the default set with its rest path and without, over the traces (by
            default Tests/Corpus/test, Tests/Data/wrist-imu and Tests/Data/body-imu), the kiosk corpus and the
            workloads, plain and armed; exits 1 unless the events are the same at the same times.
            """)
        exit(0)
    default: fail("unknown option \(a) (see --help)")
    }
}

let rate = benchRate
var settings = DetectionSettings(rateMilliHz: 100_000, gyro: true)
settings.rangeMilliG = 8000

// MARK: a workload's samples, for another build of the core

if let w = o.workload {
    printWorkload(w.name, count: w.count, settings: settings)
    exit(0)
}

// MARK: the rest path's equivalence check

if var traces = o.equivalence {
    if traces.isEmpty { traces = csvFiles(in: "Tests/Corpus/test") + csvFiles(in: "Tests/Data/wrist-imu") + csvFiles(in: "Tests/Data/body-imu") }
    guard !traces.isEmpty else { fail("--equivalence: no traces given, and none in Tests/Corpus/test, Tests/Data/wrist-imu or Tests/Data/body-imu (run it from the repository)") }
    let dir = "/tmp/jolt-bench-\(getpid())"
    mkdir(dir, 0o755)
    let same = equivalence(jolt: o.jolt ?? selfDir() + "/jolt", traces: traces, dir: dir, shopMinutes: 5, bench: settings)
    _ = spawn(["rm", "-rf", dir])
    exit(same ? 0 : 1)
}

// MARK: callgrind workload mode

if let n = o.callgrind {
    let samples = o.restWorkload ? rest(count: n) : mixedMotion(count: n)
    var d = DefaultDetectors(settings)
    d.restPath = !o.fullPath
    let r = samples.withUnsafeBufferPointer { b -> Int in
        _ = d.update(b[0])
        if !o.disarmed { d.armTamper() }
        return benchDefaultWorkload(&d, UnsafeBufferPointer(rebasing: b[1...]))
    }
    print("checksum \(r) over \(n) samples")
    exit(0)
}

// MARK: timing

let log = o.json ? { (_: String) in } : { (m: String) in
    let line = m + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}
log("generating \(o.samples) samples of mixed motion…")
let samples = mixedMotion(count: o.samples)

/// Median ns per sample of `body` over `runs` runs.
func timed(_ body: () -> Int) -> (ns: Double, check: Int) {
    var times: [Double] = []
    var check = 0
    for _ in 0..<o.runs {
        let t0 = now()
        check = body()
        times.append(Double(now() - t0) / Double(samples.count))
    }
    return (times.sorted()[times.count / 2], check)
}

struct Row {
    var name: String
    var ns: Double
    var ratio: Double?
    var note = ""
}
var rows: [Row] = []

let fixedDefault = samples.withUnsafeBufferPointer { b in
    timed {
        var d = DefaultDetectors(settings)
        _ = d.update(b[0]); d.armTamper()
        return runSet(&d, UnsafeBufferPointer(rebasing: b[1...]))
    }
}
// Interleave the float runs with fixed ones so both see the same machine.
var floatTimes: [Double] = []
var fixedTimes: [Double] = []
for _ in 0..<o.runs {
    samples.withUnsafeBufferPointer { b in
        var d = DefaultDetectors(settings)
        _ = d.update(b[0]); d.armTamper()
        let t0 = now()
        _ = runSet(&d, UnsafeBufferPointer(rebasing: b[1...]))
        fixedTimes.append(Double(now() - t0) / Double(samples.count))
        var f = FloatDefaultDetectors(settings)
        _ = f.update(b[0]); f.armTamper()
        let t1 = now()
        _ = runFloatDefault(&f, UnsafeBufferPointer(rebasing: b[1...]))
        floatTimes.append(Double(now() - t1) / Double(samples.count))
    }
}
let pairRatio = median(zip(floatTimes, fixedTimes).map { $0 / $1 })

// Do the two agree on every event? (Agreement.swift)
log("fixed point against Double over \(Agreement.samples) samples…")
let agreement = Agreement(samples.count >= Agreement.samples ? samples.prefix(Agreement.samples)
                                                            : mixedMotion(count: Agreement.samples)[...],
                          settings: settings)
if let first = agreement.first { log("fixed point and Double differ: first, \(first)") }

rows.append(Row(name: "default set (shake + flip + tamper), fixed point", ns: median(fixedTimes)))
rows.append(Row(name: "default set, Double", ns: median(floatTimes), ratio: pairRatio,
                note: agreement.note))

func alone(_ name: String, _ body: @escaping (UnsafeBufferPointer<Sample>) -> Int) -> Double {
    samples.withUnsafeBufferPointer { b in timed { body(b) }.ns }
}
let period = settings.periodMicros
let tau = Int64(settings.gravityTauMillis) * 1000
func gravity() -> GravityFilter { GravityFilter(tauMicros: tau, periodMicros: period, gyro: true) }

let joltShake = alone("jolt shake") { b in var d = JoltShake(settings); var g = gravity(); return runShakeAlone(&d, &g, b) }
let joltFlip = alone("jolt flip") { b in var d = JoltFlip(settings); var g = gravity(); return runFlipAlone(&d, &g, b) }
let tamper = alone("tamper") { b in
    var d = Tamper(settings: settings.tamper, periodMicros: settings.periodMicros, gyro: settings.gyro); var g = gravity()
    _ = g.update(b[0]); d.arm(gravity: g.value)
    return runTamperAlone(&d, &g, b)
}
rows.append(Row(name: "  jolt shake alone (with the gravity filter)", ns: joltShake))
rows.append(Row(name: "  jolt flip alone (with the gravity filter)", ns: joltFlip))
rows.append(Row(name: "  tamper alone, armed (with the gravity filter)", ns: tamper))

let fixedThreshold = alone("threshold") { b in var d = ThresholdShake(settings); return runFloat(&d, b) { $0.update($1) != nil } }
let floatThreshold = alone("threshold f") { b in var d = FloatPhone.Threshold(); return runFloat(&d, b) { $0.update($1) } }
let fixedLowpass = alone("lowpass") { b in var d = LowPassShake(settings); return runFloat(&d, b) { $0.update($1) != nil } }
let floatLowpass = alone("lowpass f") { b in var d = FloatPhone.LowPass(periodMicros: period); return runFloat(&d, b) { $0.update($1) } }
let fixedPlanar = alone("planar") { b in var d = PlanarShake(settings); return runFloat(&d, b) { $0.update($1) != nil } }
let floatPlanar = alone("planar f") { b in var d = FloatPhone.Planar(); return runFloat(&d, b) { $0.update($1) } }
let fixedWindow = alone("window") { b in var d = WindowShake(settings); return runFloat(&d, b) { $0.update($1) != nil } }
let floatWindow = alone("window f") { b in var d = FloatPhone.Window(periodMicros: period); return runFloat(&d, b) { $0.update($1) } }
let phoneFlip = alone("phone flip") { b in var d = PhoneFlip(settings); return runFloat(&d, b) { $0.update($1) != nil } }
let androidFlip = alone("android flip") { b in var d = AndroidFlip(settings); return runFloat(&d, b) { $0.update($1) != nil } }
rows.append(Row(name: "threshold, fixed point", ns: fixedThreshold))
rows.append(Row(name: "  threshold, Double", ns: floatThreshold, ratio: floatThreshold / fixedThreshold))
rows.append(Row(name: "lowpass, fixed point", ns: fixedLowpass))
rows.append(Row(name: "  lowpass, Double", ns: floatLowpass, ratio: floatLowpass / fixedLowpass))
rows.append(Row(name: "planar, fixed point", ns: fixedPlanar))
rows.append(Row(name: "  planar, Double", ns: floatPlanar, ratio: floatPlanar / fixedPlanar))
rows.append(Row(name: "window, fixed point", ns: fixedWindow))
rows.append(Row(name: "  window, Double", ns: floatWindow, ratio: floatWindow / fixedWindow))
rows.append(Row(name: "flip: phone, fixed point", ns: phoneFlip))
rows.append(Row(name: "flip: android, fixed point", ns: androidFlip))

// MARK: memory

var stateBytes: [(String, Int)] = []
for r in [12_500, 50_000, 100_000, 400_000, 1_000_000] as [Int32] {
    var s = settings
    s.rateMilliHz = r
    _ = DefaultDetectors(s)
    stateBytes.append((TraceWriter.decimal(Int64(r), places: 3, trim: true) + " Hz", MemoryLayout<DefaultDetectors>.size))
}
let allocations: UInt64 = samples.withUnsafeBufferPointer { b in
    var d = DefaultDetectors(settings)
    _ = d.update(b[0]); d.armTamper()
    let warm = UnsafeBufferPointer(rebasing: b[1..<min(100_001, b.count)])
    _ = runSet(&d, warm)
    let before = jolt_alloc_count()
    _ = runSet(&d, UnsafeBufferPointer(rebasing: b[min(100_001, b.count)..<min(1_100_001, b.count)]))
    return jolt_alloc_count() - before
}

// MARK: external: replay, daemon, callgrind, code size

let joltPath = o.jolt ?? selfDir() + "/jolt"

let tmp = "/tmp/jolt-bench-\(getpid())"
mkdir(tmp, 0o755)
defer { _ = spawn(["rm", "-rf", tmp]) }

// Replay: one hour (or --replay-minutes) of 100 Hz six-axis trace, beside wc -l (ReplayBench.swift).
let replay = replayBench(jolt: joltPath, dir: tmp, minutes: o.replayMinutes, runs: o.runs)

// Daemon: jolt run on the simulated board at 100 Hz, with the FIFO and without.
let daemonFIFO = daemon(fifo: true)
let daemonPlain = daemon(fifo: false)
// At rest, polled and woken by the chip's INT pin (docs/hardware.md, "The INT pin").
let daemonRestPolled = daemon(fifo: true, motion: "rest")
let daemonRestInt = daemon(fifo: true, motion: "rest", int: true)

// Stop latency: jolt run with its alarm sounding, SIGTERM at a random moment of the cadence, the
// time until the process has exited (its outputs go inactive before it exits, so this bounds
// the time the buzzer can go on sounding).
let stops = stopLatencies()

// Instructions per sample, from callgrind: the default set over mixed motion, and at rest;
// armed and disarmed; with the rest path and without.
let instructionTable = o.withCallgrind ? instructionRows() : []
let instructions = instructionTable.first?.mixed, instructionsRest = instructionTable.first?.rest

// Code size of the core for a Cortex-M (Embedded Swift, -Osize), from scripts/embedded-check
// when the sources are here: the whole core module, and a firmware-shaped link.
var coreBytes: Int?
var firmwareBytes: Int?
do {
    let script = selfDir() + "/../../../scripts/embedded-check"
    if access(script, X_OK) == 0 {
        let c = spawn(["sh", "-c", "\(script) >&2"])
        for line in c.err.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let i = words.firstIndex(of: "bytes"), i > 0, let n = Int(words[i - 1]) else { continue }
            if line.hasPrefix("JoltCore:") { coreBytes = n }
            if line.hasPrefix("firmware") { firmwareBytes = n }
        }
    }
}

// MARK: report

if o.json {
    func num(_ v: Double?, _ places: Int) -> JSON { guard let v, v.isFinite else { return nil }; return .decimal(f(v, places)) }
    func d(_ x: (cpuPercent: Double, wakeups: Double, transactions: Double)?) -> JSON {
        guard let x else { return nil }
        return ["cpu_percent": num(x.cpuPercent, 3), "wakeups_per_second": num(x.wakeups, 1), "transactions_per_second": num(x.transactions, 1)]
    }
    let core: [JSON] = rows.map { r in
        var m: [(String, JSON)] = [("name", .string(r.name.trimmed)), ("ns_per_sample", num(r.ns, 2)), ("samples_per_second", num(1e9 / r.ns, 0))]
        if let ratio = r.ratio { m.append(("ratio_to_fixed", num(ratio, 2))) }
        return .members(m)
    }
    let j: JSON = [
        "samples": .int(samples.count), "runs": .int(o.runs), "core": .list(core),
        "float_agrees": .bool(agreement.agreed), "events_compared": .int(agreement.events),
        "events_shifted": .int(agreement.shifted), "largest_shift_ms": num(Double(agreement.largestShift) / 1000, 0),
        "instructions_per_sample": num(instructions, 1), "instructions_per_sample_at_rest": num(instructionsRest, 1),
        "instructions": .list(instructionTable.map { r in
            ["armed": .bool(r.armed), "rest_path": .bool(r.restPath), "at_rest": num(r.rest, 1), "mixed_motion": num(r.mixed, 1)]
        }),
        "state_bytes": .members(stateBytes.map { ($0.0, .int($0.1)) }), "allocations_per_million_samples": .int(allocations),
        "replay": ["samples": .int(replay.samples), "seconds": num(replay.seconds, 4), "samples_per_second": num(replay.rate, 0),
                   "wc_l_seconds": num(replay.wcSeconds, 4), "ratio_to_wc_l": num(replay.ratioToWc, 2),
                   "parse_ns_per_sample": num(replay.parseNs, 1), "detect_ns_per_sample": num(median(fixedTimes), 1), "ok": .bool(replay.ok)],
        "daemon": ["seconds": .int(o.daemonSeconds), "fifo": d(daemonFIFO), "no_fifo": d(daemonPlain),
                   "rest_polled": d(daemonRestPolled), "rest_int": d(daemonRestInt)],
        "stop_after_sigterm_ms": stops.isEmpty ? nil : ["trials": .int(stops.count), "p50": num(median(stops), 1), "max": num(stops.max(), 1)],
        "core_code_bytes_cortex_m": coreBytes.map { .int($0) } ?? nil, "firmware_code_bytes_cortex_m": firmwareBytes.map { .int($0) } ?? nil,
    ]
    print(j.text)
} else {
    var t = "Jolt core benchmark: \(samples.count) samples of mixed motion at 100 Hz, median of \(o.runs) runs\n\n"
    t += "detector                                            ns/sample   Msamples/s   Double/fixed\n"
    for r in rows {
        t += r.name.rightPad(50) + f(r.ns, 2).leftPad(11) + f(1e3 / r.ns, 1).leftPad(13)
            + (r.ratio.map { f($0, 2) + "×" } ?? "").leftPad(15) + (r.note.isEmpty ? "" : "   " + r.note) + "\n"
    }
    t += "\ninstructions per sample, default set (callgrind):  \(f(instructions, 1)) over mixed motion, \(f(instructionsRest, 1)) at rest\n"
    for r in instructionTable {
        t += "  " + r.name.rightPad(48) + f(r.rest, 1).leftPad(9) + " at rest" + f(r.mixed, 1).leftPad(9) + " mixed\n"
    }
    t += "default set state (MemoryLayout):                   \(stateBytes.map { "\($0.1) B at \($0.0)" }.joined(separator: ", "))\n"
    t += "heap allocations over 1,000,000 samples:            \(allocations)\n"
    t += "\njolt replay, \(o.replayMinutes) min of 100 Hz six-axis trace (\(replay.samples) samples): \(f(replay.seconds, 4)) s, \(f(replay.rate / 1e6, 2)) M samples/s;"
    t += " \(f(replay.ratioToWc, 2))× the time of wc -l on the same file (\(f(replay.wcSeconds, 4)) s, paired runs)\n"
    t += "  of which parsing \(f(replay.parseNs, 1)) ns/sample, detection \(f(median(fixedTimes), 1)) ns/sample, the rest process start, reading and output\n"
    func d(_ name: String, _ x: (cpuPercent: Double, wakeups: Double, transactions: Double)?) -> String {
        guard let x else { return "\(name): not measured\n" }
        return "\(name): \(f(x.cpuPercent, 3)) % of one core, \(f(x.wakeups, 1)) wake-ups/s, \(f(x.transactions, 1)) bus transactions/s\n"
    }
    t += "\njolt run, simulated MPU6050 at 100 Hz for \(o.daemonSeconds) s\n"
    t += d("  with the FIFO   ", daemonFIFO)
    t += d("  without the FIFO", daemonPlain)
    t += d("  at rest, polled ", daemonRestPolled)
    t += d("  at rest, INT    ", daemonRestInt)
    t += "\nSIGTERM while the alarm sounds → outputs inactive and exited: " + (stops.isEmpty ? "not measured" : "p50 \(f(median(stops), 1)) ms, max \(f(stops.max(), 1)) ms over \(stops.count) runs") + "\n"
    t += "\ncore code for Cortex-M (Embedded Swift, armv7em, -Osize): \(firmwareBytes.map { "\($0) bytes" } ?? "—") for a firmware with the default detectors and the alarm; \(coreBytes.map { "\($0) bytes" } ?? "—") for the whole module with every algorithm\n"
    print(t, terminator: "")
}
exit(agreement.agreed && replay.ok ? 0 : 1)

extension StringProtocol {
    func leftPad(_ n: Int) -> String { String(repeating: " ", count: Swift.max(n - count, 0)) + self }
    func rightPad(_ n: Int) -> String { self + String(repeating: " ", count: Swift.max(n - count, 0)) }
    var trimmed: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\n" || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\n" || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
