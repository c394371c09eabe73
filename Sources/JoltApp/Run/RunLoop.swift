#if canImport(Glibc)
import Glibc
#endif
import JoltChips
import JoltCore
import JoltEngine
import JoltLinux

/// Watches a run from inside: the one interface through which `watch`, `record` (both through
/// `LiveFeed`), `soak` and the tests see what `jolt run` does.
protocol RunWatcher: AnyObject {
    /// At each wake-up, with the run clock's time; true ends the run.
    func woke(now: Int64) -> Bool
    /// Each sample (board axes) with the detectors' state after it.
    func sample(_ s: Sample, _ levels: LiveLevels)
    /// Each event as it is emitted, with the run clock's time.
    func event(_ r: EventRecord, now: Int64)
}

extension RunWatcher {
    func woke(now: Int64) -> Bool { false }
    func sample(_ s: Sample, _ levels: LiveLevels) {}
    func event(_ r: EventRecord, now: Int64) {}
}

extension RunCommand {
    /// The run's loop for one detector set: wait for the next poll (or a signal, a control
    /// request, an MQTT command), answer what came, then let the engine poll the chip.
    struct Loop: DetectorConsumer {
        let run: RunCommand
        let settings: DetectionSettings

        func consume<D: SampleDetector>(_ d: inout D) throws(JoltError) -> Outcome {
            let r = run, engine = r.engine!
            // The tamper detector of fresh detectors needs a sample before it can take the
            // armed orientation; fresh detectors (at start, after a reload) take the one kept.
            r.startAlarm(&d)
            // What the run did since the chip was configured, or since the last poll before a
            // reload, was its own doing: no stall.
            engine.resume(now: r.clock.now)
            var sink = RunSink(run: r, settings: settings, rearmTamper: r.alarm.map { $0.state == .armed || $0.state == .triggered } ?? false)
            while true {
                if let outcome = r.wait(until: engine.nextPoll) { return outcome }
                let now = r.clock.now
                r.answer(detectors: &d)
                if now < engine.nextPoll { continue }   // woken early by a request
                r.stats.wakeups += 1
                if r.watcher?.woke(now: now) == true { return .done }
                if let end = r.hw.pollBlocked(at: now) {
                    engine.nextPoll = end   // the host cannot poll until then
                    continue
                }
                if engine.supervisor.phase != .running && r.dataEnded(now: now) { return .done }
                guard case .polled(let frames) = engine.step(now: now, detectors: &d, sink: &sink) else { continue }
                r.control?.flushStream()
                r.stats.samples = engine.samples
                r.stats.overflows = engine.overflows
                r.stats.skipped = engine.skipped
                r.stats.streamMicros = engine.streamMicros
                if let limit = r.options.limitMicros, engine.streamMicros >= limit { return .done }
                if r.hw.exhausted && (frames == 0 || !engine.sensor.usesFIFO) { return .done }
            }
        }
    }

    /// Waits until `deadline` (run clock), a signal, a control request or an MQTT command. A
    /// stop or a reload ends the loop; nil carries on.
    func wait(until deadline: Int64) -> Outcome? {
        var fds = [pollfd(fd: signals!.fd, events: Int16(POLLIN), revents: 0)]
        for f in control?.pollFDs ?? [] { fds.append(pollfd(fd: f, events: Int16(POLLIN), revents: 0)) }
        if let b = bridge { fds.append(pollfd(fd: b.commandFD, events: Int16(POLLIN), revents: 0)) }
        if let s = store { fds.append(pollfd(fd: s.written.fd, events: Int16(POLLIN), revents: 0)) }
        defer { if let s = store, fds.last?.revents ?? 0 != 0 { s.written.drain() } }   // acknowledgements: `answer`
        if clock.virtual {
            clock.advance(to: deadline)
            _ = try? Sys.poll(&fds, timeoutMicros: 0)
        } else {
            var now = clock.now
            while now < deadline {
                _ = try? Sys.poll(&fds, timeoutMicros: deadline - now)
                if fds.contains(where: { $0.revents != 0 }) { break }
                now = clock.now
            }
        }
        guard fds[0].revents != 0 else { return nil }
        var stop = false, reload = false
        while let sig = signals!.next() {
            if sig == SIGINT || sig == SIGTERM { stop = true }
            if sig == SIGHUP { reload = true }
        }
        if stop {
            Log.info("stopping on a signal")
            return .done
        }
        return reload ? .reload : nil
    }

