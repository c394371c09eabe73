#if canImport(Glibc)
import Glibc
#endif
import JoltChips
import JoltDrivers
import JoltJSON
import JoltCore
import JoltCorpus
import JoltBuildInfo
import JoltLinux
import JoltActions
import JoltBoard
import JoltConfig
import JoltControl
import JoltEngine
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport
import JoltTrace

/// The `jolt` command line.
public enum JoltCLI {
    /// Runs the command line `args` (without the program name) and returns the exit status.
    public static func main(_ args: [String]) -> Int32 {
        let out = TextOutput.standardOutput
        // What is queued for a slow reader gets a second at most; a stuck one holds up no exit.
        defer {
            TextOutput.standardOutput.drain(timeout: 1_000_000)
            TextOutput.standardError.drain(timeout: 1_000_000)
        }
        do {
            try dispatch(args, out: out)
            out.flush()
            return ExitCode.ok.rawValue
        } catch {
            out.flush()
            // Messages name their command ("jolt run: ..."); the log line says "jolt" already.
            let m = error.message
            Log.error(m.hasPrefix("jolt ") ? String(m.dropFirst(5)) : m)
            return error.code.rawValue
        }
    }

    /// Runs a command line, writing to `out`; errors are thrown, not printed.
    public static func dispatch(_ args: [String], out: TextOutput) throws(JoltError) {
        guard let name = args.first else {
            out.write(overview)
            return
        }
        if name == "--version" || name == "version" {
            guard args.count == 1 else { throw JoltError(.usage, "version: unexpected argument '\(args[1])' (jolt --version takes none)") }
            out.write("jolt \(BuildInfo.description)\n")
            return
        }
        if name == "--help" || name == "-h" || name == "help" {
            if args.count > 1 && args[1] == "--markdown" {
                out.write(markdown)
            } else if args.count > 1 && args[1] == "--man" {
                out.write(manPage)
            } else if args.count > 1 && args[1] == "--config" {
                out.write(ConfigDoc.markdown)
            } else if args.count > 1, let c = commands.first(where: { $0.name == args[1] }) {
                out.write(c.text)
            } else if args.count > 1 {
                throw JoltError(.usage, "help: no command '\(args[1])'\(suggestion(args[1], among: commands.map(\.name))) (commands: \(commands.map(\.name).joined(separator: ", ")))")
            } else {
                out.write(overview)
            }
            return
        }
        guard let help = commands.first(where: { $0.name == name }) else {
            throw JoltError(.usage, "unknown command '\(name)'\(suggestion(name, among: commands.map(\.name))) (commands: \(commands.map(\.name).joined(separator: ", ")); see jolt --help)")
        }
        let rest = Array(args.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            out.write(help.text)
            return
        }
        switch name {
        case "replay": try replay(rest, out: out)
        case "run": try run(rest, out: out)
        case "probe": try probe(rest, out: out)
        case "record": try record(rest, out: out)
        case "arm", "disarm", "status", "reload": try controlRequest(name, rest, out: out)
        case "safe": try safe(rest, out: out)
        case "eval": try eval(rest, out: out)
        case "soak": try soak(rest, out: out)
        case "calibrate": try calibrate(rest, out: out)
        case "tune": try tune(rest, out: out)
        case "plot": try plot(rest, out: out)
        case "watch": try watch(rest, out: out)
        case "output": try output(rest, out: out)
        default: throw JoltError(.software, "command '\(name)' is listed but not wired")
        }
    }

    /// " (did you mean X?)" for the nearest of `names` to a mistyped `word`, or "".
    static func suggestion(_ word: String, among names: [String]) -> String {
        Arguments.nearest(word, among: names).map { " (did you mean \($0)?)" } ?? ""
    }

    static let detectionValued: Set<String> = ["--board", "--config", "--algorithm", "--flip-algorithm", "--sensitivity"]

    static func replay(_ args: [String], out: TextOutput) throws(JoltError) {
        let a = try Arguments(command: "replay", args, valued: detectionValued, flags: ["--json", "--arm", "--samples"])
        guard !a.positional.isEmpty else {
            throw JoltError(.usage, "jolt replay: give at least one trace file (see jolt replay --help)")
        }
        var r = ReplayCommand()
        r.files = a.positional
        r.json = a.flag("--json")
        r.arm = a.flag("--arm")
        r.samples = a.flag("--samples")
        r.board = try detectionBoard(a)
        try r.run(out: out)
    }

