import JoltChips
import JoltJSON
import JoltCore
import JoltLinux
import JoltMotion
import JoltSim
import JoltTrace
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltConfig
import JoltControl
import JoltCorpus
import JoltDrivers
import JoltEngine
import JoltMQTT
import JoltRun
import JoltSimBoard
import JoltSupport

/// `jolt soak`: a kiosk's day (or a month) on the simulated board in minutes of wall time. The
/// motion is planned from a seed: long rests with a shake or a flip between them, and faults
/// injected at random in the rests (unplugged for seconds or for minutes, bus errors, brown-outs,
/// frozen data, host stalls) plus short bus errors anywhere. `jolt run` itself runs it on
/// simulated time, and the soak checks what it reported against the plan: every gesture detected,
/// nothing else raised, every fault reported once and recovered, and the resident memory flat.
struct SoakCommand {
    struct Options {
        var hours = 24.0
        var seed: UInt64 = 1
        var rateMilliHz: Int32 = 100_000
        var chip = ChipRegistry.names[0]
        var fifo = true
        var json = false
        /// Print progress on standard error: each simulated hour, or each tenth of a shorter run.
        var progress = true
    }

    enum GestureKind: String { case shake, flip }

    /// A planned gesture, in source samples (sample i is made at sourceStart + (i + 1) × period).
    struct Gesture {
        var kind: GestureKind
        /// The shake, or the turn face down.
        var from: Int, to: Int
        /// A flip's turn back face up.
        var backFrom = 0, backTo = 0
    }

    /// A planned fault and what was seen of it.
    struct PlannedFault {
        var fault: SimFaultSpec
        var name: String
        /// Short enough for the retries: must raise nothing.
        var transient: Bool
        var reported: [Int64] = []
        var recovered: [Int64] = []
    }

    /// The plan, made before the run; times of faults are sim time, µs.
    struct Plan {
        var gestures: [Gesture] = []
        var faults: [PlannedFault] = []
        var samples = 0
    }

    let options: Options
    var periodMicros: Int64 { Units.periodMicros(rateMilliHz: options.rateMilliHz) }

    /// Sim time of the first sample, µs, as planned (the chip's reset and configuration come
    /// first). The check uses the time the chip reports, so this only places the faults.
    static let plannedStart: Int64 = 200_000

    /// Plans the day and returns a source that makes its motion lazily, segment by segment.
    func plan() -> (Plan, MotionSource) {
        var p = SoakPlanner(options: options, periodMicros: periodMicros)
        p.planGestures()
        p.planTransients()
        return (p.plan, p.source())
    }

    /// A piece of the planned motion.
    enum Segment {
        case rest(Int)
        case shake(freq: Double, amp: Double, axis: V3, samples: Int)
        case turn(axis: V3, degrees: Double, samples: Int)
    }

    /// The figures a soak reports.
    struct Report {
        var hours = 0.0
        var wallSeconds = 0.0
        var samples = 0
        var shakes = 0, shakesFound = 0
        var flips = 0, facesDown = 0, facesUp = 0
        var unexpected: [String] = []
        var faultsByName: [String: Int] = [:]
        var transients = 0
        var faultsInjected = 0, faultsReported = 0, faultsRecovered = 0
        var faultProblems: [String] = []
        /// Seconds from a fault's start (a stall's end) to its report, and from its end to recovery.
        var detection: [Double] = []
        var recovery: [Double] = []
        var slowDetections = 0
        /// The supervisor's stuck-data window at the end, µs (longer than 0.6 s on a chip whose
        /// digit is coarse against its noise, which repeats itself at rest).
        var stuckWindowMicros: Int64 = 600_000
        var busErrorsRetried = 0
        var rssStart = 0, rssWarm = 0, rssEnd = 0, rssPeak = 0

        var memoryFlat: Bool { rssEnd - rssWarm <= 2 << 20 }
        var passed: Bool {
            shakesFound == shakes && facesDown == flips && facesUp == flips && unexpected.isEmpty && faultProblems.isEmpty
                && slowDetections == 0 && memoryFlat
        }
    }

