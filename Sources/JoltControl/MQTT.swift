import JoltBuildInfo
import JoltJSON
import JoltCore
import JoltLinux
import JoltMQTT
import JoltTrace
import JoltActions
import JoltConfig
import JoltSupport

/// What to do with a remote command: carry it out (no refusal), or refuse it — logged and
/// answered on the result topic unless it says otherwise. `command` is `arm`, `disarm`,
/// `trigger`, `siren` (with `sirenOn` and `durationSeconds`) or `test_buzzer`.
package struct CommandVerdict {
    package let command: String
    package let refusal: String?
    package var logged = true
    package var answered = true
    package var sirenOn = false
    package var durationSeconds: Int?
    /// An arm command's mode (arm_home, arm_night; away otherwise).
    package var mode: ArmMode = .away

    package init(_ command: String, _ refusal: String?, logged: Bool = true, answered: Bool = true) {
        self.command = command
        self.refusal = refusal
        self.logged = logged
        self.answered = answered
    }
}

/// Jolt on MQTT: every event on `<prefix>/<device>/event` (the replay schema, plus `device` and
/// `seq`) through the link's outbox; the alarm state, availability, shake and face-down
/// retained; commands on `<prefix>/<device>/set` handed to the sampling thread, answered on
/// `<prefix>/<device>/result`; Home Assistant discovery.
package final class MQTTBridge: @unchecked Sendable {
    package let config: MQTTConfig
    package let link: MQTTLink
    package let commandWake: WakeChannel
    package let lock = Lock()
    package var commands: [[UInt8]?] = []
    /// Commands dropped because too many came at once.
    package var droppedCommands = 0
    /// Wrong codes and lockouts, kept with the alarm's state.
    package var remote: RemoteGuard
    package let hasAlarm: Bool
    /// The arming modes the alarm offers besides away (`alarm.modes`).
    package let armModes: [ArmMode]
    /// The output Home Assistant's siren and test button sound: the alarm's, else the board's first.
    package let buzzer: String?
    /// Whether "online" has been published: at start without an alarm, else with its first state.
    private var available = false

    package var base: String { config.topicPrefix + "/" + config.device }
    package var eventTopic: String { base + "/event" }
    package var stateTopic: String { base + "/state" }
    package var availabilityTopic: String { base + "/availability" }
    package var setTopic: String { base + "/set" }
    package var resultTopic: String { base + "/result" }
    /// Each alarm's evidence trace, when `mqtt.evidence_max_kib` asks for it.
    package var evidenceTopic: String { base + "/evidence" }
    /// The alarm's trouble: `{"state":"ON","problems":["…"]}` while it cannot keep its word.
    package var troubleTopic: String { base + "/trouble" }
    package var measuresTopic: String { base + "/measures" }

    package init(config: MQTTConfig, board: BoardProfile, stateDirectory: String? = nil) throws(JoltError) {
        self.config = config
        hasAlarm = board.alarm != nil
        armModes = board.alarm.map { a in [ArmMode.home, .night].filter { a.settings.triggers($0) != nil } } ?? []
        buzzer = board.alarm?.output ?? board.outputs.first?.name
        remote = RemoteGuard(directory: stateDirectory)
        let outbox: Outbox
        do {
            outbox = try Outbox(directory: config.outboxPath, capacity: config.outboxMaxEvents)
        } catch {
            let p = config.outboxPath ?? "(memory)"
            if error == .accessDenied || error == .permitted {
                throw JoltError(.noPermission, "mqtt outbox \(p): permission denied: give the user running jolt a folder it can write (StateDirectory=jolt in the service does)")
            }
            throw JoltError(.cannotCreate, "mqtt outbox \(p): cannot create it: \(error) (\(error.name))")
        }
        var s = MQTTLink.Settings()
        s.host = config.host
        s.port = config.port
        s.clientID = config.clientID ?? "jolt-" + config.device
        s.username = config.username
        s.password = config.password
        s.caFile = config.caFile
        s.keepaliveSeconds = config.keepaliveSeconds
        s.willTopic = config.topicPrefix + "/" + config.device + "/availability"
        s.subscriptions = [config.topicPrefix + "/" + config.device + "/set"]
        do {
            link = try MQTTLink(settings: s, outbox: outbox)
            commandWake = try WakeChannel()
        } catch {
            throw JoltError(.software, "mqtt: cannot set up the link: \(error)")
        }
        if outbox.entries.count > 0 { Log.info("mqtt: \(counted(outbox.entries.count, "event")) from an earlier run \(outbox.entries.count == 1 ? "waits" : "wait") in the outbox") }
        let wake = commandWake
        link.onMessage = { [unowned self] _, payload in
            // Bounded: a flood of commands costs a count, not memory or the sampling thread's time.
            let queued = lock.with { () -> Bool in
                guard commands.count < 32 else { droppedCommands += 1; return false }
                commands.append(payload)
                return true
            }
            if queued { wake.signal() }
        }
        link.onNote = Self.logNote(config)
        let h = config.host.lowercased()
        let loopback = h == "localhost" || h.hasPrefix("127.") || h == "::1" || h == "[::1]"
        if config.password != nil && config.caFile == nil && !loopback {
            Log.warning("mqtt: the password goes to \(config.host) in plain text: use TLS (mqtt.tls.ca_file, port 8883)")
        }
    }

    /// What the link says, as log lines.
    package static func logNote(_ config: MQTTConfig) -> @Sendable (MQTTLink.Note) -> Void {
        let where_ = "\(config.host):\(config.port)"
        let user = config.username
        return { note in
            switch note {
            case .connected: Log.info("mqtt: connected to \(where_)")
            case .refused(let why):
                Log.error("mqtt: the broker at \(where_) refused the connection: \(why)\(why.lowercased().contains("author") || why.lowercased().contains("password") ? " — check mqtt.username (\(user ?? "none")) and the password" : ""); retrying, events wait in the outbox")
            case .unreachable(let why): Log.warning("mqtt: cannot reach the broker at \(why); retrying, events wait in the outbox")
            case .lost(let why): Log.warning("mqtt: connection to \(where_) lost (\(why)); reconnecting, events wait in the outbox")
            case .dropped(let n): Log.warning("mqtt: the outbox is full (\(config.outboxMaxEvents) events): dropped the \(n) oldest")
            case .quarantined(let place, let why): Log.error("mqtt: an event the broker library refuses (\(why)) was moved aside to \(place); the events after it go on")
            }
        }
    }

    /// Connects, with discovery and the retained states of the moment. A board with an alarm
    /// says nothing of it, and stays unavailable (its will, "offline", from the last run), until
    /// the alarm's state is known — restored from disk after the chip's check — and the first
    /// `alarm(…)` publishes it: a panel never shows a disarm that nobody made.
    package func start(board: BoardProfile, sensor: String) {
        if !hasAlarm { link.setRetained(topic: availabilityTopic, payload: "online") }
        for s in EventKinds.states where !s.alarmOnly { link.setRetained(topic: base + "/" + s.topic, payload: "OFF") }
        if hasAlarm { trouble([]) }
        // Every entity Jolt may publish: its configuration, or an empty one that removes it.
        for (topic, payload) in discovery(board: board, sensor: sensor) { link.setRetained(topic: topic, payload: payload) }
        link.start()
    }

    package func stop() {
        link.stop()
        remote.stop()
    }

    /// Sends an alarm's evidence trace (already within `evidence_max_kib`): once, not retained,
    /// and not through the outbox (a trace is too large to keep waiting on disk).
    package func evidence(_ trace: String) {
        link.send(topic: evidenceTopic, payload: trace)
    }

    /// An event: published through the outbox; shake and flip also move their retained state.
    package func event(_ r: EventRecord) {
        let device = config.device
        link.publishEvent(topic: eventTopic) { seq in
            Array(r.jsonValue.adding("device", .string(device)).adding("seq", .int(seq)).text.utf8)
        }
        // The retained state its kind declares (EventKinds): ON or OFF by its variant.
        let (kind, variant) = r.declared
        guard let retained = kind.retained else { return }
        if retained.on.contains(variant) {
            link.setRetained(topic: base + "/" + retained.topic, payload: "ON")
        } else if retained.off.contains(variant) {
            link.setRetained(topic: base + "/" + retained.topic, payload: "OFF")
        }
    }

    package func alarm(_ state: AlarmState, since: Int64, sinceWall: Int64 = WallClock.nowMicros(), lastTrigger: LastTrigger? = nil, walkTest: Bool = false,
                       sensorCheck: JSON? = nil, mode: ArmMode = .away) {
        var f: [(String, JSON)] = [("state", .string(EventRecord.alarmName(state))), ("since", .decimal(EventRecord.seconds(since))),
                                   ("since_utc", .string(WallClock.iso8601(sinceWall))), ("device", .string(config.device))]
        if mode != .away && state != .disarmed { f.append(("mode", .string(EventRecord.modeName(mode)))) }
        if walkTest { f.append(("walk_test", true)) }
        if let lastTrigger { f.append(("last_trigger", lastTrigger.jsonValue)) }
        if let sensorCheck { f.append(("sensor_check", sensorCheck)) }
        link.setRetained(topic: stateTopic, payload: JSON.members(f).text)
        // The alarm's own sensors (tamper) are on from their event until the alarm stops sounding.
        if state != .triggered {
            for s in EventKinds.states where s.alarmOnly { link.setRetained(topic: base + "/" + s.topic, payload: "OFF") }
        }
        if !available {
            available = true
            link.setRetained(topic: availabilityTopic, payload: "online")
        }
    }

    /// What keeps the alarm from keeping its word (none: OFF), retained.
    package func trouble(_ problems: [String]) {
        let payload: JSON = ["state": .string(problems.isEmpty ? "OFF" : "ON"), "problems": .list(problems.map { .string($0) })]
        link.setRetained(topic: troubleTopic, payload: payload.text)
    }

    /// The kiosk's tilt from level and its movement speed (absent while the alarm does not
    /// watch), retained: `{"tilt_deg":1.2,"speed_mm_s":3}`.
    package func measures(tiltDeci: Int32, speedMMs: Int32?) {
        var f: [(String, JSON)] = [("tilt_deg", .decimal(TraceWriter.decimal(Int64(tiltDeci), places: 1, trim: false)))]
        if let speedMMs { f.append(("speed_mm_s", .int(speedMMs))) }
        link.setRetained(topic: measuresTopic, payload: JSON.members(f).text)
    }

    package var commandFD: Int32 { commandWake.fd }

    /// Commands received since the last call (on the sampling thread).
    package func takeCommands() -> [[UInt8]?] {
        commandWake.drain()
        return lock.with {
            defer { commands.removeAll() }
            return commands
        }
    }

    /// Decides on a command: what to do, or why not. `{"command": "arm", "code": "…"}` or a bare
    /// `arm` / `disarm`; `trigger` (with the code), `{"command": "siren", "state": "on", "duration": 5}`
    /// and `test_buzzer` from Home Assistant's siren and button. Every command needs an
    /// authenticated connection and none passes a lockout; those of the alarm need the code.
    package func judge(_ given: [UInt8]?, now: Int64 = Sys.monotonicMicros()) -> CommandVerdict {
        guard let payload = given else { return CommandVerdict("?", "a command larger than \(MQTTLink.maxPayload) bytes: ignored") }
        var command = String(decoding: payload.filter { $0 != 0x0A }, as: UTF8.self).trimmingSpaces
        var code: String?
        var members: [(key: String, value: JSONNode)] = []
        if command.hasPrefix("{") {
            guard let node = try? JSONParser.parse(payload), case .object(let m) = node.value,
                  let c = m.first(where: { $0.key == "command" }), case .string(let name) = c.value.value else {
                return CommandVerdict("?", "a command is {\"command\": \"arm\" | \"disarm\", \"code\": \"…\"} or a bare arm or disarm")
            }
            members = m
            command = name
            if let k = m.first(where: { $0.key == "code" }), case .string(let s) = k.value.value { code = s }
        }
        command = command.lowercased()
        let mode: ArmMode = command == "arm_home" ? .home : command == "arm_night" ? .night : .away
        if command == "arm_away" || command == "arm_home" || command == "arm_night" { command = "arm" }
        let known = ["arm", "disarm", "trigger", "siren", "test_buzzer"]
        guard known.contains(command) else { return CommandVerdict(String(command.prefix(40)), "unknown command (\(known.joined(separator: ", ")))") }
        guard config.username != nil else {
            return CommandVerdict(command, "commands need an authenticated connection: set mqtt.username and a password, with anonymous access off on the broker")
        }
        let ofAlarm = command == "arm" || command == "disarm" || command == "trigger"
        if let why = notOffered(command, ofAlarm: ofAlarm) { return CommandVerdict(command, why) }
        var verdict = CommandVerdict(command, nil)
        verdict.mode = mode
        if command == "siren" {
            switch Self.siren(members) {
            case .success(let (on, seconds)):
                verdict.sirenOn = on
                verdict.durationSeconds = seconds
            case .failure(let why):
                return CommandVerdict(command, why.message)
            }
        }
        if let left = remote.lockedFor(now: now) {
            // Counted, neither logged nor answered: a flood of tries costs nothing.
            remote.refusedLocked()
            return CommandVerdict(command, "locked out for \(Self.duration(left)) after too many wrong codes", logged: false, answered: false)
        }
        if ofAlarm, let want = config.commandCode {
            guard let code, RemoteGuard.same(code, want) else {
                if let length = remote.failed(now: now) {
                    let what = "\(RemoteGuard.triesBeforeLockout) wrong codes: remote commands locked out for \(Self.duration(length))"
                    Log.warning("mqtt: \(what)")
                    return CommandVerdict(command, what, logged: false)
                }
                // Answered, not logged one by one: the lockout is what gets logged.
                return CommandVerdict(command, code == nil || code == "" ? "a code is required" : "wrong code", logged: false)
            }
            remote.succeeded(now: now)
        }
        return verdict
    }

    /// Why this board does not take `command` over MQTT at all, or nil.
    package func notOffered(_ command: String, ofAlarm: Bool) -> String? {
        if !ofAlarm { return buzzer == nil ? "this board has no buzzer (alarm.output, or an output)" : nil }
        if !hasAlarm { return "this board has no alarm" }
        if command == "disarm" && !config.remoteDisarm { return "disarm over MQTT is off: set mqtt.command_code (and remote_disarm) to allow it" }
        if command == "trigger" && !config.remoteTrigger { return "trigger over MQTT is off: set mqtt.remote_trigger to allow it" }
        return nil
    }

    /// A siren command's state and duration (s), from `{"command": "siren", "state": "on", "duration": 5}`.
    package static func siren(_ members: [(key: String, value: JSONNode)]) -> Result<(Bool, Int?), Refusal> {
        guard case .string(let state)? = members.first(where: { $0.key == "state" })?.value.value,
              state.lowercased() == "on" || state.lowercased() == "off" else {
            return .failure(Refusal(message: "a siren command is {\"command\": \"siren\", \"state\": \"on\" | \"off\", \"duration\": seconds}"))
        }
        guard let d = members.first(where: { $0.key == "duration" })?.value.value, d != .null else { return .success((state.lowercased() == "on", nil)) }
        guard case .number(let n) = d, let seconds = Int(n), (1...600).contains(seconds) else {
            return .failure(Refusal(message: "the siren's duration is a whole number of seconds, 1 to 600"))
        }
        return .success((state.lowercased() == "on", seconds))
    }

    package struct Refusal: Error { let message: String }

    package func answer(_ command: String, ok: Bool, error: String? = nil, state: AlarmState?) {
        var f: [(String, JSON)] = [("command", .string(command)), ("ok", .bool(ok))]
        if let e = error { f.append(("error", .string(e))) }
        if let s = state { f.append(("state", .string(EventRecord.alarmName(s)))) }
        f.append(("device", .string(config.device)))
        // Every answer sent, the last one retained: Home Assistant's "Last command" sensor shows
        // it after a restart too.
        link.send(topic: resultTopic, payload: JSON.members(f).text, retain: true)
    }

    /// "4 min", "1 h 4 min", "30 s".
    package static func duration(_ micros: Int64) -> String {
        let s = (micros + 999_999) / 1_000_000
        if s < 60 { return "\(s) s" }
        let m = (s + 59) / 60
        return m < 60 ? "\(m) min" : "\(m / 60) h\(m % 60 == 0 ? "" : " \(m % 60) min")"
    }
}
