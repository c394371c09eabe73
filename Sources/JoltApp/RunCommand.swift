#if canImport(Glibc)
import Glibc
#endif
import JoltBuildInfo
import JoltCore
import JoltDrivers
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
    var savedAtStart: Result<SavedAlarm?, AlarmStore.LoadError>?
    /// The tamper reference while armed or sounding: kept across reloads and restarts.
    var tamperReference: Vec3?
    /// When the alarm entered its state, wall clock µs.
    var alarmSinceWall = WallClock.nowMicros()
    var alarmStarted = false
    /// Tampers seen while the alarm was already sounding, since it last triggered.
    var tamperRepeats = 0
    var keySwitchLast: Bool?
    /// Stream time of the next sample, µs: the clock commands are applied on.
    var streamNow: Int64 = 0

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
    /// Sees each event as it is emitted, with the run clock's time (a soak checks them this way).
    var observer: ((EventRecord, Int64) -> Void)?
    /// Called at each wake-up with the run clock's time.
    var onWake: ((Int64) -> Void)?
    /// Sees every sample with what it raised and the detectors' state (a live view).
    var onSample: ((Sample, Events, LiveLevels) -> Void)?
    /// Set (by a hook) to end the run at the next wake-up.
    var stopRequested = false
    /// The chip's health: retries, faults, re-probes. Kept across reloads.
    var supervisor = ChipSupervisor(periodMicros: 10_000, now: 0)

    /// `outputs`, when given, replace the board's (tests observe simulated lines this way).
    init(board: BoardProfile, options: Options, out: TextOutput, outputs: [String: OutputLine] = [:]) throws(JoltError) {
        self.outputs = outputs
        var b = board
        if options.forever { b.sim.loop = true }
        self.board = b
        self.options = options
        self.out = out
        hw = try Hardware.open(b, trace: options.trace, source: options.source)
        if options.fast && hw.sim == nil {
            throw JoltError(.usage, "--fast runs simulated time; \(board.file) is real hardware on \(board.bus)")
        }
        clock = RunClock(virtual: options.fast, sim: hw.sim?.clock)
        if let a = b.alarm {
            alarm = Alarm(settings: a.settings)
            if let dir = AlarmStore.directory(option: options.stateDirectory, board: b) {
                let s = AlarmStore(directory: dir)
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
        signal(SIGPIPE, SIG_IGN)
        try lockBus()
        defer { shutdown() }
        var delay = ClockDelay(clock: clock, interrupt: signals?.fd)
        let sensor = hw.sensor
        do {
            try sensor.start(delay: &delay)
        } catch {
            throw chipError(error, sensor, bus: hw.busName)
        }
        supervisor = ChipSupervisor(limits: options.supervision, periodMicros: sensor.periodMicros, now: clock.now)
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
            b.start(board: board, sensor: "\(sensor.identity) on \(hw.busName)", alarm: alarm)
            bridge = b
        }
        let fifo = sensor.usesFIFO ? "FIFO drained every \(min(Int64(board.fifoPollMillis) * 1000, sensor.maxPollMicros) / 1000) ms" : "read every sample"
        Log.info("jolt \(BuildInfo.description): \(sensor.identity) at 0x\(hex(sensor.address)) on \(hw.busName): \(hz(sensor.rateMilliHz)) Hz, ±\(sensor.rangeMilliG / 1000) g\(sensor.hasGyro ? ", ±\(board.gyroRangeDps) °/s" : ""), \(fifo)\(clock.virtual ? ", simulated time" : "")\(control.map { ", control socket \($0.path)" } ?? "")")
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
        }
        stats.wallMicros = Sys.monotonicMicros() - wallStart
        Log.info(summary)
    }

    /// One Jolt per bus: an exclusive lock on the bus's device node.
    func lockBus() throws(JoltError) {
        guard hw.sim == nil else { return }
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
        for (name, spec) in board.outputs where outputs[name] == nil {
            outputs[name] = hw.sim != nil ? SimOutput(name: name, spec: spec) : try ChardevOutput(name: name, spec: spec)
        }
        for (name, spec) in board.inputs {
            inputs[name] = hw.sim != nil ? SimInput(name: name, spec: spec) : try ChardevInput(name: name, spec: spec)
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
        control?.close()
        control = nil
        if let l = busLock { Sys.close(l) }
        busLock = nil
    }

    /// Every event goes through here: counted, then to its actions on the action thread.
    func emit(_ r: EventRecord) {
        stats.events += 1
        if let c = control, c.streaming { c.stream("e \(r.bindingName) \(r.human)") }
        observer?(r, clock.now)
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

    struct Loop: DetectorConsumer {
        let run: RunCommand
        let settings: DetectionSettings
        /// Without a FIFO, a longer pause between reads than this is a break in the data.
        static let stallMicros: Int64 = 250_000

        func consume<D: SampleDetector>(_ d: inout D) throws(JoltError) -> Outcome {
            let r = run
            let sensor = r.hw.sensor
            let period = sensor.periodMicros
            let interval = sensor.usesFIFO ? min(Int64(r.board.fifoPollMillis) * 1000, sensor.maxPollMicros) : period
            let origin = r.hw.sim?.origin ?? 0
            var frames: [ChipSample] = []
            frames.reserveCapacity(128)
            var records: [EventRecord] = []
            var index = (r.streamNow - origin) / period
            // When data last came (the time the newest frame stands for).
            var lastPoll = r.clock.now
            var nextPoll = lastPoll + interval
            // The tamper detector of fresh detectors needs a sample before it can take the
            // armed orientation.
            r.startAlarm(&d)
            // Fresh detectors (at start, after a reload) take the tamper reference the alarm kept.
            var rearmTamper = r.alarm.map { $0.state == .armed || $0.state == .triggered } ?? false
            while true {
                // Wait for the next poll, a signal, or a control request.
                var fds = [pollfd(fd: r.signals!.fd, events: Int16(POLLIN), revents: 0)]
                for f in r.control?.pollFDs ?? [] { fds.append(pollfd(fd: f, events: Int16(POLLIN), revents: 0)) }
                if let b = r.bridge { fds.append(pollfd(fd: b.commandFD, events: Int16(POLLIN), revents: 0)) }
                if r.clock.virtual {
                    r.clock.advance(to: nextPoll)
                    _ = try? Sys.poll(&fds, timeoutMicros: 0)
                } else {
                    var now = r.clock.now
                    while now < nextPoll {
                        _ = try? Sys.poll(&fds, timeoutMicros: nextPoll - now)
                        if fds.contains(where: { $0.revents != 0 }) { break }
                        now = r.clock.now
                    }
                }
                if fds[0].revents != 0 {
                    var stop = false, reload = false
                    while let sig = r.signals!.next() {
                        if sig == SIGINT || sig == SIGTERM { stop = true }
                        if sig == SIGHUP { reload = true }
                    }
                    if stop {
                        Log.info("stopping on a signal")
                        return .done
                    }
                    if reload {
                        r.streamNow = origin + index * period
                        return .reload
                    }
                }
                let now = r.clock.now
                r.control?.service(now: now) { line in r.control(line, detectors: &d) }
                r.mqttCommands(detectors: &d)
                r.notifier.watchdog(now: Sys.monotonicMicros())
                r.readKeySwitch(&d)
                if now < nextPoll { continue }   // woken early by a control request
                r.stats.wakeups += 1
                r.onWake?(now)
                if r.stopRequested { return .done }
                if let end = r.hw.sim?.bus.stallEnd(at: now) {
                    nextPoll = end   // a simulated host stall: no polling until it ends
                    continue
                }
                if r.supervisor.phase != .running {
                    if let sim = r.hw.sim, sim.exhausted { return .done }
                    if let limit = r.options.limitMicros, index * period + (now - lastPoll) >= limit { return .done }
                }
                // Faulted: re-probe when due, and otherwise wait for that.
                if r.supervisor.phase == .faulted {
                    if r.supervisor.attemptDue(now: now) {
                        var delay = ClockDelay(clock: r.clock, interrupt: r.signals?.fd)
                        let ok = (try? sensor.start(delay: &delay)) != nil
                        r.supervisor.attempted(ok: ok, now: r.clock.now)
                    }
                    nextPoll = r.supervisor.phase == .faulted ? r.supervisor.nextAttemptAt : r.clock.now + interval
                    continue
                }
                frames.removeAll(keepingCapacity: true)
                var status = PollStatus.ok
                var verdict: ChipSupervisor.Verdict
                do {
                    status = try sensor.poll(into: &frames)
                    // A chip that is not measuring (asleep after a reset) reads exact zeros on
                    // every axis; a measuring one never does (noise). Those are not data.
                    frames.removeAll { $0 == ChipSample(ax: 0, ay: 0, az: 0) }
                    verdict = r.supervisor.polled(frames[...], overflowed: status == .overflow, now: now)
                } catch {
                    let transient: Bool
                    if case .bus(let e, _) = error { transient = e.kind.isTransient } else { transient = false }
                    verdict = r.supervisor.pollFailed(transient: transient, reason: chipError(error, sensor, bus: r.hw.busName).message, now: now)
                }
                switch verdict {
                case .retry(let at):
                    nextPoll = at
                    continue
                case .fault(let reason):
                    r.emit(EventRecord(t: origin + index * period, kind: .fault, detail: reason))
                    Log.warning("fault: \(reason); re-probing, at most every \(r.supervisor.limits.maxBackoffMicros / 1_000_000) s, until the chip answers")
                    r.notifier.send("STATUS=fault: \(reason)")
                    nextPoll = r.supervisor.nextAttemptAt
                    continue
                case .wait:
                    nextPoll = r.supervisor.phase == .faulted ? r.supervisor.nextAttemptAt : now + interval
                    continue
                case .recovered, .ok:
                    break
                }
                // Samples were lost: skip the time they covered. A few samples missed between
                // reads (no FIFO, a retried poll) are bridged; a real break (an overflow, a stall,
                // a fault) restarts the detectors rather than join old and new data.
                let missed = (now - lastPoll) / period - Int64(frames.count)
                let stalled = !sensor.usesFIFO && verdict == .ok && !frames.isEmpty && missed * period >= Self.stallMicros
                if status == .overflow || stalled || verdict == .recovered {
                    let lost = max(missed, 1)
                    let gapStart = origin + index * period
                    index += lost
                    // The tamper detector keeps its armed reference through the reset: a kiosk
                    // moved while its sensor was out is still a moved kiosk.
                    d.reset()
                    let what: String
                    if verdict == .recovered {
                        what = "\(sensor.identity) at 0x\(hex(sensor.address)) answering again after \(r.supervisor.attempts) re-probe\(r.supervisor.attempts == 1 ? "" : "s")"
                    } else {
                        let cause = status == .overflow
                            ? "FIFO overflow: about \(lost) samples lost; the FIFO was reset"
                            : "no reading for \(EventRecord.seconds(lost * period)) s: the host did not poll in time (overloaded or suspended?)"
                        r.stats.overflows += status == .overflow ? 1 : 0
                        r.emit(EventRecord(t: gapStart, kind: .fault, detail: cause))
                        Log.warning(cause)
                        what = status == .overflow ? "FIFO running again" : "reading again"
                    }
                    r.emit(EventRecord(t: origin + index * period, kind: .recovered, detail: what, gapMicros: lost * period))
                    Log.info("recovered: \(what); \(EventRecord.seconds(lost * period)) s of data missing")
                    r.notifier.send("STATUS=watching \(sensor.identity) on \(r.hw.busName)")
                } else if !sensor.usesFIFO && !frames.isEmpty && missed > 0 {
                    index += missed
                    r.stats.skipped += Int(missed)
                }
                if !frames.isEmpty { lastPoll = now }
                for f in frames {
                    let raw = Sample(t: origin + index * period, accel: Vec3(f.ax, f.ay, f.az), gyro: Vec3(f.gx, f.gy, f.gz))
                    let s = r.board.mount.apply(raw)
                    index += 1
                    r.stats.samples += 1
                    let e = d.update(s)
                    if let view = r.onSample {
                        view(s, e, LiveLevels(gravity: d.gravity, shakeProgress: d.shakeProgress, faceDown: d.isFaceDown))
                    }
                    if let c = r.control, c.streaming {
                        c.stream(LiveLevels(gravity: d.gravity, shakeProgress: d.shakeProgress, faceDown: d.isFaceDown).streamLine(s))
                    }
                    if rearmTamper {
                        if let ref = r.tamperReference { d.armTamper(reference: ref) } else { d.armTamper() }
                        r.tamperReference = d.tamperReference
                        rearmTamper = false
                    }
                    // One tamper per triggering: while the alarm sounds, further tampers are
                    // counted (jolt status shows them), not printed or published again.
                    var shown = e
                    if e.contains(.tamper), r.alarm?.state == .triggered {
                        shown.remove(.tamper)
                        r.tamperRepeats += 1
                    }
                    if !shown.isEmpty {
                        records.removeAll(keepingCapacity: true)
                        EventBuilder.records(shown, at: s.t, detectors: d, settings: settings, into: &records)
                        for rec in records { r.emit(rec) }
                    }
                    if r.alarm != nil, let tr = r.alarm!.step(e, at: s.t, detectors: &d) {
                        r.alarmChanged(tr, at: s.t, reference: d.tamperReference)
                    }
                }
                r.control?.flushStream()
                r.streamNow = origin + index * period
                r.stats.streamMicros = index * period
                if let limit = r.options.limitMicros, index * period >= limit { return .done }
                if let sim = r.hw.sim, sim.exhausted, frames.isEmpty || !sensor.usesFIFO { return .done }
                nextPoll += interval
                if nextPoll <= r.clock.now - interval { nextPoll = r.clock.now + interval }
            }
        }
    }}