    func run(out: TextOutput) throws(JoltError) -> Report {
        let wallStart = Sys.monotonicMicros()
        var report = Report()
        report.hours = options.hours
        report.rssStart = Self.residentBytes().rss
        var (plan, source) = plan()
        var board = BoardProfile.builtInSim
        board.name = "soak"
        board.file = "(soak)"
        board.chip = options.chip
        board.address = nil
        board.sim.chip = options.chip
        board.sim.faults = plan.faults.map(\.fault)
        board.rateMilliHz = options.rateMilliHz
        board.fifo = options.fifo
        board.actions = []   // events are checked here, not printed
        board.mqtt = nil
        board.detection = DetectionSettings(sensitivity: .medium, rateMilliHz: options.rateMilliHz, gyro: ChipRegistry.named(options.chip)?.info.hasGyro ?? false)
        var o = RunCommand.Options(json: true)
        o.control = false
        o.limitMicros = Int64(plan.samples) * periodMicros
        let sim = try SimBoard.open(board, source: source, fast: true)
        // Memory is compared from a warm point (an hour in, or a quarter of a shorter run) to the end.
        let watch = SoakWatcher(hours: options.hours, progress: options.progress)
        let cmd = try RunCommand(board: board, hardware: sim, options: o, out: TextOutput(fd: -1), watcher: watch)
        // The run's own fault lines would drown the summary: the soak reports them itself.
        Log.silent = true
        defer { Log.silent = false }
        let run = try cmd.run()
        Log.silent = false
        report.rssWarm = watch.rssWarm == 0 ? report.rssStart : watch.rssWarm
        let events = watch.events
        (report.rssEnd, report.rssPeak) = Self.residentBytes()
        report.samples = run.samples
        report.busErrorsRetried = run.chip.transientErrors
        report.stuckWindowMicros = run.chip.stuckWindowMicros
        report.wallSeconds = Double(Sys.monotonicMicros() - wallStart) / 1e6
        check(&plan, events: events, sourceStart: sim.world.sourceStart ?? Self.plannedStart - periodMicros, into: &report)
        return report
    }

    /// Matches what was reported against the plan.
    func check(_ plan: inout Plan, events: [(EventRecord.Kind, Int64)], sourceStart: Int64, into r: inout Report) {
        let p = periodMicros
        func time(_ sample: Int) -> Int64 { sourceStart + Int64(sample + 1) * p }
        // Gestures: a shake began between its start and 1 s after its end; a flip face down
        // (and up) within 2 s of the turn's end.
        var used = Set<Int>()
        func find(_ from: Int64, _ to: Int64, _ match: (EventRecord.Kind) -> Bool) -> Bool {
            for (i, (e, now)) in events.enumerated() where !used.contains(i) && match(e) && now >= from && now <= to {
                used.insert(i)
                return true
            }
            return false
        }
        for g in plan.gestures {
            switch g.kind {
            case .shake:
                r.shakes += 1
                if find(time(g.from), time(g.to) + 1_000_000, { $0 == .shake(.began) }) { r.shakesFound += 1 }
            case .flip:
                r.flips += 1
                if find(time(g.from), time(g.to) + 2_000_000, { $0 == .flip(.faceDown) }) { r.facesDown += 1 }
                if find(time(g.backFrom), time(g.backTo) + 2_000_000, { $0 == .flip(.faceUp) }) { r.facesUp += 1 }
            }
        }
        // Faults: each event belongs to the last fault that began before it.
        for (i, (e, now)) in events.enumerated() where !used.contains(i) {
            let name = EventRecord(t: 0, kind: e).bindingName
            switch e {
            case .fault, .recovered:
                guard let k = plan.faults.lastIndex(where: { $0.fault.from <= now }) else {
                    r.unexpected.append("\(name) at \(EventRecord.seconds(now)) s, before any fault")
                    continue
                }
                if e == .fault { plan.faults[k].reported.append(now) } else { plan.faults[k].recovered.append(now) }
            default:
                r.unexpected.append("\(name) at \(EventRecord.seconds(now)) s")
            }
        }
        for f in plan.faults { Self.judge(f, into: &r) }
    }

