import JoltBuildInfo
import JoltCore
import JoltJSON
import JoltLinux

/// Requests from outside the chip, in one place that decides who may do what: the control
/// socket (its peers are checked by `ControlServer`) and MQTT commands (judged by
/// `MQTTBridge.judge`: authentication, code, lockout). Each is handled on the sampling thread,
/// where the alarm and the detectors live.
extension RunCommand {
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
            if let why = carryOut(verdict, detectors: &d) {
                Log.warning("mqtt: refused '\(command)' on \(b.setTopic): \(why)")
                b.answer(command, ok: false, error: why, state: alarm?.state)
                continue
            }
            Log.info("mqtt: \(command)\(command == "siren" ? (verdict.sirenOn ? " on" : " off") : "")")
            let state = alarm?.state
            whenSaved { b.answer(command, ok: true, state: state) }
        }
    }

    /// Runs `acknowledge` once the alarm's state as it is now is on disk (at once when nothing is
    /// kept or nothing is pending): an arm or a disarm is acknowledged only when it would
    /// survive a power cut.
    func whenSaved(_ acknowledge: @escaping () -> Void) {
        guard let s = store, s.lastSave > s.savedThrough else { return acknowledge() }
        heldAcknowledgements.append((s.lastSave, acknowledge))
    }

    /// The acknowledgements held for saves the disk now holds, sent (the control socket's and
    /// MQTT's).
    func releaseSaved() {
        guard let s = store, !heldAcknowledgements.isEmpty || control?.held.isEmpty == false else { return }
        let through = s.savedThrough
        control?.release(savedThrough: through)
        let due = heldAcknowledgements.filter { $0.save <= through }
        heldAcknowledgements.removeAll { $0.save <= through }
        for h in due { h.send() }
    }

    /// Carries out a remote command that was allowed: the alarm's through the alarm, the siren
    /// and the test button through the buzzer's manual output (which never silences a sounding
    /// alarm). Returns why not, when it cannot be done.
    func carryOut<D: SampleDetector>(_ v: CommandVerdict, detectors d: inout D) -> String? {
        switch v.command {
        case "arm", "disarm", "trigger":
            let cause: AlarmTransition.Cause = v.command == "arm" ? .armCommand : v.command == "disarm" ? .disarmCommand : .panic
            if let tr = alarm!.command(cause, at: streamNow, detectors: &d) {
                alarmChanged(tr, at: streamNow, reference: d.tamperReference)
            }
            return nil
        default:
            guard let name = bridge?.buzzer else { return "this board has no buzzer" }
            let pattern: Pattern?
            if v.command == "test_buzzer" {
                pattern = .beeps(on: OutputRequest.beepMillis, off: OutputRequest.beepMillis, count: 1)
            } else if v.sirenOn {
                pattern = v.durationSeconds.map { .pulse(ms: Int32($0) * 1000) } ?? .steady
            } else {
                pattern = nil
            }
            return manualOutput(name, pattern)
        }
    }

    /// The answer to a control request: one JSON object; an arm or a disarm once its state is on
    /// disk.
    func control<D: SampleDetector>(_ line: String, detectors d: inout D) -> ControlAnswer {
        switch line {
        case "arm", "disarm":
            guard alarm != nil else { return .now(ControlReply.refusal("this board has no alarm")) }
            if let tr = alarm!.command(arm: line == "arm", at: streamNow, detectors: &d) {
                alarmChanged(tr, at: streamNow, reference: d.tamperReference)
            }
            Log.info("control: \(line)")
            let reply = JSON.members([("ok", true)] + alarmFields).text
            guard let s = store, s.lastSave > s.savedThrough else { return .now(reply) }
            return .whenSaved(reply, s.lastSave)
        default:
            return .now(request(line))
        }
    }

    /// The answer to a control request that changes nothing kept.
    func request(_ line: String) -> String {
        switch line {
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
        if let why = manualOutput(name, request.pattern) { return ControlReply.refusal(why) }
        Log.info("control: output \(name): \(request.pattern?.text ?? "off")")
        let ok: JSON = ["ok": true, "output": .string(name), "pattern": .string(request.pattern?.text ?? "off")]
        return ok.text
    }

    /// Sounds or silences output `name` by hand (jolt output, Home Assistant's siren and test
    /// button); returns why not. The alarm's cadence wins on its line: a sounding alarm is
    /// silenced by a disarm, never by turning its output off.
    func manualOutput(_ name: String, _ pattern: Pattern?) -> String? {
        guard outputs[name] != nil, let worker else {
            return "no output named \"\(name)\" on this board (have: \(outputs.keys.sorted().joined(separator: ", ")))"
        }
        if name == board.alarm?.output, alarm?.state == .triggered, pattern == nil {
            return "the alarm is sounding on \(name): disarm it to silence it (jolt disarm)"
        }
        worker.submit(.manual(output: name, pattern))
        return nil
    }
}