    static func run(_ args: [String], out: TextOutput) throws(JoltError) {
        SignalChannel.block([SIGINT, SIGTERM, SIGHUP])
        // A reader that stops (a full pipe, a stalled journal) never holds up sampling, the
        // buzzer or a control reply: events and logs are written from threads of their own.
        TextOutput.standardOutput.makeAsync(name: "standard output")
        TextOutput.standardError.makeAsync(name: "standard error")
        let a = try Arguments(command: "run", args, valued: ["--board", "--seconds", "--trace", "--sensitivity", "--state-dir"],
                              flags: ["--json", "--fast", "--forever", "--quiet"])
        guard a.positional.isEmpty else { throw JoltError(.usage, "jolt run: unexpected argument '\(a.positional[0])' (see jolt run --help)") }
        if a.flag("--quiet") { Log.verbose = false }
        var o = RunCommand.Options()
        o.json = a.flag("--json") ? true : nil
        o.stateDirectory = a.value("--state-dir")
        if let s = try a.fixed("--seconds", places: 6, range: 1...31_536_000_000_000, unit: "s") { o.limitMicros = s }
        let playback = Playback(fast: a.flag("--fast"), trace: a.value("--trace"), forever: a.flag("--forever"))
        let b = try board(a, sensitivity: try sensitivity(a))
        try RunCommand(board: b, playing: playback, options: o, out: out).run()
    }

    static func probe(_ args: [String], out: TextOutput) throws(JoltError) {
        let a = try Arguments(command: "probe", args, valued: ["--bus", "--board"], flags: ["--all"])
        guard a.positional.isEmpty else { throw JoltError(.usage, "jolt probe: unexpected argument '\(a.positional[0])' (see jolt probe --help)") }
        // The board whose bus to probe: --board, else $JOLT_BOARD, as every command names its board;
        // never the installed profile, so that a plain `jolt probe` on a kiosk still looks at every bus.
        let explicit = a.value("--board")
        let env = environmentBoard
        var bus = a.value("--bus")
        var sim = BoardProfile.builtInSim
        if let path = explicit ?? env, bus == nil || bus == "sim" {
            let b = try BoardProfile.load(path: path)
            if explicit == nil && (b.isSimulated || bus == nil) { Log.info("board profile from $JOLT_BOARD: \(path)") }
            if b.isSimulated {
                sim = b
                bus = "sim"
            } else if bus == "sim" {
                if explicit != nil { throw JoltError(.usage, "jolt probe: \(path) is not a simulated board (its bus is \(b.bus)); probe it with --bus \(b.bus)") }
            } else {
                bus = b.bus
            }
        } else if explicit != nil {
            throw JoltError(.usage, "jolt probe: --board goes with --bus sim or alone (a real bus given by --bus is probed as it is)")
        }
        let found = try ProbeCommand.run(bus: bus, all: a.flag("--all"), simulated: sim, out: out)
        if found == 0 {
            out.flush()
            throw JoltError(.unavailable, "no supported chip answered: check the wiring (3.3 V pin 1, SDA pin 3, SCL pin 5, GND pin 6) and that the chip is powered")
        }
    }

    static func record(_ args: [String], out: TextOutput) throws(JoltError) {
        let a = try Arguments(command: "record", args, valued: ["--board", "--seconds", "-o", "--output", "--trace", "--socket", "--motion"], flags: ["--fast"])
        guard a.positional.isEmpty else { throw JoltError(.usage, "jolt record: unexpected argument '\(a.positional[0])' (see jolt record --help)") }
        guard let seconds = try a.fixed("--seconds", places: 0, range: 1...86_400, unit: "s") else {
            throw JoltError(.usage, "jolt record: --seconds S is required (see jolt record --help)")
        }
        guard let output = a.value("-o", "--output") else {
            throw JoltError(.usage, "jolt record: -o FILE is required (see jolt record --help)")
        }
        let attach = attachFirst(a)
        var b = attach && !boardNamed(a) ? BoardProfile.builtInSim
            : try boardPath(a).map { (p) throws(JoltError) in try BoardProfile.load(path: p) } ?? BoardProfile.builtInSim
        if let m = a.value("--motion") { try playMotion(m, on: &b) }
        var o = LiveFeed.Options(fast: a.flag("--fast"), trace: a.value("--trace"), limitMicros: seconds * 1_000_000, socket: a.value("--socket"))
        o.attachFirst = attach
        try RecordCommand(board: b, seconds: seconds, output: output).run(o)
    }