    /// One planned fault against the events it got: reported and recovered once each (a short
    /// bus error: not at all), and how soon.
    static func judge(_ f: PlannedFault, into r: inout Report) {
        if f.transient {
            r.transients += 1
            if !f.reported.isEmpty || !f.recovered.isEmpty {
                r.faultProblems.append("a \(f.fault.to - f.fault.from) µs bus error at \(EventRecord.seconds(f.fault.from)) s was reported")
            }
            return
        }
        r.faultsInjected += 1
        r.faultsByName[f.name, default: 0] += 1
        r.faultsReported += f.reported.count
        r.faultsRecovered += f.recovered.count
        let at = "\(f.name) at \(EventRecord.seconds(f.fault.from)) s"
        guard f.reported.count == 1, f.recovered.count == 1 else {
            r.faultProblems.append("\(at): \(f.reported.count) fault and \(f.recovered.count) recovered events (want 1 and 1)")
            return
        }
        // A stall is noticed when polling resumes; a reset has no length.
        let start = f.fault.kind == .stall ? f.fault.to : f.fault.from
        let end = f.fault.kind == .reset ? f.fault.from : f.fault.to
        let detected = Double(f.reported[0] - start) / 1e6
        r.detection.append(detected)
        r.recovery.append(Double(f.recovered[0] - end) / 1e6)
        // Within 1 s; frozen data, within the stuck-data window and 0.4 s (1 s for a fine chip).
        let limit = f.fault.kind == .frozen ? Swift.max(Double(r.stuckWindowMicros) / 1e6 + 0.4, 1.0) : 1.0
        if detected > limit { r.slowDetections += 1; r.faultProblems.append("\(at): reported \(detected) s after it began") }
    }

