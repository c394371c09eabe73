#if canImport(Glibc)
import Glibc
#endif
import JoltBuildInfo
import JoltJSON
import JoltCore
import JoltLinux

/// What reaches a running `jolt run` from outside its chip, and the alarm it drives: the alarm
/// at start and on every change (saved, announced, sounded), SIGHUP reloads, control-socket
/// requests, MQTT commands and the key switch. Each is handled on the sampling thread, where the
/// alarm and the detectors live.
extension RunCommand {
    /// The alarm at start: as saved (sounding again, or armed against the saved orientation,
    /// which `tamperReference` then holds for the first sample), armed when the saved state
    /// cannot be read (fail-secure), or as the profile says when no state is kept.
    func startAlarm<D: SampleDetector>(_ d: inout D) {
        guard alarm != nil, !alarmStarted else { return }
        alarmStarted = true
        func arm(_ why: String?) {
            if let why { Log.warning(why) }
            if let tr = alarm!.command(arm: true, at: streamNow, detectors: &d) { alarmChanged(tr, at: streamNow, reference: d.tamperReference) }
        }
        guard let saved = savedAtStart, let store else {
            if board.alarm?.armedAtStart == true { arm(nil) }
            return
        }
        switch saved {
        case .failure(let e):
            arm("alarm: \(e.message): arming (fail-secure); jolt disarm disarms it")
        case .success(nil):
            arm("alarm: no saved state in \(store.path): arming (fail-secure; the first start, or the file was removed); jolt disarm disarms it")
        case .success(let s?):
            switch s.state {
            case .disarmed:
                alarmSinceWall = s.sinceWallMicros
                Log.info("alarm: disarmed since \(WallClock.iso8601(s.sinceWallMicros)), as saved in \(store.path)")
            case .arming:
                arm("alarm: was arming when Jolt stopped: arming again")
            case .armed, .triggered:
                alarm!.restore(state: s.state, since: streamNow)
                tamperReference = s.reference
                alarmSinceWall = s.sinceWallMicros
                let tr = AlarmTransition(from: .disarmed, to: s.state, cause: .restored)
                Log.warning("alarm: \(EventRecord.alarmName(s.state)) since \(WallClock.iso8601(s.sinceWallMicros)) (\(s.cause)), as saved in \(store.path): \(s.state == .triggered ? "sounding again" : "watching against the saved orientation")")
                emit(EventRecord(t: streamNow, kind: .alarm(tr)))
                if s.state == .triggered {
                    stats.triggeredAtWall = Sys.monotonicMicros()
                    worker?.submit(.alarm(sounding: true))
                }
                notifier.send("STATUS=alarm \(EventRecord.alarmName(s.state))")
                if let a = alarm { bridge?.alarm(a.state, since: a.since, sinceWall: alarmSinceWall) }
            }
        }
    }