    /// Everything that is not the chip: control requests, MQTT commands, acknowledgements whose
    /// state is now on disk, the watchdog, the key switch.
    func answer<D: SampleDetector>(detectors d: inout D) {
        control?.service { line in self.control(line, detectors: &d) }
        mqttCommands(detectors: &d)
        releaseSaved()
        notifier.watchdog(now: Sys.monotonicMicros())
        readKeySwitch(&d)
    }

    /// While the chip is faulted: whether the run is over anyway (the motion ran out, or the
    /// time limit passed counting the time without data).
    func dataEnded(now: Int64) -> Bool {
        if hw.exhausted { return true }
        guard let limit = options.limitMicros, let e = engine else { return false }
        return e.streamMicros + (now - e.lastData) >= limit
    }
}

/// Where the engine's output goes in `jolt run`: events, the live stream, the alarm.
struct RunSink: EngineSink {
    let run: RunCommand
    let settings: DetectionSettings
    /// Fresh detectors take the kept tamper reference at their first sample.
    var rearmTamper: Bool
    var records: [EventRecord] = []

    init(run: RunCommand, settings: DetectionSettings, rearmTamper: Bool) {
        self.run = run
        self.settings = settings
        self.rearmTamper = rearmTamper
        records.reserveCapacity(8)
    }

    mutating func fault(_ reason: String, at t: Int64) {
        run.emit(EventRecord(t: t, kind: .fault, detail: reason))
        Log.warning("fault: \(reason); re-probing, at most every \(run.options.supervision.maxBackoffMicros / 1_000_000) s, until the chip answers")
        run.notifier.send("STATUS=fault: \(reason)")
    }

    mutating func gap(_ g: Gap) {
        let sensor = run.hw.sensor
        let span = EventRecord.seconds(g.resume - g.start)
        let what: String
        switch g.cause {
        case .recovered(let attempts):
            what = "\(sensor.identity) at 0x\(hex(sensor.address)) answering again after \(attempts) re-probe\(attempts == 1 ? "" : "s")"
        case .overflow, .stall:
            let cause = g.cause == .overflow
                ? "FIFO overflow: about \(g.lost) samples lost; the FIFO was reset"
                : "no reading for \(span) s: the host did not poll in time (overloaded or suspended?)"
            run.emit(EventRecord(t: g.start, kind: .fault, detail: cause))
            Log.warning(cause)
            what = g.cause == .overflow ? "FIFO running again" : "reading again"
        }
        run.emit(EventRecord(t: g.resume, kind: .recovered, detail: what, gapMicros: g.resume - g.start))
        Log.info("recovered: \(what); \(span) s of data missing")
        run.notifier.send("STATUS=watching \(sensor.identity) on \(sensor.busName)")
    }

    mutating func sample<D: SampleDetector>(_ s: Sample, events e: Events, detectors d: inout D) {
        let r = run
        if r.watcher != nil || r.control?.streaming == true {
            let levels = LiveLevels(gravity: d.gravity, shakeProgress: d.shakeProgress, faceDown: d.isFaceDown)
            r.watcher?.sample(s, levels)
            if let c = r.control, c.streaming { c.stream(levels.streamLine(s)) }
        }
        if rearmTamper {
            if let ref = r.tamperReference { d.armTamper(reference: ref) } else { d.armTamper() }
            r.tamperReference = d.tamperReference
            rearmTamper = false
        }
        // One tamper per triggering: while the alarm sounds, further tampers are counted (jolt
        // status shows them), not printed or published again.
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
}
