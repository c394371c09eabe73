import JoltBuildInfo
import JoltCore
import JoltJSON
import JoltLinux
import JoltActions
import JoltBoard
import JoltChips
import JoltConfig
import JoltControl
import JoltDrivers
import JoltEngine
import JoltSupport

/// Requests from outside the chip, in one place that decides what each does: the control socket
/// (its peers checked by `ControlServer`), MQTT commands (judged by `MQTTBridge.judge`:
/// authentication, code, lockout) and the key switch. Handled on the sampling thread, where the
/// alarm lives; what they ask of the detectors goes into the loop's `Turn`, for the engine.
package final class RunRequests {
    package let alarm: AlarmController?
    package let worker: ActionWorker
    /// The board's output names, and the alarm's among them.
    package let outputs: [String]
    package var alarmOutput: String?
    package let bridge: MQTTBridge?
    package let control: ControlServer?
    /// The stream time of the next sample: the clock commands are applied on.
    package let streamNow: () -> Int64
    /// The figures `status` adds to the alarm's: version, time, samples, events, the sensor.
    package let status: () -> [(String, JSON)]
    /// The header of the live stream (`stream`): the chip, the bus, the board.
    package let streamHeader: () -> JSON
    /// The key switch (an input named in the profile), and what it last read.
    package var keySwitch: (name: String, line: InputLine)?
    private var keySwitchLast: Bool?
    /// MQTT acknowledgements waiting for the state they report to be on disk (`whenSaved`).
    private var held: [(save: UInt64, send: (String?) -> Void)] = []
    /// Whether the chip is in a fault now (set by the run, which owns the engine).
    package var sensorFault: () -> Bool = { false }
    /// What keeps the alarm from keeping its word now (`checkTrouble`), as said in `status`, the
    /// journal and MQTT's trouble topic.
    package private(set) var trouble: [String] = []

    package init(alarm: AlarmController?, worker: ActionWorker, outputs: [String], alarmOutput: String?, bridge: MQTTBridge?, control: ControlServer?,
         streamNow: @escaping () -> Int64, status: @escaping () -> [(String, JSON)], streamHeader: @escaping () -> JSON) {
        self.alarm = alarm
        self.worker = worker
        self.outputs = outputs
        self.alarmOutput = alarmOutput
        self.bridge = bridge
        self.control = control
        self.streamNow = streamNow
        self.status = status
        self.streamHeader = streamHeader
    }

    /// An alarm command, its detector change into the turn.
    package func command(_ cause: AlarmTransition.Cause, _ turn: inout Turn, mode: ArmMode = .away) {
        if let c = alarm?.command(cause, at: streamNow(), gravity: turn.gravity, mode: mode) { turn.changes.append(c) }
    }

    // MARK: the control socket

    /// The answer to a control request: one JSON object; an arm or a disarm once its state is on
    /// disk.
    package func control(_ line: String, _ turn: inout Turn) -> ControlAnswer {
        // "arm home", "arm night": armed in that mode ("arm" is away).
        let words = line.split(separator: " ")
        let mode = words.count == 2 && words[0] == "arm" ? ArmMode.allCases.first { EventRecord.modeName($0) == words[1] } : nil
        switch line {
        case _ where line == "arm" || line == "disarm" || mode != nil:
            guard alarm != nil else { return .now(ControlReply.refusal("this board has no alarm")) }
            command(line == "disarm" ? .disarmCommand : .armCommand, &turn, mode: mode ?? .away)
            Log.info("control: \(line)")
            if let refused = alarm?.takeRefusal() { return .now(ControlReply.refusal(refused)) }
            let reply = JSON.members([("ok", true)] + alarmFields).text
            guard let s = alarm?.store, s.lastSave > s.savedThrough else { return .now(reply) }
            return .whenSaved(reply, s.lastSave)
        case "status":
            return .now(JSON.members([("ok", true)] + alarmFields + status() + [("trouble", .list(trouble.map { .string($0) }))]).text)
        case "stream":
            return .now(streamHeader().text)
        case "reload":
            Log.info("control: reload")
            turn.outcome = turn.outcome == .done ? .done : .reload
            return .afterReload
        case _ where line.hasPrefix("output "):
            return .now(manualOutput(line))
        default:
            return .now(ControlReply.refusal("unknown command '\(line.prefix(40))' (arm, disarm, status, reload, output)"))
        }
    }

    /// The alarm's part of a reply: whether there is one, its state and since when.
    package var alarmFields: [(String, JSON)] { alarm?.replyFields ?? [("alarm", false)] }

    /// `output NAME on|off|pulse MS|beep N` from `jolt output`: the pattern goes to the action
    /// thread, which owns the lines.
    package func manualOutput(_ line: String) -> String {
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
    package func manualOutput(_ name: String, _ pattern: Pattern?) -> String? {
        guard outputs.contains(name) else {
            return "no output named \"\(name)\" on this board (have: \(outputs.sorted().joined(separator: ", ")))"
        }
        if name == alarmOutput, alarm?.alarm.state == .triggered, pattern == nil {
            return "the alarm is sounding on \(name): disarm it to silence it (jolt disarm)"
        }
        worker.submit(.manual(output: name, pattern))
        return nil
    }

    // MARK: MQTT

    /// Commands that came over MQTT: judged (authentication, code), applied like the control
    /// socket's, answered on the result topic.
    package func mqttCommands(_ turn: inout Turn) {
        guard let b = bridge else { return }
        for payload in b.takeCommands() {
            let verdict = b.judge(payload)
            let command = verdict.command
            if let why = verdict.refusal {
                if verdict.logged { Log.warning("mqtt: refused '\(command)' on \(b.setTopic): \(why)") }
                if verdict.answered { b.answer(command, ok: false, error: why, state: alarm?.alarm.state) }
                continue
            }
            if let why = carryOut(verdict, &turn) {
                Log.warning("mqtt: refused '\(command)' on \(b.setTopic): \(why)")
                b.answer(command, ok: false, error: why, state: alarm?.alarm.state)
                continue
            }
            Log.info("mqtt: \(command)\(command == "siren" ? (verdict.sirenOn ? " on" : " off") : "")")
            whenSaved { [alarm] error in b.answer(command, ok: error == nil, error: error, state: alarm?.alarm.state) }
        }
    }

    /// Carries out a remote command that was allowed: the alarm's through the alarm, the siren
    /// and the test button through the buzzer's manual output (which never silences a sounding
    /// alarm). Returns why not, when it cannot be done.
    package func carryOut(_ v: CommandVerdict, _ turn: inout Turn) -> String? {
        switch v.command {
        case "arm", "disarm", "trigger":
            command(v.command == "arm" ? .armCommand : v.command == "disarm" ? .disarmCommand : .panic, &turn, mode: v.mode)
            return alarm?.takeRefusal()
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

    // MARK: the disk

    /// Runs `acknowledge` once the alarm's state as it is now is on disk (at once when nothing is
    /// kept or nothing is pending), with nil; or with why not, once saving it has failed: an arm
    /// or a disarm is acknowledged only when it would survive a power cut.
    package func whenSaved(_ acknowledge: @escaping (String?) -> Void) {
        guard let s = alarm?.store, s.lastSave > s.savedThrough else { return acknowledge(nil) }
        held.append((s.lastSave, acknowledge))
    }

    /// The acknowledgements held for saves now settled, sent (the control socket's and MQTT's):
    /// those on disk as held, those that failed as refusals that name the disk. `failures`:
    /// whether failed saves are answered now, or wait (as if under way) for a turn that has seen
    /// the failure and re-armed after a disarm the disk could not keep.
    package func releaseSaved(failures: Bool = true) {
        guard let s = alarm?.store, !held.isEmpty || control?.held.isEmpty == false else { return }
        func outcome(_ n: UInt64) -> SaveQueue.Outcome {
            let o = s.outcome(of: n)
            if case .failed = o, !failures { return .pending }
            return o
        }
        control?.release { n, reply in
            switch outcome(n) {
            case .pending: return nil
            case .saved: return reply
            case .failed(let why): return JSON.members([("ok", false), ("error", .string(notSaved(why))), ("saved", false)] + alarmFields).text
            }
        }
        var i = 0
        while i < held.count {
            switch outcome(held[i].save) {
            case .pending:
                i += 1
                continue
            case .saved: held[i].send(nil)
            case .failed(let why): held[i].send(notSaved(why))
            }
            held.remove(at: i)
        }
    }

    /// A refusal for a state the disk could not keep: what the alarm does now, and what a restart
    /// would come back to.
    package func notSaved(_ why: String) -> String {
        let now = alarm.map { EventRecord.alarmName($0.state) } ?? "off"
        let disk = alarm?.store?.onDisk.map { EventRecord.alarmName($0.state) } ?? "armed (no state on disk: fail-secure)"
        return "not saved to disk (\(why)): the alarm is \(now) now, and a restart would come back \(disk); it is saved as soon as the disk allows"
    }

    /// Each turn: a disarm the disk could not keep leaves the alarm armed (the safer state), and
    /// what keeps the alarm from keeping its word is said when it changes.
    package func keepWord(_ turn: inout Turn) {
        // The writer thread may fail a save between the re-arm below and the replies: a failure
        // is answered only in a turn that saw it first, so the refusal says "armed", not "disarmed".
        let failureSeen = alarm?.store?.trouble != nil
        if let c = alarm?.unsavedDisarm(at: streamNow(), gravity: turn.gravity) { turn.changes.append(c) }
        releaseSaved(failures: failureSeen)
        checkTrouble()
    }

    /// The trouble of a board with an alarm now: its state not on disk, an output that cannot be
    /// driven, the chip in a fault. Said in the journal and on MQTT when it changes.
    package func checkTrouble() {
        guard alarm != nil else { return }
        var now: [String] = []
        if let why = alarm?.store?.trouble { now.append("the alarm's state is not saved: \(why)") }
        now += worker.failedOutputs.sorted().map { "output \($0) cannot be driven" }
        if sensorFault() { now.append("the sensor is in a fault") }
        guard now != trouble else { return }
        if now.isEmpty { Log.info("trouble over: the alarm keeps its word again") } else { Log.warning("trouble: " + now.joined(separator: "; ")) }
        trouble = now
        bridge?.trouble(now)
    }

    // MARK: the key switch

    /// A key switch arms when it turns active and disarms when it turns inactive.
    package func readKeySwitch(_ turn: inout Turn) {
        guard let (name, line) = keySwitch, alarm != nil, let v = try? line.get() else { return }
        defer { keySwitchLast = v }
        guard let last = keySwitchLast, last != v else { return }
        Log.info("key switch \(name): \(v ? "on, arming" : "off, disarming")")
        command(v ? .armCommand : .disarmCommand, &turn)
    }
}
