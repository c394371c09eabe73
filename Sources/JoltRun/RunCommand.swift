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
/// It puts the run together and takes it apart; the parts do the work and do not call back into
/// it: `SamplingEngine` (the chip to samples, the only owner of the detectors), `RunLoop` (the
/// wait over the wake-ups and the chip's polls), `RunSink` (samples to events and the alarm),
/// `AlarmController` (the alarm, its state on disk), `EventRouter` (every event to where it
/// goes), `RunRequests` (the control socket, MQTT, the key switch), `ActionWorker` (the outputs).
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
    /// The parts, once running.
    package var busLock: BusLock?
    package var engine: SamplingEngine?
    /// The readings around each trigger, kept in the state directory.
    package var evidence: EvidenceRecorder?
    package var worker: ActionWorker?
    package var outputs: [String: OutputLine] = [:]
    package var inputs: [String: InputLine] = [:]
    /// The chip's INT pin, when the board wires it.
    package var pin: InterruptPin?
    package var control: ControlServer?
    package var bridge: MQTTBridge?
    package let notifier = Notifier()
    /// The alarm's state on disk (`--state-dir`, the profile, the service's StateDirectory).
    package let store: AlarmStore?
    package var alarm: AlarmController?
    package var router: EventRouter?
    package var requests: RunRequests?
    package let counters = RunCounters()
    /// Stream time of the next sample, µs: the clock commands are applied on.
    package var streamNow: Int64 { engine?.streamNow ?? clock.origin }

    /// A run of `board` on `hardware`, opened from it. `outputs`, when given, replace the board's
    /// (tests observe simulated lines this way), and `store` the board's state folder (a test
    /// gives a slow disk); `watcher` sees its samples and events.
    package init(board b: BoardProfile, hardware: Board, options: Options, out: TextOutput, outputs: [String: OutputLine] = [:], store given: AlarmStore? = nil,
                 watcher: RunWatcher? = nil) throws(JoltError) {
        self.outputs = outputs
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
        busLock = try BusLock.take(hw.exclusiveNode)
        defer { shutdown() }
        clock.interrupt = signals.fd
        let sensor = try startChip()
        let engine = SamplingEngine(sensor: sensor, clock: clock, mount: board.mount, limits: options.supervision, drainMillis: board.fifoPollMillis, origin: clock.origin)
        self.engine = engine
        // The socket before the lines: a run refused for want of one has opened nothing.
        try openControl()
        try openLines(engine)
        if let m = board.mqtt {
            let b = try MQTTBridge(config: m, board: board, stateDirectory: store?.directory)
            b.start(board: board, sensor: sensor.identity)
            bridge = b
        }
        let (router, requests) = assemble(sensor: sensor, engine: engine)
        logStart(sensor, engine)
        let notifier = self.notifier, ready = "READY=1\nSTATUS=watching \(sensor.identity) on \(hw.busName)"
        var first = true
        let wallStart = Sys.monotonicMicros()
        while true {
            let settings = detectionSettings(sensor)
            var sink = RunSink(router: router, alarm: alarm, notifier: notifier, settings: settings, sensor: sensor, maxBackoffMicros: options.supervision.maxBackoffMicros)
            sink.evidence = evidence
            let loop = RunLoop(engine: engine, clock: clock, wakeups: wakeups(signals, onTerminal: onTerminal, requests), alarm: alarm, watcher: watcher, control: control,
                               limitMicros: options.limitMicros, counters: counters, sink: sink,
                               started: first ? { notifier.send(ready) } : nil, pin: pin)
            first = false
            var detectors = DefaultDetectors(settings)
            if try loop.run(&detectors) == .done { break }
            switch reload() {
            case .success(let done): control?.answerReload(JSON.members([("ok", true), ("reloaded", .string(done))]).text)
            case .failure(let refused): control?.answerReload(ControlReply.refusal(refused.message))
            }
            engine.mount = board.mount
        }
        var r = report
        r.wallMicros = Sys.monotonicMicros() - wallStart
        Log.info(r.summary)
        return r
    }

    /// Identifies, resets and configures the chip; says so when it is a compatible part.
    package func startChip() throws(JoltError) -> ChipSensor {
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
        return sensor
    }

    /// The detection settings of the board, for the stream the chip really makes.
    package func detectionSettings(_ sensor: ChipSensor) -> DetectionSettings {
        var settings = board.detection
        settings.rateMilliHz = sensor.rateMilliHz
        settings.gyro = sensor.hasGyro
        settings.rangeMilliG = sensor.rangeMilliG
        return settings
    }

    /// The router, the alarm and the requests, wired to the outputs, the socket and MQTT.
    package func assemble(sensor: ChipSensor, engine: SamplingEngine) -> (EventRouter, RunRequests) {
        let clock = self.clock
        let router = EventRouter(bindings: board.actions, worker: worker, control: control, bridge: bridge, watcher: watcher, now: { clock.now })
        self.router = router
        if let a = board.alarm {
            let worker = self.worker, notifier = self.notifier, bridge = self.bridge
            let effects = AlarmEffects(
                sound: { worker?.submit(.alarm(sounding: $0)) },
                announce: { router.emit($0) },
                publish: { r in
                    let last = r.state == .triggered ? (r.lastTrigger.map { ": " + $0.text } ?? "") : ""
                    notifier.send("STATUS=alarm \(EventRecord.alarmName(r.state))" + (r.walkTest ? " (walk test)" : "") + last)
                    bridge?.alarm(r.state, since: r.since, sinceWall: r.sinceWall, lastTrigger: r.lastTrigger, walkTest: r.walkTest,
                                  sensorCheck: r.sensorCheck?.jsonValue, mode: r.mode)
                },
                chirp: { pattern in if let output = a.output { worker?.submit(.manual(output: output, pattern)) } })
            var withEvidence = effects
            if let dir = store?.directory {
                let e = EvidenceRecorder(directory: dir + "/evidence", rateMilliHz: sensor.rateMilliHz, gyro: sensor.hasGyro)
                evidence = e
                if let b = bridge, b.config.evidenceMaxKiB > 0 { e.send = (b.config.evidenceMaxKiB * 1024, { [b] in b.evidence($0) }) }
                withEvidence.evidence = { t, why in e.triggered(at: t, wallMicros: WallClock.nowMicros(), why: why) }
            }
            alarm = AlarmController(config: a, detection: detectionSettings(sensor), store: store, effects: withEvidence)
            // The chip's check at arming runs on the loop's thread, between polls: the engine's.
            alarm?.sensorCheck = { engine.selfTest() }
        }
        // What status and stream report: read from the parts, never from here (a board without a
        // file, the only one whose name a reload could not change, has no reload).
        let bus = hw.busName, boardName = board.file.isEmpty ? board.name : board.file, gyroRange = board.gyroRangeDps
        let r = RunRequests(
            alarm: alarm, worker: worker, outputs: Array(outputs.keys), alarmOutput: board.alarm?.output, bridge: bridge, control: control,
            streamNow: { engine.streamNow },
            status: {
                [("version", .string(BuildInfo.description)), ("t", .decimal(EventRecord.seconds(engine.streamNow))), ("samples", .int(engine.samples)),
                 ("events", .int(router.count)), ("sensor", engine.supervisor.phase == .running ? "ok" : "fault"), ("faults", .int(engine.supervisor.faults))]
            },
            streamHeader: {
                ["ok": true, "stream": 1, "identity": .string(sensor.identity), "address": .int(sensor.address), "bus": .string(bus),
                 "board": .string(boardName), "rate_mhz": .int(sensor.rateMilliHz), "range_mg": .int(sensor.rangeMilliG),
                 "gyro_range_dps": .int(gyroRange), "has_gyro": .bool(sensor.hasGyro), "version": .string(BuildInfo.description)]
            })
        if let name = board.alarm?.keySwitch, let line = inputs[name] { r.keySwitch = (name, line) }
        r.sensorFault = { engine.supervisor.phase != .running }
        requests = r
        return (router, r)
    }

    /// What wakes the loop besides the chip, each with its handler: signals (`onTerminal`: the run
    /// was started from a terminal, and a SIGHUP after it hung up stops it), the control socket,
    /// MQTT commands, the store's saves; and what is done at every turn (the systemd watchdog,
    /// the key switch).
    package func wakeups(_ signals: SignalChannel, onTerminal: Bool, _ requests: RunRequests) -> [Wakeup] {
        let control = self.control, bridge = self.bridge, store = self.store, notifier = self.notifier
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
        if let control {
            w.append(Wakeup(fds: { control.pollFDs }, handle: { _, turn in control.service { line in requests.control(line, &turn) } }))
        }
        if let bridge { w.append(Wakeup(fds: { [bridge.commandFD] }, handle: { _, turn in requests.mqttCommands(&turn) })) }
        w.append(Wakeup(fds: { store.map { [$0.written.fd] } ?? [] }, handle: { ready, turn in
            if ready { store?.written.drain() }
            requests.keepWord(&turn)
            notifier.watchdog(now: Sys.monotonicMicros())
            requests.readKeySwitch(&turn)
        }))
        return w
    }

    /// The start-up line, and the warning of a slow rate the chip cannot be read fast for.
    package func logStart(_ sensor: ChipSensor, _ engine: SamplingEngine) {
        let fifo = engine.readingPlan(pin: pin?.label)
        let over = sensor.oversampling > 1 ? " (read at \(hz(sensor.chipRateMilliHz)) Hz, \(sensor.oversampling) readings a sample)" : ""
        Log.info("jolt \(BuildInfo.description): \(sensor.identity) at 0x\(hex(sensor.address)) on \(hw.busName): \(hz(sensor.rateMilliHz)) Hz\(over), ±\(sensor.rangeMilliG / 1000) g\(sensor.hasGyro ? ", ±\(board.gyroRangeDps) °/s" : ""), \(fifo)\(clock.virtual ? ", simulated time" : "")\(control.map { ", control socket \($0.path)" } ?? "")")
        if board.oversampled && sensor.oversampling == 1 {
            Log.warning("alarm: the \(sensor.chip.info.part) cannot be read at a multiple of \(hz(sensor.rateMilliHz)) Hz, so a slammed door can read as the kiosk being shoved and sound it (docs/detection.md): set rate_hz to 25 or to 50 or more")
        }
    }

    /// Requests the board's outputs and inputs (and the chip's INT pin, which `engine` then
    /// listens to) and starts the action thread.
    package func openLines(_ engine: SamplingEngine) throws(JoltError) {
        for o in board.outputs where outputs[o.name] == nil {
            outputs[o.name] = try hw.output(o)
        }
        for i in board.inputs {
            inputs[i.name] = try hw.input(i)
        }
        if let i = board.interrupt {
            pin = try hw.interrupt(i)
            engine.useInterrupt()
        }
        let printer = EventPrinter(out: out, json: options.json, flushEach: true)
        let actions = ActionEngine(outputs: outputs, alarmOutput: board.alarm?.output, alarmPattern: board.alarm?.cadence ?? .cadence(on: 500, off: 500), printer: printer, boardName: board.name, boardFile: board.file.isEmpty ? "" : (Files.realPath(board.file) ?? board.file))
        let w = try ActionWorker(engine: actions)
        w.start()
        worker = w
    }

    /// The control socket: always on a board whose bus this run holds (a real one), so that jolt
    /// output, watch and record can reach the process that holds the bus and the lines (where it
    /// cannot, the run goes on without); on any other when the board has an alarm or names a
    /// socket.
    package func openControl() throws(JoltError) {
        guard options.control else { return }
        if board.alarm != nil || board.control.socket != nil {
            control = try ControlServer(config: board.control)
        } else if hw.exclusiveNode != nil {
            do { control = try ControlServer(config: board.control) } catch {
                Log.warning("no control socket (jolt output, watch and record cannot attach): \(error.message)")
            }
        }
    }

    /// The fail-safe, on every way out: outputs inactive, lines released, the alarm's last state
    /// on disk and what waited for it answered, the socket removed.
    package func shutdown() {
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
        pin?.release()
        evidence?.close()
        store?.stop()
        requests?.releaseSaved()
        control?.close()
        control = nil
        busLock?.release()
        busLock = nil
        // The run's signal descriptor closes with the run: its clock no longer waits on it.
        clock.interrupt = nil
    }

    /// What the run has done so far, read from its parts.
    var report: RunReport {
        var r = RunReport(chip: engine?.supervisor ?? ChipSupervisor(periodMicros: hw.sensor.periodMicros, now: 0))
        r.samples = engine?.samples ?? 0
        r.events = router?.count ?? 0
        r.wakeups = counters.wakeups
        r.overflows = engine?.overflows ?? 0
        r.skipped = engine?.skipped ?? 0
        r.transactions = hw.transactions
        r.streamMicros = engine?.streamMicros ?? 0
        r.motionEnded = clock.motionEnded
        r.interrupts = pin == nil ? nil : engine?.interrupts
        r.alarm = alarm?.state
        r.lastTrigger = alarm?.lastTrigger
        r.triggeredAtWall = alarm?.triggeredAt
        r.tamperRepeats = alarm?.tamperRepeats ?? 0
        return r
    }
}