    /// The resident set size and its peak, bytes (from /proc/self/status).
    static func residentBytes() -> (rss: Int, peak: Int) {
        guard let bytes = try? readFile("/proc/self/status", what: "process status", missingHint: "") else { return (0, 0) }
        let text = String(decoding: bytes, as: UTF8.self)
        func field(_ name: String) -> Int {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            let digits = line.filter { $0.isNumber }
            return (Int(digits) ?? 0) * 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    static func mib(_ bytes: Int) -> String { TraceWriter.decimal(Int64(bytes) * 10 / (1 << 20), places: 1, trim: false) }

    /// The report as text or JSON.
    func print(_ r: Report, out: TextOutput) {
        func pct(_ v: [Double], _ q: Double) -> String {
            guard !v.isEmpty else { return "-" }
            let s = v.sorted()
            return TraceWriter.decimal(Int64((s[min(Int(Double(s.count - 1) * q), s.count - 1)] * 100).rounded()), places: 2, trim: false)
        }
        let chip = "\(ChipRegistry.named(options.chip)?.info.part ?? options.chip)\(options.fifo ? " (FIFO)" : " (no FIFO)")"
        let names = r.faultsByName.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        if options.json {
            func p(_ v: [Double], _ q: Double) -> JSON { let t = pct(v, q); return t == "-" ? nil : .decimal(t) }
            let f: JSON = [
                "hours": .decimal(EventRecord.seconds(Int64(r.hours * 1e6))), "rate_hz": .decimal(hz(options.rateMilliHz)),
                "chip": .string(options.chip), "fifo": .bool(options.fifo), "seed": .int(options.seed),
                "wall_s": .decimal(TraceWriter.decimal(Int64(r.wallSeconds * 1000), places: 3, trim: true)), "samples": .int(r.samples),
                "shakes": .int(r.shakes), "shakes_detected": .int(r.shakesFound),
                "flips": .int(r.flips), "face_down_detected": .int(r.facesDown), "face_up_detected": .int(r.facesUp),
                "unexpected_events": .int(r.unexpected.count),
                "faults_injected": .int(r.faultsInjected), "faults_reported": .int(r.faultsReported), "faults_recovered": .int(r.faultsRecovered),
                "short_bus_errors_injected": .int(r.transients), "bus_errors_retried": .int(r.busErrorsRetried),
                "fault_problems": .list(r.faultProblems.map { .string($0) }),
                "detection_s_p50": p(r.detection, 0.5), "detection_s_max": p(r.detection, 1),
                "recovery_s_p50": p(r.recovery, 0.5), "recovery_s_max": p(r.recovery, 1),
                "rss_start_bytes": .int(r.rssStart), "rss_after_1h_bytes": .int(r.rssWarm), "rss_end_bytes": .int(r.rssEnd), "rss_peak_bytes": .int(r.rssPeak),
                "passed": .bool(r.passed),
            ]
            out.write(f.text + "\n")
            return
        }
        var s = "jolt soak: \(EventRecord.seconds(Int64(r.hours * 1e6))) simulated hours at \(hz(options.rateMilliHz)) Hz on the simulated \(chip), seed \(options.seed), in \(TraceWriter.decimal(Int64(r.wallSeconds * 10), places: 1, trim: false)) s\n"
        s += "  samples           \(r.samples)\n"
        s += "  shakes            \(r.shakesFound) of \(r.shakes) detected\n"
        s += "  flips             \(r.facesDown) of \(r.flips) face down, \(r.facesUp) of \(r.flips) face up detected\n"
        s += "  unexpected events \(r.unexpected.count)\(r.unexpected.isEmpty ? "" : ": " + r.unexpected.prefix(5).joined(separator: "; "))\n"
        s += "  faults injected   \(r.faultsInjected): \(names)\n"
        s += "  faults reported   \(r.faultsReported) fault, \(r.faultsRecovered) recovered events\n"
        s += "  short bus errors  \(r.transients) injected (1-25 ms), \(r.busErrorsRetried) failed transfers retried, none reported\n"
        s += "  reported after    p50 \(pct(r.detection, 0.5)) s, max \(pct(r.detection, 1)) s (from the fault's start; a stall's end)\n"
        if r.stuckWindowMicros > 600_000 {
            s += "  stuck data        after \(EventRecord.seconds(r.stuckWindowMicros)) s of identical readings (the chip repeats itself at rest)\n"
        }
        s += "  recovered after   p50 \(pct(r.recovery, 0.5)) s, max \(pct(r.recovery, 1)) s (from the fault's end)\n"
        s += "  memory            RSS \(Self.mib(r.rssStart)) MiB at start, \(Self.mib(r.rssWarm)) MiB after \(r.hours >= 4 ? "1 h" : EventRecord.seconds(Int64(r.hours * 250_000)) + " h"), \(Self.mib(r.rssEnd)) MiB at the end (peak \(Self.mib(r.rssPeak)) MiB)\n"
        for p in r.faultProblems.prefix(10) { s += "  problem           \(p)\n" }
        s += "  verdict           \(r.passed ? "PASS" : "FAIL")\n"
        out.write(s)
    }
}

/// What a soak watches in its run: the events it checks, memory once warm, a progress line.
final class SoakWatcher: RunWatcher {
    var events: [(EventRecord.Kind, Int64)] = []
    var rssWarm = 0
    let warmAt: Int64
    let hours: Double
    let progress: Bool
    /// Sim time between progress lines, µs: an hour, or a tenth of a shorter run.
    let every: Int64
    var next: Int64

    init(hours: Double, progress: Bool) {
        self.hours = hours
        self.progress = progress
        every = Int64(min(3600, hours * 360) * 1e6)
        next = every
        warmAt = Int64(min(3600, hours * 900) * 1e6)
        events.reserveCapacity(Int(hours * 400))
    }

    func event(_ e: EventRecord, now: Int64) {
        switch e.kind {
        case .shake(.began), .flip, .fault, .recovered: events.append((e.kind, now))
        default: break
        }
    }

    func woke(now: Int64) -> Bool {
        if rssWarm == 0 && now >= warmAt { rssWarm = SoakCommand.residentBytes().rss }
        guard now >= next else { return false }
        if progress {
            TextOutput.standardError.write("jolt: soak: \(EventRecord.seconds(next / 3600)) of \(EventRecord.seconds(Int64(hours * 1e6))) h, \(counted(events.count, "event")), RSS \(SoakCommand.mib(SoakCommand.residentBytes().rss)) MiB\n")
            TextOutput.standardError.flush()
        }
        next += every
        return false
    }
}
