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

/// A run's parts, opened together by `RunCommand.open()` and closed together by `close()`.
/// What every run has is non-optional here. What is optional the board or the run's options
/// leave out (an alarm and its evidence, the chip's INT pin, a control socket, MQTT, a state
/// folder), never how far opening got. The parts reach each other through what they were
/// handed when opened: none holds the command that opened them.
package struct Service {
    package let sensor: ChipSensor
    package let engine: SamplingEngine
    /// The bus's lock, on a board whose bus this run holds.
    let busLock: BusLock?
    package let control: ControlServer?
    package let outputs: [String: OutputLine]
    package let inputs: [String: InputLine]
    /// The chip's INT pin, when the board wires it; the engine listens to it.
    package let pin: InterruptPin?
    package let worker: ActionWorker
    package let bridge: MQTTBridge?
    package let router: EventRouter
    package let alarm: AlarmController?
    /// The readings around each trigger, kept in the state folder.
    package let evidence: EvidenceRecorder?
    package let requests: RunRequests
    let store: AlarmStore?
    let notifier: Notifier

    /// The fail-safe, on every way out: outputs inactive, lines released, the alarm's last state
    /// on disk and what waited for it answered, the socket removed; then MQTT says offline,
    /// keeping what is unsent in its outbox.
    package func close() {
        notifier.send("STOPPING=1")
        worker.stop()
        if !outputs.isEmpty { Log.info("outputs inactive, lines released: \(outputs.keys.sorted().joined(separator: ", "))") }
        for (_, i) in inputs { i.release() }
        pin?.release()
        evidence?.close()
        store?.stop()
        requests.releaseSaved()
        control?.close()
        busLock?.release()
        bridge?.stop()
    }
}

/// What opening has opened so far: undone, last first, when a later part cannot be opened.
struct Undo {
    private var steps: [() -> Void] = []

    mutating func add(_ step: @escaping () -> Void) { steps.append(step) }

    func run() { for step in steps.reversed() { step() } }
}

