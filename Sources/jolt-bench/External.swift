#if canImport(Glibc)
import Glibc
#endif
import CAllocCount
import JoltBaselines
import JoltCore
import JoltJSON
import JoltMotion
import JoltTrace

/// `jolt run` on the simulated MPU6050 at 100 Hz for `--daemon-seconds`: its CPU share, wake-ups
/// and bus transactions a second. `motion`: the simulated board's script, looped; `int`: the
/// chip's INT pin wired (the loop sleeps until the twin raises it).
func daemon(fifo: Bool, motion: String = "demo", int: Bool = false) -> (cpuPercent: Double, wakeups: Double, transactions: Double)? {
    guard o.daemonSeconds > 0 else { return nil }
    let board = tmp + "/sim-\(fifo)-\(motion)-\(int).json"
    let text = """
        { "name": "bench", "bus": "sim", "chip": "mpu6050", "rate_hz": 100, "accel_range_g": 16,
          "gyro_range_dps": 2000, "fifo": \(fifo), "fifo_poll_ms": 200, \(int ? "\"int\": { \"line\": \"GPIO4\" }," : "")
          "sim": { "motion": "\(motion)", "loop": true } }
        """
    let f = fopen(board, "w")!
    fputs(text, f)
    fclose(f)
    log("daemon: jolt run for \(o.daemonSeconds) s, FIFO \(fifo ? "on" : "off"), \(motion)\(int ? ", INT" : "")…")
    let r = spawn([joltPath, "run", "--board", board, "--json", "--seconds", "\(o.daemonSeconds)"])
    guard r.status == 0 else { log("jolt run failed: \(r.err)"); return nil }
    // "stopped: N samples over S s, E events, T bus transactions (x/s), W wake-ups (y/s)"
    func number(before word: String) -> Double? {
        guard let line = r.err.split(separator: "\n").last(where: { $0.contains("stopped:") }) else { return nil }
        let words = line.split(separator: " ")
        guard let i = words.firstIndex(where: { $0.hasPrefix(word.split(separator: " ")[0]) }), i > 0 else { return nil }
        return Double(words[i - 1])
    }
    let seconds = Double(r.wall) / 1e9
    guard let t = number(before: "bus transactions"), let w = number(before: "wake-ups") else { return nil }
    return (Double(r.cpu) / 1e6 / seconds * 100, w / Double(o.daemonSeconds), t / Double(o.daemonSeconds))
}

func stopLatencies() -> [Double] {
    guard o.signalTrials > 0 else { return [] }
    var m = Motion(rate: 100, seed: 21)
    m.rest(1.5)
    m.liftAndCarry(carry: 30)
    var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
    for s in m.take() { text += TraceWriter.row(s, gyro: true) }
    let trace = tmp + "/lift.csv", board = tmp + "/kiosk.json"
    for (path, body) in [(trace, text), (board, """
        { "name": "bench kiosk", "bus": "sim", "chip": "mpu6050", "rate_hz": 100, "fifo": true, "fifo_poll_ms": 100,
          "outputs": { "buzzer": { "line": "GPIO17" } },
          "control": { "socket": "\(tmp)/jolt.sock" },
          "alarm": { "armed_at_start": true, "arming_ms": 300, "triggers": ["shake", "flip", "tamper"], "output": "buzzer",
                     "cadence": { "on_ms": 500, "off_ms": 500 } } }
        """)] {
        let f = fopen(path, "w")!
        fputs(body, f)
        fclose(f)
    }
    log("stop latency: \(o.signalTrials) runs, SIGTERM while the alarm sounds…")
    var rng = SplitMix64(seed: 5)
    var result: [Double] = []
    for _ in 0..<o.signalTrials {
        guard let (pid, errFD) = start([joltPath, "run", "--board", board, "--trace", trace]) else { return [] }
        // Read until the buzzer first goes active, then wait 0 to 1 s (on or off in the cadence).
        var seen = ""
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !seen.contains(": active\n") {
            let n = read(errFD, &chunk, chunk.count)
            if n <= 0 { break }
            seen += String(decoding: chunk[0..<n], as: UTF8.self)
        }
        usleep(UInt32(rng.uniform(0, 1) * 1e6))
        let t0 = now()
        kill(pid, SIGTERM)
        while read(errFD, &chunk, chunk.count) > 0 {}
        var st: Int32 = 0
        waitpid(pid, &st, 0)
        let t1 = now()
        close(errFD)
        guard seen.contains(": active\n"), (st >> 8) & 0xFF == 0 else {
            log("stop latency: the run did not sound or did not exit 0 (status \(st)): \(seen.suffix(300))")
            return []
        }
        result.append(Double(t1 - t0) / 1e6)
    }
    return result
}

/// Instructions per sample of the default set, by callgrind, in one configuration.
struct InstructionRow {
    let armed: Bool
    let restPath: Bool
    var rest: Double?
    var mixed: Double?

    var name: String {
        (armed ? "armed" : "disarmed") + (restPath ? "" : ", every sample on the full path")
    }
}

/// At rest and over mixed motion; armed and disarmed; with the rest path and without.
func instructionRows() -> [InstructionRow] {
    var rows: [InstructionRow] = []
    for armed in [true, false] {
        for restPath in [true, false] {
            var r = InstructionRow(armed: armed, restPath: restPath)
            r.rest = callgrind(rest: true, armed: armed, restPath: restPath)
            r.mixed = callgrind(rest: false, armed: armed, restPath: restPath)
            rows.append(r)
        }
    }
    return rows
}

func callgrind(rest: Bool, armed: Bool = true, restPath: Bool = true) -> Double? {
    let n = 200_000
    let out = tmp + "/callgrind-\(rest)-\(armed)-\(restPath).out"
    log("callgrind: the default set over \(n) samples \(rest ? "at rest" : "of mixed motion"), \(armed ? "armed" : "disarmed")\(restPath ? "" : ", full path")…")
    let flags = (rest ? ["--rest"] : []) + (armed ? [] : ["--disarmed"]) + (restPath ? [] : ["--full-path"])
    let r = spawn(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "--toggle-collect=jolt_bench_default_workload*",
                   selfDir() + "/jolt-bench", "--callgrind", "\(n)"] + flags)
    guard r.status == 0, let f = fopen(out, "r") else {
        log("valgrind not available or failed: \(r.err.prefix(200))")
        return nil
    }
    defer { fclose(f) }
    var result: Double?
    var line = [CChar](repeating: 0, count: 4096)
    while fgets(&line, 4096, f) != nil {
        let s = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if s.hasPrefix("summary:") || s.hasPrefix("totals:") {
            if let v = Double(s.split(separator: " ").last!.trimmed) { result = v / Double(n - 1) }
        }
    }
    return result
}