    static func safe(_ args: [String], out: TextOutput) throws(JoltError) {
        let a = try Arguments(command: "safe", args, valued: ["--board"], flags: [])
        let b = try requiredBoard(a)
        let path = b.file
        guard !b.isSimulated else {
            out.write("\(path): simulated board: nothing to do\n")
            return
        }
        // Every line is tried; each failure is one line (the last one as the command's error).
        var failed: JoltError?
        for o in b.outputs {
            do {
                let line = try ChardevOutput(name: o.name, spec: o.line)
                try line.set(false)
                line.release()
                out.write("\(line.label): inactive\n")
            } catch {
                if let earlier = failed { Log.error(earlier.message) }
                failed = error
            }
        }
        if let failed { throw failed }
    }

    static func watch(_ args: [String], out: TextOutput) throws(JoltError) {
        SignalChannel.block([SIGINT, SIGTERM, SIGHUP])
        let a = try Arguments(command: "watch", args, valued: ["--board", "--seconds", "--trace", "--sensitivity", "--socket"], flags: ["--plain", "--fast"])
        guard a.positional.isEmpty else { throw JoltError(.usage, "jolt watch: unexpected argument '\(a.positional[0])' (see jolt watch --help)") }
        var o = WatchCommand.Options()
        o.fast = a.flag("--fast")
        o.plain = a.flag("--plain")
        o.trace = a.value("--trace")
        o.socket = a.value("--socket")
        if let s = try a.fixed("--seconds", places: 6, range: 1...31_536_000_000_000, unit: "s") { o.limitMicros = s }
        o.attachFirst = attachFirst(a)
        try WatchCommand(board: try liveBoard(a, attach: o.attachFirst, sensitivity: try sensitivity(a)), options: o, out: out).run()
    }

    static func output(_ args: [String], out: TextOutput) throws(JoltError) {
        let a = try Arguments(command: "output", args, valued: ["--board", "--pulse", "--beep", "--socket"], flags: ["--on", "--off"])
        guard a.positional.count == 1 else {
            throw JoltError(.usage, "jolt output: give one output name, as the board profile names it (see jolt output --help)")
        }
        var requests: [OutputRequest] = []
        if a.flag("--on") { requests.append(OutputRequest(words: ["on"])!) }
        if a.flag("--off") { requests.append(OutputRequest(words: ["off"])!) }
        if let ms = try a.fixed("--pulse", places: 0, range: 1...600_000, unit: "ms") { requests.append(OutputRequest(words: ["pulse", "\(ms)"])!) }
        if let n = try a.fixed("--beep", places: 0, range: 1...100, unit: "beeps") { requests.append(OutputRequest(words: ["beep", "\(n)"])!) }
        guard requests.count == 1 else {
            throw JoltError(.usage, "jolt output: give one of --on, --off, --pulse MS, --beep N (see jolt output --help)")
        }
        // No board named: the running jolt's own outputs, when one answers.
        if !boardNamed(a), try OutputCommand.throughRunning(name: a.positional[0], label: nil, request: requests[0], socket: a.value("--socket"), out: out) { return }
        try OutputCommand.run(board: try requiredBoard(a), name: a.positional[0], request: requests[0], socket: a.value("--socket"), out: out)
    }

    static func plot(_ args: [String], out: TextOutput) throws(JoltError) {
        let a = try Arguments(command: "plot", args, valued: detectionValued.union(["-o", "--output"]), flags: ["--arm"])
        guard a.positional.count == 1 else {
            throw JoltError(.usage, "jolt plot: give one trace file\(a.positional.count > 1 ? " (found \(a.positional.count))" : "") (see jolt plot --help)")
        }
        guard let output = a.value("-o", "--output") else { throw JoltError(.usage, "jolt plot: -o FILE.svg is required (see jolt plot --help)") }
        var p = PlotCommand(trace: a.positional[0], output: output)
        p.board = try detectionBoard(a)
        p.arm = a.flag("--arm")
        try p.run(out: out)
    }

    static func calibrate(_ args: [String], out: TextOutput) throws(JoltError) {
        let a = try Arguments(command: "calibrate", args, valued: ["--board", "-o", "--output", "--seconds", "--trace"], flags: ["--json", "--fast"])
        guard a.positional.isEmpty else { throw JoltError(.usage, "jolt calibrate: unexpected argument '\(a.positional[0])' (see jolt calibrate --help)") }
        guard let board = try boardPath(a) else { throw noBoard("calibrate") }
        guard let output = a.value("-o", "--output") else { throw JoltError(.usage, "jolt calibrate: -o FILE is required: the board file to write (it may be \(board) itself)") }
        var o = CalibrateCommand.Options(board: board, output: output)
        if let s = try a.fixed("--seconds", places: 3, range: 1_000...60_000, unit: "s") { o.micros = s * 1000 }
        o.fast = a.flag("--fast")
        o.trace = a.value("--trace")
        o.json = a.flag("--json")
        try CalibrateCommand(options: o).run(out: out)
    }

