#if canImport(Glibc)
import Glibc
#endif
import JoltBuildInfo
import JoltCore
import JoltChips
import JoltDrivers
import JoltEngine
import JoltJSON
import JoltLinux
import JoltSim

/// `jolt run`: open the board, configure the chip, stream samples through the detectors, run
/// the alarm, fire the actions, answer the control socket — until the simulated motion ends,
/// the time limit passes, or a signal. On the way out, whatever the reason, every output goes
/// inactive and every line is released.
final class RunCommand {
    struct Options {
        var json: Bool?
        /// Simulated boards: run as fast as possible on simulated time.
        var fast = false
        /// Stop after this much stream time, µs.
        var limitMicros: Int64?
        /// Simulated boards: loop the motion forever.
        var forever = false
        /// A trace to play on the simulated board.
        var trace: String?
        /// Serve the control socket (off for in-process tests that do not need it).
        var control = true
        /// When the chip counts as faulted, and how fast it is re-probed.
        var supervision = ChipSupervisor.Limits()
        /// Simulated boards: the motion to play, instead of the board's script or trace.
        var source: MotionSource?
        /// Where the alarm's state is kept (`--state-dir`); see `AlarmStore.directory`.
        var stateDirectory: String?
    }

    var board: BoardProfile
    /// The board file as last read, to say what a reload changed.
    var profileTree: JSON?
    let options: Options
    let out: TextOutput
    let hw: Hardware
    let clock: RunClock
    var signals: SignalChannel?
    var worker: ActionWorker?
    var outputs: [String: OutputLine] = [:]
    var inputs: [String: InputLine] = [:]
    var control: ControlServer?
    let notifier = Notifier()
    var busLock: Int32?
    /// The MQTT link, when the board has one.
    var bridge: MQTTBridge?

    /// The alarm, when the board has one. Kept across reloads and detector restarts.
    var alarm: Alarm?
    /// The alarm's state on disk, and what it held at start.
    var store: AlarmStore?
    /// MQTT acknowledgements waiting for the state they report to be on disk (`whenSaved`).
    var heldAcknowledgements: [(save: UInt64, send: () -> Void)] = []
    var savedAtStart: Result<SavedAlarm?, AlarmStore.LoadError>?
    /// The tamper reference while armed or sounding: kept across reloads and restarts.
    var tamperReference: Vec3?
    /// When the alarm entered its state, wall clock µs.
    var alarmSinceWall = WallClock.nowMicros()
    var alarmStarted = false
    /// Tampers seen while the alarm was already sounding, since it last triggered.
    var tamperRepeats = 0
    var keySwitchLast: Bool?
    /// The sampling engine, once the chip is started. Kept across reloads.
    var engine: SamplingEngine?
    /// Stream time of the next sample, µs: the clock commands are applied on.
    var streamNow: Int64 { engine?.streamNow ?? hw.origin }

    /// Figures for the daemon-cost benchmark and the exit log line.
    struct Stats {
        var samples = 0
        var events = 0
        var wakeups = 0
        var overflows = 0
        /// Samples skipped after failed polls without a FIFO (reported as a gap in the summary).
        var skipped = 0
        var streamMicros: Int64 = 0
        var wallMicros: Int64 = 0
        /// Monotonic time of the last alarm trigger, µs (for the latency to the buzzer).
        var triggeredAtWall: Int64?
    }
    var stats = Stats()
    /// Who watches the run from inside (`watch`, `record`, `soak`, tests): one interface.
    var watcher: RunWatcher?
    /// The chip's health: retries, faults, re-probes. Kept across reloads.
    var supervisor: ChipSupervisor { engine?.supervisor ?? ChipSupervisor(periodMicros: hw.sensor.periodMicros, now: 0) }

