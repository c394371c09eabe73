import JoltBuildInfo
import JoltJSON
import JoltCore
import JoltLinux
import JoltMQTT
import JoltTrace

/// What to do with a remote command: carry it out (no refusal), or refuse it — logged and
/// answered on the result topic unless it says otherwise.
struct CommandVerdict {
    let command: String
    let refusal: String?
    var logged = true
    var answered = true

    init(_ command: String, _ refusal: String?, logged: Bool = true, answered: Bool = true) {
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
final class MQTTBridge: @unchecked Sendable {
    let config: MQTTConfig
    let link: MQTTLink
    let commandWake: WakeChannel
    let lock = Lock()
    var commands: [[UInt8]?] = []
    /// Commands dropped because too many came at once.
    var droppedCommands = 0
    /// Wrong codes and lockouts, kept with the alarm's state.
    var remote: RemoteGuard
    let hasAlarm: Bool

    var base: String { config.topicPrefix + "/" + config.device }
    var eventTopic: String { base + "/event" }
    var stateTopic: String { base + "/state" }
    var availabilityTopic: String { base + "/availability" }
    var setTopic: String { base + "/set" }
    var resultTopic: String { base + "/result" }
    var shakeTopic: String { base + "/shake" }
    var faceDownTopic: String { base + "/face_down" }

    init(config: MQTTConfig, board: BoardProfile, stateDirectory: String? = nil) throws(JoltError) {
        self.config = config
        hasAlarm = board.alarm != nil
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
        if outbox.entries.count > 0 { Log.info("mqtt: \(outbox.entries.count) events from an earlier run wait in the outbox") }
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
        let where_ = "\(config.host):\(config.port)"
        let user = config.username
        link.onNote = { note in
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
        let h = config.host.lowercased()
        let loopback = h == "localhost" || h.hasPrefix("127.") || h == "::1" || h == "[::1]"
        if config.password != nil && config.caFile == nil && !loopback {
            Log.warning("mqtt: the password goes to \(config.host) in plain text: use TLS (mqtt.tls.ca_file, port 8883)")
        }
    }

    func start(board: BoardProfile, sensor: String, alarm: Alarm?) {
        link.setRetained(topic: availabilityTopic, payload: "online")
        if let a = alarm { self.alarm(a.state, since: a.since) }
        link.setRetained(topic: shakeTopic, payload: "OFF")
        link.setRetained(topic: faceDownTopic, payload: "OFF")
        if config.discovery {
            for (topic, payload) in discovery(board: board, sensor: sensor) { link.setRetained(topic: topic, payload: payload) }
        }
        link.start()
    }

    func stop() { link.stop() }

    /// An event: published through the outbox; shake and flip also move their retained state.
    func event(_ r: EventRecord) {
        let device = config.device
        link.publishEvent(topic: eventTopic) { seq in
            Array(r.jsonValue.adding("device", .string(device)).adding("seq", .int(seq)).text.utf8)
        }
        switch r.kind {
        case .shake(.began): link.setRetained(topic: shakeTopic, payload: "ON")
        case .shake(.ended), .shake(.cancelled): link.setRetained(topic: shakeTopic, payload: "OFF")
        case .flip(let s): link.setRetained(topic: faceDownTopic, payload: s == .faceDown ? "ON" : "OFF")
        default: break
        }
    }

    func alarm(_ state: AlarmState, since: Int64, sinceWall: Int64 = WallClock.nowMicros()) {
        let payload: JSON = ["state": .string(EventRecord.alarmName(state)), "since": .decimal(EventRecord.seconds(since)),
                             "since_utc": .string(WallClock.iso8601(sinceWall)), "device": .string(config.device)]
        link.setRetained(topic: stateTopic, payload: payload.text)
    }

    var commandFD: Int32 { commandWake.fd }

    /// Commands received since the last call (on the sampling thread).
    func takeCommands() -> [[UInt8]?] {
        commandWake.drain()
        return lock.with {
            defer { commands.removeAll() }
            return commands
        }
    }

    /// Decides on a command: what to do, or why not. `{"command": "arm", "code": "…"}` or a bare
    /// `arm` / `disarm`.
    func judge(_ given: [UInt8]?, now: Int64 = WallClock.nowMicros()) -> CommandVerdict {
        guard let payload = given else { return CommandVerdict("?", "a command larger than \(MQTTLink.maxPayload) bytes: ignored") }
        var command = String(decoding: payload.filter { $0 != 0x0A }, as: UTF8.self).trimmingSpaces
        var code: String?
        if command.hasPrefix("{") {
            guard let node = try? JSONParser.parse(payload), case .object(let members) = node.value,
                  let c = members.first(where: { $0.key == "command" }), case .string(let name) = c.value.value else {
                return CommandVerdict("?", "a command is {\"command\": \"arm\" | \"disarm\", \"code\": \"…\"} or a bare arm or disarm")
            }
            command = name
            if let k = members.first(where: { $0.key == "code" }), case .string(let s) = k.value.value { code = s }
        }
        command = command.lowercased()
        if command == "arm_away" || command == "arm_home" || command == "arm_night" { command = "arm" }
        guard command == "arm" || command == "disarm" else { return CommandVerdict(String(command.prefix(40)), "unknown command (arm, disarm)") }
        guard config.username != nil else {
            return CommandVerdict(command, "commands need an authenticated connection: set mqtt.username and a password, with anonymous access off on the broker")
        }
        guard hasAlarm else { return CommandVerdict(command, "this board has no alarm") }
        if command == "disarm" && !config.remoteDisarm {
            return CommandVerdict(command, "disarm over MQTT is off: set mqtt.command_code (and remote_disarm) to allow it")
        }
        if let left = remote.lockedFor(now: now) {
            // Counted, neither logged nor answered: a flood of tries costs nothing.
            remote.refusedLocked()
            return CommandVerdict(command, "locked out for \(Self.duration(left)) after too many wrong codes", logged: false, answered: false)
        }
        if let want = config.commandCode {
            guard let code, RemoteGuard.same(code, want) else {
                if let length = remote.failed(now: now) {
                    let what = "\(RemoteGuard.triesBeforeLockout) wrong codes: remote commands locked out for \(Self.duration(length))"
                    Log.warning("mqtt: \(what)")
                    return CommandVerdict(command, what, logged: false)
                }
                // Answered, not logged one by one: the lockout is what gets logged.
                return CommandVerdict(command, code == nil || code == "" ? "a code is required" : "wrong code", logged: false)
            }
            remote.succeeded()
        }
        return CommandVerdict(command, nil)
    }

    func answer(_ command: String, ok: Bool, error: String? = nil, state: AlarmState?) {
        var f: [(String, JSON)] = [("command", .string(command)), ("ok", .bool(ok))]
        if let e = error { f.append(("error", .string(e))) }
        if let s = state { f.append(("state", .string(EventRecord.alarmName(s)))) }
        f.append(("device", .string(config.device)))
        link.send(topic: resultTopic, payload: JSON.members(f).text)
    }

    /// "4 min", "1 h 4 min", "30 s".
    static func duration(_ micros: Int64) -> String {
        let s = (micros + 999_999) / 1_000_000
        if s < 60 { return "\(s) s" }
        let m = (s + 59) / 60
        return m < 60 ? "\(m) min" : "\(m / 60) h\(m % 60 == 0 ? "" : " \(m % 60) min")"
    }

    /// Home Assistant MQTT discovery: (topic, retained config) for each entity.
    func discovery(board: BoardProfile, sensor: String) -> [(String, String)] {
        let d = config.device
        let device: JSON = ["identifiers": [.string("jolt_" + d)], "name": .string("Jolt " + d), "manufacturer": "Jolt",
                            "model": .string(sensor), "sw_version": .string(BuildInfo.description)]
        let common: [(String, JSON)] = [("availability_topic", .string(availabilityTopic)), ("payload_available", "online"),
                                        ("payload_not_available", "offline"), ("device", device)]
        func entity(_ component: String, _ object: String, _ f: [(String, JSON)]) -> (String, String) {
            ("\(config.discoveryPrefix)/\(component)/\(d)/\(object)/config", JSON.members(f + common).text)
        }
        var out: [(String, String)] = []
        if hasAlarm {
            let code = config.commandCode != nil
            var f: [(String, JSON)] = [("name", "Alarm"), ("unique_id", .string("jolt_" + d + "_alarm")), ("state_topic", .string(stateTopic)),
                     ("value_template", "{{ {'disarmed': 'disarmed', 'arming': 'arming', 'armed': 'armed_away', 'triggered': 'triggered'}[value_json.state] }}"),
                     ("command_topic", .string(setTopic)), ("command_template", "{\"command\": \"{{ action }}\", \"code\": \"{{ code }}\"}"),
                     ("payload_arm_away", "arm"), ("payload_disarm", "disarm"), ("supported_features", ["arm_away"]),
                     ("code_arm_required", .bool(code)), ("code_disarm_required", .bool(code))]
            if code { f.append(("code", "REMOTE_CODE")) }
            out.append(entity("alarm_control_panel", "alarm", f))
        }
        out.append(entity("sensor", "last_event", [("name", "Last event"), ("unique_id", .string("jolt_" + d + "_last_event")), ("state_topic", .string(eventTopic)),
            ("value_template", "{{ value_json.event }}{% if value_json.phase is defined %} {{ value_json.phase }}{% endif %}{% if value_json.state is defined %} {{ value_json.state }}{% endif %}"),
            ("json_attributes_topic", .string(eventTopic)), ("icon", "mdi:gesture-tap")]))
        out.append(entity("binary_sensor", "shake", [("name", "Shake"), ("unique_id", .string("jolt_" + d + "_shake")), ("state_topic", .string(shakeTopic)),
            ("payload_on", "ON"), ("payload_off", "OFF"), ("device_class", "vibration")]))
        out.append(entity("binary_sensor", "face_down", [("name", "Face down"), ("unique_id", .string("jolt_" + d + "_face_down")), ("state_topic", .string(faceDownTopic)),
            ("payload_on", "ON"), ("payload_off", "OFF"), ("icon", "mdi:flip-vertical")]))
        return out
    }
}