    /// SIGHUP: read the board profile again. A bad one is refused and the running one kept;
    /// hardware changes need a restart; detection, actions and alarm settings apply now, and the
    /// alarm keeps its state.
    func reload() {
        guard !board.file.isEmpty, !board.file.hasPrefix("(") , !board.file.contains("(built in)") else {
            Log.warning("SIGHUP: nothing to reload (no board file)")
            return
        }
        notifier.send("RELOADING=1")
        defer { notifier.send("READY=1") }
        let new: BoardProfile
        do {
            new = try BoardProfile.load(path: board.file)
        } catch {
            Log.error("reload refused, keeping the running configuration: \(error.message)")
            return
        }
        // What cannot change under a running alarm: the whole reload is refused, nothing applied
        // in part.
        var fixed: [String] = []
        if new.bus != board.bus { fixed.append("bus") }
        if new.chip != board.chip { fixed.append("chip") }
        if new.address != board.address { fixed.append("address") }
        if new.rateMilliHz != board.rateMilliHz { fixed.append("rate_hz") }
        if new.accelRangeG != board.accelRangeG { fixed.append("accel_range_g") }
        if new.gyroRangeDps != board.gyroRangeDps { fixed.append("gyro_range_dps") }
        if new.fifo != board.fifo || new.fifoPollMillis != board.fifoPollMillis { fixed.append("fifo") }
        if new.outputs.map(\.name) != board.outputs.map(\.name) || new.outputs.map(\.line) != board.outputs.map(\.line) { fixed.append("outputs") }
        if new.inputs.map(\.name) != board.inputs.map(\.name) || new.inputs.map(\.line) != board.inputs.map(\.line) { fixed.append("inputs") }
        if new.control != board.control { fixed.append("control") }
        if (new.alarm == nil) != (board.alarm == nil) || new.alarm?.output != board.alarm?.output || new.alarm?.cadence != board.alarm?.cadence
            || new.alarm?.stateDirectory != board.alarm?.stateDirectory { fixed.append("alarm (its presence, output, cadence or state_dir)") }
        if new.mqtt != board.mqtt { fixed.append("mqtt") }
        if new.sim != board.sim { fixed.append("sim") }
        guard fixed.isEmpty else {
            Log.error("reload refused, keeping the running configuration: \(fixed.joined(separator: ", ")) changed in \(board.file), which only a restart applies (systemctl restart jolt)")
            return
        }
        var applied = board
        applied.detection = new.detection
        applied.mount = new.mount
        applied.actions = new.actions
        applied.name = new.name
        if var a = board.alarm, let n = new.alarm {
            a.settings = n.settings
            a.armedAtStart = n.armedAtStart
            a.keySwitch = n.keySwitch
            applied.alarm = a
            if let old = alarm { alarm = old.reconfigured(n.settings) }
        }
        board = applied
        Log.info("reloaded \(board.file)")
    }

    /// An alarm transition: an event, the buzzer, systemd's status.
    func alarmChanged(_ tr: AlarmTransition, at t: Int64, reference: Vec3?) {
        tamperReference = tr.to == .armed || tr.to == .triggered ? (reference ?? tamperReference) : nil
        if tr.to == .triggered { tamperRepeats = 0 }
        alarmSinceWall = WallClock.nowMicros()
        store?.save(SavedAlarm(state: tr.to, sinceWallMicros: alarmSinceWall, cause: EventRecord.causeName(tr.cause), reference: tamperReference))
        emit(EventRecord(t: t, kind: .alarm(tr)))
        if tr.to == .triggered { stats.triggeredAtWall = Sys.monotonicMicros() }
        if (tr.to == .triggered) != (tr.from == .triggered) {
            worker?.submit(.alarm(sounding: tr.to == .triggered))
        }
        notifier.send("STATUS=alarm \(EventRecord.alarmName(tr.to))")
        if let a = alarm { bridge?.alarm(a.state, since: a.since, sinceWall: alarmSinceWall) }
    }

    /// Commands that came over MQTT: judged (authentication, code), applied like the control
    /// socket's, answered on the result topic.
    func mqttCommands<D: SampleDetector>(detectors d: inout D) {
        guard let b = bridge else { return }
        for payload in b.takeCommands() {
            let verdict = b.judge(payload)
            let command = verdict.command
            if let why = verdict.refusal {
                if verdict.logged { Log.warning("mqtt: refused '\(command)' on \(b.setTopic): \(why)") }
                if verdict.answered { b.answer(command, ok: false, error: why, state: alarm?.state) }
                continue
            }
            if let tr = alarm!.command(arm: command == "arm", at: streamNow, detectors: &d) {
                alarmChanged(tr, at: streamNow, reference: d.tamperReference)
            }
            Log.info("mqtt: \(command)")
            b.answer(command, ok: true, state: alarm?.state)
        }
    }