    /// `outputs`, when given, replace the board's (tests observe simulated lines this way), and
    /// `store` the board's state folder (a test gives a slow disk).
    init(board: BoardProfile, options: Options, out: TextOutput, outputs: [String: OutputLine] = [:], store given: AlarmStore? = nil) throws(JoltError) {
        self.outputs = outputs
        var b = board
        if options.forever { b.sim.loop = true }
        self.board = b
        if b.hasFile, let bytes = try? readFile(b.file, what: "board profile", missingHint: "") {
            profileTree = try? JSONParser.parse(bytes).value
        }
        self.options = options
        self.out = out
        hw = try Hardware.open(b, trace: options.trace, source: options.source)
        clock = try hw.clock(fast: options.fast, board: board)
        if let a = b.alarm {
            alarm = Alarm(settings: a.settings)
            if let given {
                store = given
                savedAtStart = given.load()
            } else if let dir = AlarmStore.directory(option: options.stateDirectory, board: b) {
                let s = try AlarmStore(directory: dir)
                store = s
                savedAtStart = s.load()
            } else if !b.isSimulated {
                Log.warning("the alarm's state is not kept across restarts: give --state-dir or alarm.state_dir")
            }
        }
    }

    /// Why the sampling loop returned.
    enum Outcome { case done, reload }

    /// Runs until done; returns normally on a clean stop (end of motion, time limit, signal).
    func run() throws(JoltError) {
        do {
            signals = try SignalChannel([SIGINT, SIGTERM, SIGHUP])
        } catch {
            throw JoltError(.software, "cannot set up signal handling: \(error)")
        }
        ThisProcess.ignoreBrokenPipes()
        try lockBus()
        defer { shutdown() }
        clock.interrupt = signals?.fd
        var delay = ClockDelay(clock: clock)
        let sensor = hw.sensor
        do {
            try sensor.start(delay: &delay)
        } catch {
            throw chipError(error, sensor)
        }
        if let part = sensor.compatiblePart {
            Log.warning("the chip at 0x\(hex(sensor.address)) reads \(sensor.info.idRegisterName) 0x\(hex(sensor.idRead)), not 0x\(hex(sensor.info.id)): \(part); using it as an \(sensor.info.part)")
        }
        engine = SamplingEngine(sensor: sensor, clock: clock, mount: board.mount, limits: options.supervision, drainMillis: board.fifoPollMillis, origin: hw.origin)
        try openLines()
        if options.control && (board.alarm != nil || board.control.socket != nil) {
            control = try ControlServer(config: board.control)
        } else if options.control && !board.isSimulated {
            // A real board always listens, so that jolt output, watch and record can reach the
            // process that holds the bus and the lines; where it cannot, it runs on without.
            do { control = try ControlServer(config: board.control) } catch {
                Log.warning("no control socket (jolt output, watch and record cannot attach): \(error.message)")
            }
        }
        if let m = board.mqtt {
            let b = try MQTTBridge(config: m, board: board, stateDirectory: store?.directory)
            b.start(board: board, sensor: sensor.identity, alarm: alarm)
            bridge = b
        }
        let fifo = sensor.usesFIFO ? "FIFO drained every \(engine!.intervalMicros / 1000) ms" : "read every sample"
        let over = sensor.oversampling > 1 ? " (read at \(hz(sensor.chipRateMilliHz)) Hz, \(sensor.oversampling) readings a sample)" : ""
        Log.info("jolt \(BuildInfo.description): \(sensor.identity) at 0x\(hex(sensor.address)) on \(hw.busName): \(hz(sensor.rateMilliHz)) Hz\(over), ±\(sensor.rangeMilliG / 1000) g\(sensor.hasGyro ? ", ±\(board.gyroRangeDps) °/s" : ""), \(fifo)\(clock.virtual ? ", simulated time" : "")\(control.map { ", control socket \($0.path)" } ?? "")")
        if board.oversampled && sensor.oversampling == 1 {
            Log.warning("alarm: the \(sensor.chip.info.part) cannot be read at a multiple of \(hz(sensor.rateMilliHz)) Hz, so a slammed door can read as the kiosk being shoved and sound it (docs/detection.md): set rate_hz to 25 or to 50 or more")
        }
        notifier.send("READY=1\nSTATUS=watching \(sensor.identity) on \(hw.busName)")
        let wallStart = Sys.monotonicMicros()
        while true {
            var settings = board.detection
            settings.rateMilliHz = sensor.rateMilliHz
            settings.gyro = sensor.hasGyro
            settings.rangeMilliG = sensor.rangeMilliG
            let outcome = try withDetectors(settings, Loop(run: self, settings: settings))
            if outcome == .done { break }
            reload()
            engine?.mount = board.mount
        }
        stats.wallMicros = Sys.monotonicMicros() - wallStart
        Log.info(summary)
    }

