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
import JoltActions
import JoltBoard
import JoltConfig
import JoltControl
import JoltSupport

/// `jolt run`: open the board, configure the chip, stream samples through the detectors, run
/// the alarm, fire the actions, answer the control socket — until the simulated motion ends,
/// the time limit passes, or a signal. On the way out, whatever the reason, every output goes
/// inactive and every line is released.
///
/// It holds what the run is given (the board, its hardware, the options, the alarm's store) and
/// what outlives a reload; `open()` puts the parts together as a `Service`, which the loop runs
/// and `Service.close()` takes apart. The parts do the work and do not call back into it:
/// `SamplingEngine` (the chip to samples), `RunLoop` (the wait over the wake-ups and the chip's
/// polls), `RunSink` (samples to events and the alarm), `AlarmController` (the alarm, its state
/// on disk), `EventRouter` (every event to where it goes), `RunRequests` (the control socket,
/// MQTT, the key switch), `ActionWorker` (the outputs).
package final class RunCommand {
    package struct Options {
        package var json: Bool?
        /// Stop after this much stream time, µs.
        package var limitMicros: Int64?
        /// Serve the control socket (off for in-process tests that do not need it).
        package var control = true
        /// When the chip counts as faulted, and how fast it is re-probed.
        package var supervision = ChipSupervisor.Limits()
        /// Where the alarm's state is kept (`--state-dir`); see `AlarmStore.directory`.
        package var stateDirectory: String?

        package init(json: Bool? = nil, limitMicros: Int64? = nil) {
            self.json = json
            self.limitMicros = limitMicros
        }
    }

    package var board: BoardProfile
    /// The board file as last read, to say what a reload changed.
    package var profileTree: JSON?
    package let options: Options
    package let out: TextOutput
    /// The opened board: a real one, or (opened by whoever runs this) the simulated one.
    package let hw: Board
    package let clock: RunClock
    /// Who watches the run from inside (`watch`, `record`, `soak`, tests): one interface.
    package let watcher: RunWatcher?
    /// Outputs that replace the board's (tests observe simulated lines this way).
    let givenOutputs: [String: OutputLine]
    package let notifier = Notifier()
    /// The alarm's state on disk (`--state-dir`, the profile, the service's StateDirectory).
    package let store: AlarmStore?
    package let counters = RunCounters()
    /// The parts while the run is running; nil before and after.
    package private(set) var service: Service?

    /// A run of `board` on `hardware`, opened from it. `outputs`, when given, replace the board's
    /// (tests observe simulated lines this way), and `store` the board's state folder (a test
    /// gives a slow disk); `watcher` sees its samples and events.
    package init(board b: BoardProfile, hardware: Board, options: Options, out: TextOutput, outputs: [String: OutputLine] = [:], store given: AlarmStore? = nil,
                 watcher: RunWatcher? = nil) throws(JoltError) {
        givenOutputs = outputs
        self.watcher = watcher
        self.board = b
        if b.hasFile, let bytes = try? readFile(b.file, what: "board profile", missingHint: "") {
            profileTree = try? JSONParser.parse(bytes).value
        }
        try Self.refuseComparisonAlgorithms(b.detection, file: b.file)
        self.options = options
        self.out = out
        hw = hardware
        clock = hardware.clock
        var s: AlarmStore?
        if b.alarm != nil {
            if let given {
                s = given
            } else if let dir = AlarmStore.directory(option: options.stateDirectory, board: b, holdsBus: hardware.exclusiveNode != nil) {
                s = try AlarmStore(directory: dir)
            } else if hardware.exclusiveNode != nil {
                Log.warning("the alarm's state is not kept across restarts: give --state-dir or alarm.state_dir")
            }
        }
        store = s
    }

    /// The phone algorithms are kept to compare Jolt's detectors with (replay, plot, eval); a run,
    /// and watch and record through it, uses Jolt's own, and says so rather than run them quietly.
    package static func refuseComparisonAlgorithms(_ d: DetectionSettings, file: String) throws(JoltError) {
        let named = [d.shakeAlgorithm == .jolt ? nil : "detection.shake.algorithm \"\(d.shakeAlgorithm.name)\"",
                     d.flipAlgorithm == .jolt ? nil : "detection.flip.algorithm \"\(d.flipAlgorithm.name)\""].compactMap { $0 }
        guard !named.isEmpty else { return }
        throw JoltError(.config, "\(file.isEmpty ? "board" : file): \(named.joined(separator: " and ")) is kept to compare Jolt's detectors with (jolt replay, plot and eval run it); jolt run, watch and record use Jolt's own: leave the key out")
    }

    /// Why the sampling loop returned.
    package enum Outcome { case done, reload }

    /// Runs until done; returns normally, with what it did, on a clean stop (end of motion, time
    /// limit, signal).
    @discardableResult
    package func run() throws(JoltError) -> RunReport {
        let signals: SignalChannel
        do {
            signals = try SignalChannel([SIGINT, SIGTERM, SIGHUP])
        } catch {
            throw JoltError(.software, "cannot set up signal handling: \(error)")
        }
        ThisProcess.ignoreBrokenPipes()
        let onTerminal = Terminal.isControlling
        clock.interrupt = signals.fd
        // The run's signal descriptor closes with the run: its clock no longer waits on it.
        defer { clock.interrupt = nil }
        let s = try open()
        service = s
        defer {
            s.close()
            service = nil
        }
        logStart(s)
        let notifier = self.notifier, ready = "READY=1\nSTATUS=watching \(s.sensor.identity) on \(hw.busName)"
        var first = true
        let wallStart = Sys.monotonicMicros()
        while true {
            let settings = detectionSettings(s.sensor)
            var sink = RunSink(router: s.router, alarm: s.alarm, notifier: notifier, settings: settings, sensor: s.sensor,
                               maxBackoffMicros: options.supervision.maxBackoffMicros)
            sink.evidence = s.evidence
            let loop = RunLoop(engine: s.engine, clock: clock, wakeups: wakeups(signals, onTerminal: onTerminal, s), alarm: s.alarm, watcher: watcher,
                               control: s.control, limitMicros: options.limitMicros, counters: counters, sink: sink,
                               started: first ? { notifier.send(ready) } : nil, pin: s.pin)
            first = false
            if try loop.run() == .done { break }
            switch reload(s) {
            case .success(let done): s.control?.answerReload(JSON.members([("ok", true), ("reloaded", .string(done))]).text)
            case .failure(let refused): s.control?.answerReload(ControlReply.refusal(refused.message))
            }
            // Fresh detectors for the profile as it now is (or as it was, refused).
            s.engine.mount = board.mount
            s.engine.restart(detectionSettings(s.sensor))
        }
        var r = report(s)
        r.wallMicros = Sys.monotonicMicros() - wallStart
        Log.info(r.summary)
        return r
    }

    /// The detection settings of the board, for the stream the chip really makes.
    package func detectionSettings(_ sensor: ChipSensor) -> DetectionSettings {
        var settings = board.detection
        settings.rateMilliHz = sensor.rateMilliHz
        settings.gyro = sensor.hasGyro
        settings.rangeMilliG = sensor.rangeMilliG
        return settings
    }

    /// What wakes the loop besides the chip, each with its handler: signals (`onTerminal`: the run
    /// was started from a terminal, and a SIGHUP after it hung up stops it), the control socket,
    /// MQTT commands, the store's saves; and what is done at every turn (the systemd watchdog,
    /// the key switch).
    package func wakeups(_ signals: SignalChannel, onTerminal: Bool, _ s: Service) -> [Wakeup] {
        let requests = s.requests, store = self.store, notifier = self.notifier
        var w = [Wakeup(fds: { [signals.fd] }, handle: { ready, turn in
            guard ready else { return }
            var stop = false, reload = false, hungUp = false
            while let sig = signals.next() {
                if sig == SIGINT || sig == SIGTERM { stop = true }
                // SIGHUP reloads (systemctl reload); but a run started from a terminal that has
                // since hung up (its window or SSH session closed) stops, rather than hold the
                // bus that the service would then be refused.
                if sig == SIGHUP {
                    if onTerminal && !Terminal.isControlling { hungUp = true } else { reload = true }
                }
            }
            if hungUp { Log.info("stopping: the terminal closed (SIGHUP)") }
            stop = stop || hungUp
            if stop && !hungUp { Log.info("stopping on a signal") }
            turn.outcome = stop ? .done : reload ? .reload : turn.outcome
        })]
        if let control = s.control {
            w.append(Wakeup(fds: { control.pollFDs }, handle: { _, turn in control.service { line in requests.control(line, &turn) } }))
        }
        if let bridge = s.bridge { w.append(Wakeup(fds: { [bridge.commandFD] }, handle: { _, turn in requests.mqttCommands(&turn) })) }
        w.append(Wakeup(fds: { store.map { [$0.written.fd] } ?? [] }, handle: { ready, turn in
            if ready { store?.written.drain() }
            requests.keepWord(&turn)
            notifier.watchdog(now: Sys.monotonicMicros())
            requests.readKeySwitch(&turn)
        }))
        return w
    }

    /// The start-up line, and the warning of a slow rate the chip cannot be read fast for.
    package func logStart(_ s: Service) {
        let sensor = s.sensor
        let fifo = s.engine.readingPlan(pin: s.pin?.label)
        let over = sensor.oversampling > 1 ? " (read at \(hz(sensor.chipRateMilliHz)) Hz, \(sensor.oversampling) readings a sample)" : ""
        let gyro = sensor.hasGyro ? ", ±\(board.gyroRangeDps) °/s" : ""
        let socket = s.control.map { ", control socket \($0.path)" } ?? ""
        Log.info("jolt \(BuildInfo.description): \(sensor.identity) at 0x\(hex(sensor.address)) on \(hw.busName): \(hz(sensor.rateMilliHz)) Hz\(over), ±\(sensor.rangeMilliG / 1000) g\(gyro), \(fifo)\(clock.virtual ? ", simulated time" : "")\(socket)")
        if board.oversampled && sensor.oversampling == 1 {
            Log.warning("alarm: the \(sensor.chip.info.part) cannot be read at a multiple of \(hz(sensor.rateMilliHz)) Hz, so a slammed door can read as the kiosk being shoved and sound it (docs/detection.md): set rate_hz to 25 or to 50 or more")
        }
    }

    /// What the run has done, read from its parts.
    func report(_ s: Service) -> RunReport {
        var r = RunReport(chip: s.engine.supervisor)
        r.samples = s.engine.samples
        r.events = s.router.count
        r.wakeups = counters.wakeups
        r.overflows = s.engine.overflows
        r.skipped = s.engine.skipped
        r.transactions = hw.transactions
        r.streamMicros = s.engine.streamMicros
        r.motionEnded = clock.motionEnded
        r.interrupts = s.pin == nil ? nil : s.engine.interrupts
        r.alarm = s.alarm?.state
        r.lastTrigger = s.alarm?.lastTrigger
        r.triggeredAtWall = s.alarm?.triggeredAt
        r.tamperRepeats = s.alarm?.tamperRepeats ?? 0
        return r
    }
}
