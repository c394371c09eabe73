#if canImport(Glibc)
import Glibc
#endif
import JoltChips
import JoltCore
import JoltEngine
import JoltLinux
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltConfig
import JoltControl
import JoltDrivers
import JoltJSON
import JoltSupport

/// Watches a run from inside: the one interface through which `watch`, `record` (both through
/// `LiveFeed`), `soak` and the tests see what `jolt run` does.
package protocol RunWatcher: AnyObject {
    /// At each wake-up, with the run clock's time; true ends the run.
    func woke(now: Int64) -> Bool
    /// Whether a run without an alarm arms its tamper detector a second after its first sample,
    /// against the orientation then, so that the watcher sees lifts and slides judged as an
    /// armed alarm would judge them (`jolt watch` on an alarm's board: a walk test without the
    /// service). Nothing sounds: such a run has no alarm and no outputs.
    var watchesTamper: Bool { get }
    /// Each sample (board axes) with the detectors' state after it.
    func sample(_ s: Sample, _ levels: LiveLevels)
    /// Each event as it is emitted, with the run clock's time.
    func event(_ r: EventRecord, now: Int64)
}

extension RunWatcher {
    package func woke(now: Int64) -> Bool { false }
    package var watchesTamper: Bool { false }
    package func sample(_ s: Sample, _ levels: LiveLevels) {}
    package func event(_ r: EventRecord, now: Int64) {}
}

/// One source of wake-ups besides the chip: the descriptors the loop polls for it, and what it
/// does at each turn of the loop (`ready`: one of its descriptors woke the loop). A request may
/// ask the detectors to change; a signal ends the run or reloads its profile.
package struct Wakeup {
    package let fds: () -> [Int32]
    package let handle: (_ ready: Bool, _ turn: inout Turn) -> Void
}

/// What one turn of the loop gathers from its wake-ups.
package struct Turn {
    /// The detectors' orientation of the moment: what an arm command arms against.
    package let gravity: Vec3
    /// What the detectors must do, in the order asked; the engine applies it.
    package var changes: [DetectorChange] = []
    /// The run ends here, or reloads its profile.
    package var outcome: RunCommand.Outcome?
}