    static func soak(_ args: [String], out: TextOutput) throws(JoltError) {
        let a = try Arguments(command: "soak", args, valued: ["--hours", "--seed", "--rate", "--chip"], flags: ["--json", "--no-fifo", "--quiet"])
        guard a.positional.isEmpty else { throw JoltError(.usage, "jolt soak: unexpected argument '\(a.positional[0])' (see jolt soak --help)") }
        var o = SoakCommand.Options()
        if let h = try a.fixed("--hours", places: 3, range: 100...8_760_000, unit: "h") { o.hours = Double(h) / 1000 }
        if let s = a.value("--seed") {
            guard let v = UInt64(s) else { throw JoltError(.usage, "jolt soak: --seed must be a whole number, found '\(s)'") }
            o.seed = v
        }
        if let c = a.value("--chip") {
            guard let chip = ChipRegistry.named(c) else { throw JoltError(.usage, "jolt soak: --chip must be one of \(ChipRegistry.names.joined(separator: ", ")), found '\(c)'") }
            o.chip = c
            o.rateMilliHz = chip.info.rates.nearest(to: o.rateMilliHz)   // the chip's rate nearest 100 Hz, unless --rate
        }
        if let r = try a.fixed("--rate", places: 3, range: 12_500...1_000_000, unit: "Hz") {
            o.rateMilliHz = Int32(r)
            if let why = ChipRegistry.named(o.chip)?.sensor.unsupported(SensorSettings(rateMilliHz: o.rateMilliHz, accelRangeG: 16, gyroRangeDps: 2000)) {
                throw JoltError(.usage, "jolt soak: --rate: \(why)")
            }
        }
        o.fifo = !a.flag("--no-fifo")
        o.json = a.flag("--json")
        o.progress = !a.flag("--quiet")
        let soak = SoakCommand(options: o)
        let report = try soak.run(out: out)
        soak.print(report, out: out)
        if !report.passed {
            out.flush()
            throw JoltError(.failure, "jolt soak: the run did not hold up (see the problems above)")
        }
    }

    static func eval(_ args: [String], out: TextOutput) throws(JoltError) {
        let a = try Arguments(command: "eval", args, valued: ["--rate", "--seed", "--gait-minutes", "--noise", "--config", "--sensitivity", "--shop-minutes"], flags: ["--json", "--gate", "--accel-only", "--tamper", "--by-person"])
        if a.flag("--tamper") { return try TamperEval.command(a, out: out) }
        if a.value("--shop-minutes") != nil {
            throw JoltError(.usage, "jolt eval: --shop-minutes sets the kiosk corpus's shop life: give --tamper with it (the shake and flip corpus takes --gait-minutes)")
        }
        var o = EvalCommand.Options()
        o.accelOnly = a.flag("--accel-only")
        o.byPerson = a.flag("--by-person")
        o.paths = a.positional
        o.json = a.flag("--json")
        o.gate = a.flag("--gate")
        if let r = try a.fixed("--rate", places: 3, range: 12_500...1_000_000, unit: "Hz") {
            guard 2_000_000 % r == 0 else { throw JoltError(.usage, "jolt eval: --rate must divide 2000 Hz (12.5, 25, 50, 100, 200, 250, 400, 500, 1000)") }
            o.rate = Double(r) / 1000
        }
        if let s = a.value("--seed") { o.seeds = try EvalCommand.seeds(s) }
        if let m = try a.fixed("--gait-minutes", places: 1, range: 1...6000, unit: "min") { o.gaitMinutes = Double(m) / 10 }
        if let n = try a.fixed("--noise", places: 1, range: 0...1000, unit: "mg") {
            guard o.rate != nil else { throw JoltError(.usage, "jolt eval: --noise shapes the generated corpus: give --rate HZ with it") }
            o.noiseMilliG = Double(n) / 10
        }
        o.board = try detectionBoard(a)
        let results = try EvalCommand.run(o, out: out)
        if o.gate, let first = results.first {
            let fails = EvalTargets().failures(first)
            if !fails.isEmpty {
                out.flush()
                throw JoltError(.failure, "jolt eval --gate: the default misses its targets: " + fails.joined(separator: "; "))
            }
        }
    }
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: Swift.max(width - count, 0)) }
}