    /// One Jolt per bus: an exclusive lock on the bus's device node.
    func lockBus() throws(JoltError) {
        guard !hw.isSimulated else { return }
        do {
            let fd = try Sys.open(hw.busName, O_RDONLY)
            if try Sys.tryLock(fd) {
                busLock = fd
            } else {
                Sys.close(fd)
                throw JoltError(.tempFailure, "another jolt is already using \(hw.busName): stop it first (systemctl stop jolt) — two programs configuring one chip would fight over it")
            }
        } catch let e as JoltError {
            throw e
        } catch {
            throw JoltError(.unavailable, "\(hw.busName): cannot lock: \(error)")
        }
    }

    /// Requests the board's outputs and inputs and starts the action thread.
    func openLines() throws(JoltError) {
        for o in board.outputs where outputs[o.name] == nil {
            outputs[o.name] = try hw.output(o)
        }
        for i in board.inputs {
            inputs[i.name] = try hw.input(i)
        }
        let printer = EventPrinter(out: out, json: options.json, flushEach: true)
        let engine = ActionEngine(outputs: outputs, alarmOutput: board.alarm?.output, alarmPattern: board.alarm?.cadence ?? .cadence(on: 500, off: 500), printer: printer, boardName: board.name)
        let w = try ActionWorker(engine: engine)
        w.start()
        worker = w
    }

    /// The fail-safe, on every way out: outputs inactive, lines released, socket removed.
    func shutdown() {
        notifier.send("STOPPING=1")
        defer {
            // After the outputs are safe: say offline, keep what is unsent in the outbox.
            bridge?.stop()
            bridge = nil
        }
        let hadWorker = worker != nil
        worker?.stop()
        worker = nil
        if hadWorker && !outputs.isEmpty { Log.info("outputs inactive, lines released: \(outputs.keys.sorted().joined(separator: ", "))") }
        for (_, i) in inputs { i.release() }
        // The outputs are safe: now the alarm's last state, on disk, then what waited for it.
        store?.stop()
        releaseSaved()
        control?.close()
        control = nil
        if let l = busLock { Sys.close(l) }
        busLock = nil
    }

    /// Every event goes through here: counted, then to its actions on the action thread.
    func emit(_ r: EventRecord) {
        stats.events += 1
        if let c = control, c.streaming { c.stream("e \(r.bindingName) \(r.human)") }
        watcher?.event(r, now: clock.now)
        bridge?.event(r)
        var actions: [Action] = [.stdout]
        if let m = board.actions {
            actions = []
            for name in r.bindingNames {
                for a in m.first(where: { $0.event == name })?.actions ?? [] where !actions.contains(a) { actions.append(a) }
            }
        }
        worker?.submit(.event(r, actions))
    }

    var summary: String {
        let secs = Double(max(stats.streamMicros, 1)) / 1e6
        func rate(_ n: Int) -> String { String(Int((Double(n) / secs).rounded())) }
        return "stopped: \(stats.samples) samples over \(EventRecord.seconds(stats.streamMicros / 1000 * 1000)) s, \(stats.events) events, \(hw.transactions) bus transactions (\(rate(hw.transactions))/s), \(stats.wakeups) wake-ups (\(rate(stats.wakeups))/s)\(stats.overflows > 0 ? ", \(stats.overflows) FIFO overflows" : "")\(supervisor.faults > 0 ? ", \(supervisor.faults) faults" : "")\(supervisor.transientErrors > 0 ? ", \(supervisor.transientErrors) bus errors retried" : "")\(stats.skipped > 0 ? ", \(stats.skipped) samples skipped" : "")"
    }
}