/// `jolt run`'s loop: wait for the chip's next poll or a wake-up, handle the wake-ups (each a
/// descriptor and a handler), have the engine apply what they asked of its detectors, then let
/// the engine poll the chip and take each reading through them, the samples and events going
/// to `RunSink` and the alarm's answers back to the engine.
package struct RunLoop {
    package let engine: SamplingEngine
    package let clock: RunClock
    package let wakeups: [Wakeup]
    package let alarm: AlarmController?
    package let watcher: RunWatcher?
    package let control: ControlServer?
    package let limitMicros: Int64?
    package let counters: RunCounters
    package var sink: RunSink
    /// Once the alarm is as it starts (armed at start: its chip checked), before the first poll:
    /// systemd's READY=1 goes here, so that a started service has a chip set up to measure.
    package var started: (() -> Void)? = nil
    /// The chip's INT pin (`int`): the loop sleeps until it rises, the engine's timer the safety
    /// net; nil: the chip is polled on the timer alone.
    package var pin: InterruptPin? = nil

    package func run() throws(JoltError) -> RunCommand.Outcome {
        // The alarm at start (once): it may arm; fresh detectors (at start, after a reload) take
        // the armed reference at their first sample.
        if let c = alarm?.begin(at: engine.streamNow, gravity: engine.detectors.gravity) { engine.apply(c) }
        started?()
        var sink = self.sink
        sink.rearm = alarm?.watching ?? false
        // What the run did since the chip was configured, or since the last poll before a
        // reload, was its own doing: no stall.
        engine.resume(now: clock.now)
        while true {
            let (ready, rose) = wait(until: nextWake())
            if let pin {
                // A rise wakes the engine; while it drains on its timer, rises are only taken.
                // Woken by anything else while listening, a rise still to come is left for the
                // next wait.
                if rose {
                    if pin.take(now: clock.now) > 0 { engine.interrupted(now: clock.now) }
                } else if !engine.listening {
                    _ = pin.take(now: clock.now)
                }
            }
            var turn = Turn(gravity: engine.detectors.gravity)
            for (w, r) in zip(wakeups, ready) { w.handle(r, &turn) }
            for c in turn.changes { engine.apply(c) }
            if let outcome = turn.outcome { return outcome }
            let now = clock.now
            // A lost sensor is part of the alarm: time passes for it without samples, and armed,
            // a sensor silent for `sensor_lost_ms` triggers it.
            if let alarm, engine.supervisor.phase != .running {
                let silent = now - engine.lastData
                if let c = alarm.sensorSilent(for: silent, at: engine.streamNow + silent, gravity: engine.detectors.gravity) { engine.apply(c) }
            }
            if now < engine.nextPoll { continue }   // woken early by a request
            counters.wakeups += 1
            if watcher?.woke(now: now) == true { return .done }
            if let end = clock.pollBlocked(at: now) {
                engine.postpone(until: end)   // the host cannot poll until then
                continue
            }
            if engine.supervisor.phase != .running && dataEnded(now: now) { return .done }
            guard let frames = passOn(engine.step(now: now, sourceEnded: clock.motionEnded), &sink) else { continue }
            control?.flushStream()
            if let limit = limitMicros, engine.streamMicros >= limit { return .done }
            if clock.motionEnded && (frames == 0 || !engine.sensor.usesFIFO) { return .done }
        }
    }

    /// Passes on what a step brought: a fault, or a gap and then each reading with its events,
    /// the alarm's answer to each going back to the detectors before the next. The readings
    /// polled, or nil when nothing was.
    func passOn(_ step: Step, _ sink: inout RunSink) -> Int? {
        switch step {
        case .idle:
            return nil
        case .fault(let reason, let t):
            sink.fault(reason, at: t)
            return nil
        case .polled(let frames, let gap):
            if let gap { sink.gap(gap) }
            while let (s, e) = engine.next() {
                if let c = sink.sample(s, events: e, engine: engine) { engine.apply(c) }
            }
            return frames
        }
    }

    /// When the loop must wake next (run clock): the chip's next poll, or sooner while the sensor
    /// is lost and the alarm waits on its silence.
    func nextWake() -> Int64 {
        guard let alarm, engine.supervisor.phase != .running,
              let after = alarm.nextSilenceCheck(silent: clock.now - engine.lastData) else { return engine.nextPoll }
        return min(engine.nextPoll, engine.lastData + after)
    }

    /// Waits until `deadline` (run clock), a wake-up or the INT pin's rise (while the engine
    /// listens for it); which of the wake-ups' descriptors woke it, and whether the pin did.
    package func wait(until deadline: Int64) -> (ready: [Bool], rose: Bool) {
        var fds: [pollfd] = []
        var owner: [Int] = []
        for (i, w) in wakeups.enumerated() {
            for f in w.fds() {
                fds.append(pollfd(fd: f, events: Int16(POLLIN), revents: 0))
                owner.append(i)
            }
        }
        var deadline = deadline, riseAt: Int64?
        if let pin, engine.listening {
            if let f = pin.descriptor {
                fds.append(pollfd(fd: f, events: Int16(POLLIN), revents: 0))
                owner.append(-1)
            } else if let t = pin.nextRise(after: clock.now, until: deadline) {
                deadline = t
                riseAt = t
            }
        }
        clock.wait(&fds, until: deadline)
        var ready = [Bool](repeating: false, count: wakeups.count)
        var rose = riseAt.map { clock.now >= $0 } ?? false
        for (k, f) in fds.enumerated() where f.revents != 0 {
            if owner[k] < 0 { rose = true } else { ready[owner[k]] = true }
        }
        return (ready, rose)
    }

    /// While the chip is faulted: whether the run is over anyway (the motion ran out, or the
    /// time limit passed counting the time without data).
    package func dataEnded(now: Int64) -> Bool {
        if clock.motionEnded { return true }
        guard let limit = limitMicros else { return false }
        return engine.streamMicros + (now - engine.lastData) >= limit
    }
}

/// The loop's counts, for the exit line and the benchmark.
package final class RunCounters {
    package var wakeups = 0
}