extension RunCommand {
    /// Opens the run's parts, in the order a refusal should find them: the bus's lock, the chip,
    /// the control socket (a run refused for want of one has opened no line), the lines and the
    /// action thread, MQTT; then wires the router, the alarm and the requests between them. A
    /// part that cannot be opened closes what was, and the run is refused with its error.
    package func open() throws(JoltError) -> Service {
        var undo = Undo()
        let store = self.store, notifier = self.notifier
        undo.add {
            notifier.send("STOPPING=1")
            store?.stop()
        }
        do {
            let busLock = try BusLock.take(hw.exclusiveNode)
            undo.add { busLock?.release() }
            let sensor = try startChip()
            let engine = SamplingEngine(sensor: sensor, clock: clock, mount: board.mount, detection: detectionSettings(sensor),
                                        limits: options.supervision, drainMillis: board.fifoPollMillis, origin: clock.origin)
            let control = try openControl()
            undo.add { control?.close() }
            let lines = try openLines(engine, &undo)
            let worker = try startActions(lines.outputs)
            undo.add { worker.stop() }
            var bridge: MQTTBridge?
            if let m = board.mqtt {
                let b = try MQTTBridge(config: m, board: board, stateDirectory: store?.directory)
                b.start(board: board, sensor: sensor.identity)
                undo.add { b.stop() }
                bridge = b
            }
            let clock = self.clock
            let router = EventRouter(bindings: board.actions, worker: worker, control: control, bridge: bridge, watcher: watcher, now: { clock.now })
            let (alarm, evidence) = openAlarm(sensor: sensor, engine: engine, worker: worker, router: router, bridge: bridge)
            let requests = requests(sensor: sensor, engine: engine, worker: worker, outputs: Array(lines.outputs.keys), router: router,
                                    alarm: alarm, control: control, bridge: bridge)
            if let name = board.alarm?.keySwitch, let line = lines.inputs[name] { requests.keySwitch = (name, line) }
            return Service(sensor: sensor, engine: engine, busLock: busLock, control: control, outputs: lines.outputs, inputs: lines.inputs,
                           pin: lines.pin, worker: worker, bridge: bridge, router: router, alarm: alarm, evidence: evidence,
                           requests: requests, store: store, notifier: notifier)
        } catch {
            undo.run()
            throw error
        }
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

    /// The control socket: always on a board whose bus this run holds (a real one), so that jolt
    /// output, watch and record can reach the process that holds the bus and the lines (where it
    /// cannot, the run goes on without); on any other when the board has an alarm or names a
    /// socket.
    func openControl() throws(JoltError) -> ControlServer? {
        guard options.control else { return nil }
        if board.alarm != nil || board.control.socket != nil {
            return try ControlServer(config: board.control)
        }
        guard hw.exclusiveNode != nil else { return nil }
        do { return try ControlServer(config: board.control) } catch {
            Log.warning("no control socket (jolt output, watch and record cannot attach): \(error.message)")
            return nil
        }
    }

    /// Requests the board's outputs (those not given) and inputs, and the chip's INT pin, which
    /// `engine` then listens to; each released by `undo` should a later part fail.
    func openLines(_ engine: SamplingEngine, _ undo: inout Undo) throws(JoltError)
        -> (outputs: [String: OutputLine], inputs: [String: InputLine], pin: InterruptPin?) {
        var outputs = givenOutputs, inputs: [String: InputLine] = [:]
        for o in board.outputs where outputs[o.name] == nil {
            let line = try hw.output(o)
            outputs[o.name] = line
            undo.add { line.release() }
        }
        for i in board.inputs {
            let line = try hw.input(i)
            inputs[i.name] = line
            undo.add { line.release() }
        }
        var pin: InterruptPin?
        if let i = board.interrupt {
            let p = try hw.interrupt(i)
            undo.add { p.release() }
            engine.useInterrupt()
            pin = p
        }
        return (outputs, inputs, pin)
    }

    /// The action thread, which owns the outputs from here on.
    func startActions(_ outputs: [String: OutputLine]) throws(JoltError) -> ActionWorker {
        let printer = EventPrinter(out: out, json: options.json, flushEach: true)
        let boardFile = board.file.isEmpty ? "" : (Files.realPath(board.file) ?? board.file)
        let actions = ActionEngine(outputs: outputs, alarmOutput: board.alarm?.output, alarmPattern: board.alarm?.cadence ?? .cadence(on: 500, off: 500),
                                   printer: printer, boardName: board.name, boardFile: boardFile)
        let w = try ActionWorker(engine: actions)
        w.start()
        return w
    }
}

extension RunCommand {
    /// The alarm, when the board has one, its effects wired to the action thread, the router,
    /// systemd and MQTT; with a state folder, the evidence kept at each trigger.
    func openAlarm(sensor: ChipSensor, engine: SamplingEngine, worker: ActionWorker, router: EventRouter,
                   bridge: MQTTBridge?) -> (AlarmController?, EvidenceRecorder?) {
        guard let a = board.alarm else { return (nil, nil) }
        let notifier = self.notifier
        var effects = AlarmEffects(
            sound: { worker.submit(.alarm(sounding: $0)) },
            announce: { router.emit($0) },
            publish: { r in
                let last = r.state == .triggered ? (r.lastTrigger.map { ": " + $0.text } ?? "") : ""
                notifier.send("STATUS=alarm \(EventRecord.alarmName(r.state))" + (r.walkTest ? " (walk test)" : "") + last)
                bridge?.alarm(r.state, since: r.since, sinceWall: r.sinceWall, lastTrigger: r.lastTrigger, walkTest: r.walkTest,
                              sensorCheck: r.sensorCheck?.jsonValue, mode: r.mode)
            },
            chirp: { pattern in if let output = a.output { worker.submit(.manual(output: output, pattern)) } })
        var evidence: EvidenceRecorder?
        if let dir = store?.directory {
            let e = EvidenceRecorder(directory: dir + "/evidence", rateMilliHz: sensor.rateMilliHz, gyro: sensor.hasGyro)
            if let b = bridge, b.config.evidenceMaxKiB > 0 { e.send = (b.config.evidenceMaxKiB * 1024, { [b] in b.evidence($0) }) }
            effects.evidence = { t, why in e.triggered(at: t, wallMicros: WallClock.nowMicros(), why: why) }
            evidence = e
        }
        let alarm = AlarmController(config: a, detection: detectionSettings(sensor), store: store, effects: effects)
        // The chip's check at arming runs on the loop's thread, between polls: the engine's.
        alarm.sensorCheck = { engine.selfTest() }
        return (alarm, evidence)
    }

    /// The requests from the control socket, MQTT and the key switch. What status and stream
    /// report is read from the parts, never from here (a board without a file, the only one whose
    /// name a reload could not change, has no reload).
    func requests(sensor: ChipSensor, engine: SamplingEngine, worker: ActionWorker, outputs: [String], router: EventRouter, alarm: AlarmController?,
                  control: ControlServer?, bridge: MQTTBridge?) -> RunRequests {
        let bus = hw.busName, boardName = board.file.isEmpty ? board.name : board.file, gyroRange = board.gyroRangeDps
        let r = RunRequests(
            alarm: alarm, worker: worker, outputs: outputs, alarmOutput: board.alarm?.output, bridge: bridge, control: control,
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
        r.sensorFault = { engine.supervisor.phase != .running }
        return r
    }
}