    /// The answer to a control request: one JSON object.
    func control<D: SampleDetector>(_ line: String, detectors d: inout D) -> String {
        switch line {
        case "arm", "disarm":
            guard alarm != nil else { return ControlReply.refusal("this board has no alarm") }
            if let tr = alarm!.command(arm: line == "arm", at: streamNow, detectors: &d) {
                alarmChanged(tr, at: streamNow, reference: d.tamperReference)
            }
            Log.info("control: \(line)")
            return JSON.members([("ok", true)] + alarmFields).text
        case "status":
            return JSON.members([("ok", true)] + alarmFields + [
                ("version", .string(BuildInfo.description)), ("t", .decimal(EventRecord.seconds(streamNow))), ("samples", .int(stats.samples)),
                ("events", .int(stats.events)), ("sensor", supervisor.phase == .running ? "ok" : "fault"), ("faults", .int(supervisor.faults)),
            ]).text
        case "stream":
            let s = hw.sensor
            let reply: JSON = ["ok": true, "stream": 1, "identity": .string(s.identity), "address": .int(s.address), "bus": .string(hw.busName),
                               "board": .string(board.file.isEmpty ? board.name : board.file), "rate_mhz": .int(s.rateMilliHz), "range_mg": .int(s.rangeMilliG),
                               "gyro_range_dps": .int(board.gyroRangeDps), "has_gyro": .bool(s.hasGyro), "version": .string(BuildInfo.description)]
            return reply.text
        case _ where line.hasPrefix("output "):
            return manualOutput(line)
        default:
            return ControlReply.refusal("unknown command '\(line.prefix(40))' (arm, disarm, status, output)")
        }
    }

    /// The alarm's part of a reply: whether there is one, its state and since when.
    var alarmFields: [(String, JSON)] {
        guard let a = alarm else { return [("alarm", false)] }
        return [("alarm", true), ("state", .string(EventRecord.alarmName(a.state))), ("since", .decimal(EventRecord.seconds(a.since))),
                ("since_utc", .string(WallClock.iso8601(alarmSinceWall))), ("tamper_repeats", .int(tamperRepeats))]
    }

    /// `output NAME on|off|pulse MS|beep N` from `jolt output`: the pattern goes to the action
    /// thread, which owns the lines. The alarm's cadence wins on its line: a sounding alarm is
    /// silenced by a disarm, never by turning its output off.
    func manualOutput(_ line: String) -> String {
        let words = line.split(separator: " ").map(String.init)
        guard words.count >= 3, let request = OutputRequest(words: Array(words[2...])) else {
            return ControlReply.refusal("usage: output NAME on|off|pulse MS|beep N")
        }
        let name = words[1]
        guard outputs[name] != nil, let worker else {
            return ControlReply.refusal("no output named \"\(name)\" on this board (have: \(outputs.keys.sorted().joined(separator: ", ")))")
        }
        if name == board.alarm?.output, alarm?.state == .triggered, request.pattern == nil {
            return ControlReply.refusal("the alarm is sounding on \(name): disarm it to silence it (jolt disarm)")
        }
        worker.submit(.manual(output: name, request.pattern))
        Log.info("control: output \(name): \(request.pattern?.text ?? "off")")
        let ok: JSON = ["ok": true, "output": .string(name), "pattern": .string(request.pattern?.text ?? "off")]
        return ok.text
    }

    /// A key switch arms when it turns active and disarms when it turns inactive.
    func readKeySwitch<D: SampleDetector>(_ d: inout D) {
        guard let name = board.alarm?.keySwitch, let line = inputs[name], alarm != nil else { return }
        guard let v = try? line.get() else { return }
        defer { keySwitchLast = v }
        guard let last = keySwitchLast, last != v else { return }
        Log.info("key switch \(name): \(v ? "on, arming" : "off, disarming")")
        if let tr = alarm!.command(arm: v, at: streamNow, detectors: &d) { alarmChanged(tr, at: streamNow, reference: d.tamperReference) }
    }
}

extension Alarm {
    /// The same alarm, in the same state, with new settings.
    func reconfigured(_ s: AlarmSettings) -> Alarm {
        var a = Alarm(settings: s)
        a.restore(state: state, since: since)
        return a
    }
}