/// Where the engine's output goes in `jolt run`: samples to the watcher and the live stream;
/// events to records (`EventRouter`) and to the alarm, whose answer (arm or disarm the tamper
/// detector) the loop gives the engine; faults and gaps to records, the log and systemd's status.
package struct RunSink {
    package let router: EventRouter
    package let alarm: AlarmController?
    package let notifier: Notifier
    package let settings: DetectionSettings
    /// What the chip is, for the messages of a gap: "MPU6050 (WHO_AM_I 0x68)", its address, its bus.
    package let sensor: ChipSensor
    /// How far apart re-probes get at most, µs (for the fault's log line).
    package let maxBackoffMicros: Int64
    /// Fresh detectors take the kept tamper reference at their first sample.
    package var rearm = false
    package var records: [EventRecord] = []
    /// The first sample's time, for a watcher's tamper detector (`watchTamper`).
    var firstSampleAt: Int64?
    /// Home Assistant's numeric sensors, over MQTT.
    var measures = LiveMeasures()
    /// The readings around each trigger (an alarm with a state directory).
    package var evidence: EvidenceRecorder?

    package init(router: EventRouter, alarm: AlarmController?, notifier: Notifier, settings: DetectionSettings, sensor: ChipSensor, maxBackoffMicros: Int64) {
        self.router = router
        self.alarm = alarm
        self.notifier = notifier
        self.settings = settings
        self.sensor = sensor
        self.maxBackoffMicros = maxBackoffMicros
        records.reserveCapacity(8)
    }

    package mutating func fault(_ reason: String, at t: Int64) {
        router.emit(EventRecord(t: t, kind: .fault, detail: reason))
        Log.warning("fault: \(reason); re-probing, at most every \(maxBackoffMicros / 1_000_000) s, until the chip answers")
        notifier.send("STATUS=fault: \(reason)")
    }

    package mutating func gap(_ g: Gap) {
        let span = EventRecord.seconds(g.resume - g.start)
        let what: String
        switch g.cause {
        case .recovered(let attempts):
            alarm?.sensorBack()
            what = "\(sensor.identity) at 0x\(hex(sensor.address)) answering again after \(attempts) re-probe\(attempts == 1 ? "" : "s")"
        case .overflow, .stall:
            let cause = g.cause == .overflow
                ? "FIFO overflow: about \(g.lost) samples lost; the FIFO was reset"
                : "no reading for \(span) s: the host did not poll in time (overloaded or suspended?)"
            router.emit(EventRecord(t: g.start, kind: .fault, detail: cause))
            Log.warning(cause)
            what = g.cause == .overflow ? "FIFO running again" : "reading again"
        }
        router.emit(EventRecord(t: g.resume, kind: .recovered, detail: what, gapMicros: g.resume - g.start))
        Log.info("recovered: \(what); \(span) s of data missing")
        notifier.send("STATUS=watching \(sensor.identity) on \(sensor.busName)")
    }

    /// One sample and what it raised, with `engine`'s detectors after it, which are read only
    /// where needed (the engine's are not copied for each sample).
    package mutating func sample(_ s: Sample, events e: Events, engine: SamplingEngine) -> DetectorChange? {
        let watcher = router.watcher, control = router.control
        evidence?.add(s)
        if let b = router.bridge, s.t >= measures.nextAt, let m = measures.due(at: s.t, engine.detectors) {
            b.measures(tiltDeci: m.tiltDeci, speedMMs: m.speedMMs)
        }
        if watcher != nil || control?.streaming == true {
            let levels = LiveLevels(engine.detectors)
            watcher?.sample(s, levels)
            if let c = control, c.streaming { c.stream(levels.streamLine(s)) }
        }
        guard let alarm else {
            if !e.isEmpty { route(e, at: s.t, detectors: engine.detectors) }
            return watchTamper(at: s.t, engine: engine)
        }
        // The first sample of fresh detectors takes the armed reference; then the sample's events
        // as records, then the alarm's step (which may arm or disarm the tamper detector anew).
        let gravity = engine.detectors.gravity
        let first: DetectorChange? = rearm ? alarm.rearm(gravity: gravity) : nil
        rearm = false
        let shown = alarm.shown(e)
        if !shown.isEmpty { route(shown, at: s.t, detectors: engine.detectors) }
        let tamper = e.contains(.tamper) ? engine.detectors.tamperReading(at: s.t) : nil
        let peak2 = e.contains(.shakeBegan) ? engine.detectors.shakePeak2 : 0
        return alarm.observe(e, at: s.t, gravity: gravity, reason: { TriggerReason(cause: $0, tamper: tamper, shakePeak2: peak2) }) ?? first
    }

    /// Without an alarm, for a watcher that asks (`RunWatcher.watchesTamper`): the tamper
    /// detector armed a second after the first sample, against the orientation then.
    mutating func watchTamper(at t: Int64, engine: SamplingEngine) -> DetectorChange? {
        guard let watcher = router.watcher, watcher.watchesTamper, !engine.detectors.tamperArmed else { return nil }
        guard let first = firstSampleAt else {
            firstSampleAt = t
            return nil
        }
        return t - first >= 1_000_000 ? .armTamper(reference: engine.detectors.gravity) : nil
    }

    /// A sample's events as records, to the router.
    package mutating func route<D: SampleDetector>(_ e: Events, at t: Int64, detectors d: borrowing D) {
        records.removeAll(keepingCapacity: true)
        EventBuilder.records(e, at: t, detectors: d, settings: settings, into: &records)
        for rec in records { router.emit(rec) }
    }
}
