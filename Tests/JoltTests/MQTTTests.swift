import Foundation
import JoltBuildInfo
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltCore
import JoltLinux
import JoltMotion
import JoltMQTT
import JoltTrace
import JoltTestSupport
import Testing

/// A real Mosquitto broker on a loopback port of its own, authentication on, anonymous off.
final class Broker: @unchecked Sendable {
    let dir: String
    var port = 0
    var process: Process?
    /// With TLS: the CA that signed the broker's certificate (for 127.0.0.1).
    var caFile: String?
    static let user = "kiosk", password = "s3cret"

    init(tls: Bool = false) throws {
        dir = NSTemporaryDirectory() + "broker-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let pw = Process()
        pw.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
        pw.arguments = ["-b", "-c", dir + "/passwd", Self.user, Self.password]
        try pw.run()
        pw.waitUntilExit()
        try #require(pw.terminationStatus == 0, "mosquitto_passwd (Debian: mosquitto)")
        if tls {
            // A CA, and a certificate for 127.0.0.1 that it signs.
            let script = """
                set -e; cd '\(dir)'
                openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=jolt-test-ca -keyout ca.key -out ca.crt 2>/dev/null
                openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key -out server.csr 2>/dev/null
                printf 'subjectAltName=IP:127.0.0.1\\n' > ext.cnf
                openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile ext.cnf -out server.crt 2>/dev/null
                chmod 644 server.key
                """
            let o = Process()
            o.executableURL = URL(fileURLWithPath: "/bin/sh")
            o.arguments = ["-c", script]
            try o.run()
            o.waitUntilExit()
            try #require(o.terminationStatus == 0, "openssl made the test certificates")
            caFile = dir + "/ca.crt"
        }
        // A port of its own: try a few until one is free.
        for _ in 0..<20 {
            let p = Int.random(in: 20_000...60_000)
            if try start(port: p) { port = p; break }
        }
        try #require(port != 0, "no free port for the broker")
    }

    /// Starts the broker on `port`; false when the port is taken.
    @discardableResult
    func start(port p: Int? = nil) throws -> Bool {
        let port = p ?? self.port
        var conf = "listener \(port) 127.0.0.1\nallow_anonymous false\npassword_file \(dir)/passwd\npersistence false\nlog_dest stderr\n"
        if caFile != nil { conf += "cafile \(dir)/ca.crt\ncertfile \(dir)/server.crt\nkeyfile \(dir)/server.key\n" }
        try conf.write(toFile: dir + "/mosquitto.conf", atomically: true, encoding: .utf8)
        let b = Process()
        b.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        b.arguments = ["-c", dir + "/mosquitto.conf"]
        let log = Pipe()
        b.standardError = log
        b.standardOutput = log
        try b.run()
        // Ready when it accepts a connection.
        for _ in 0..<100 {
            if !b.isRunning { return false }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            a.sin_addr.s_addr = inet_addr("127.0.0.1")
            let ok = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
            close(fd)
            if ok { process = b; return true }
            usleep(20_000)
        }
        kill(b.processIdentifier, SIGKILL)   // not terminate(): see stop()
        b.waitUntilExit()
        return false
    }

    /// Stops the broker at once, as a crash or a power cut would (SIGKILL: a process started
    /// from a thread that blocked SIGTERM, as an in-process jolt run does, inherits the block).
    func stop() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }

    deinit { stop() }

    /// A subscriber (mosquitto_sub) printing "topic payload" per message.
    func subscribe(_ topics: [String], user: String = Broker.user, password: String = Broker.password, format: String? = nil) throws -> Subscriber {
        try Subscriber(port: port, topics: topics, user: user, password: password, caFile: caFile, format: format)
    }

    /// Publishes each line as a message, in order, with one mosquitto_pub.
    func publish(lines: String, to topic: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        p.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-u", Self.user, "-P", Self.password, "-q", "1", "-t", topic, "-l"]
        let input = Pipe()
        p.standardInput = input
        try p.run()
        input.fileHandleForWriting.write(Data(lines.utf8))
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
    }

    /// Publishes one message with mosquitto_pub.
    func publish(_ topic: String, _ message: String, retain: Bool = false) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        p.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-u", Self.user, "-P", Self.password, "-q", "1", "-t", topic, "-m", message] + (retain ? ["-r"] : [])
        try p.run()
        p.waitUntilExit()
    }

    func mqttConfig(device: String = "kiosk-1", password: String = Broker.password, outbox: String? = nil, ca: String? = nil) -> String {
        let tls = (ca ?? caFile).map { #""tls": { "ca_file": "\#($0)" }, "port": \#(port), "#} ?? #""port": \#(port), "#
        return #""mqtt": { "host": "127.0.0.1", \#(tls)"device": "\#(device)", "username": "\#(Self.user)", "password": "\#(password)", "outbox": { "path": "\#(outbox ?? dir + "/outbox-" + UUID().uuidString.prefix(6))" } },"#
    }
}

final class Subscriber: @unchecked Sendable {
    let process = Process()
    let pipe = Pipe()
    let lock = NSLock()
    var text = ""

    /// `format`: mosquitto_sub's -F (what it prints of each message) instead of -v's "topic payload".
    init(port: Int, topics: [String], user: String, password: String, caFile: String? = nil, format: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        process.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-u", user, "-P", password, "-q", "1"] + (format.map { ["-F", $0] } ?? ["-v"])
            + topics.flatMap { ["-t", $0] } + (caFile.map { ["--cafile", $0] } ?? [])
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self, !d.isEmpty else { return }
            self.lock.lock()
            self.text += String(decoding: d, as: UTF8.self)
            self.lock.unlock()
        }
        try process.run()
    }

    /// What mosquitto_sub printed so far.
    var output: String {
        lock.lock()
        defer { lock.unlock() }
        return text
    }

    /// (topic, payload) per message so far.
    var messages: [(String, String)] {
        lock.lock()
        defer { lock.unlock() }
        return text.split(separator: "\n").map { l in
            let s = l.split(separator: " ", maxSplits: 1)
            return (String(s[0]), s.count > 1 ? String(s[1]) : "")
        }
    }

    func wait(until cond: ([(String, String)]) -> Bool, timeout: Double = 10) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if cond(messages) { return true }
            usleep(20_000)
        }
        return cond(messages)
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
    }
}

func json(_ s: String) -> [String: Any]? { try? JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any] }

/// A run's `--json` lines as objects (a line that is not one reads as an empty object, which no
/// test's question matches).
func jsonLines<S: StringProtocol>(_ text: S) -> [[String: Any]] { text.split(separator: "\n").map { json(String($0)) ?? [:] } }

/// Whether `o` is an event of `kind` ("alarm") with its variant (`state`, `phase`) `variant`, if given.
func isEvent(_ o: [String: Any], _ kind: String, _ variant: String? = nil) -> Bool {
    o["event"] as? String == kind && (variant == nil || (o["state"] ?? o["phase"]) as? String == variant)
}

/// Whether the JSON text `s` (a reply, a saved state) has `state` as its "state".
func says(_ s: String, state: String) -> Bool { json(s)?["state"] as? String == state }

/// A trace with a shake every 3 s (about 2 events each), `count` of them.
func shakesTrace(count: Int) -> String {
    var m = Motion(rate: 100, seed: 17)
    for _ in 0..<count {
        m.rest(1.5)
        m.shake(freq: 5, amp: 2.2, axis: V3(1, 0, 0), seconds: 1.2)
    }
    m.rest(2)
    var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
    for s in m.take() { text += TraceWriter.row(s, gyro: true) }
    return tempFile(text, name: "shakes.csv")
}

@Suite("MQTT against a real Mosquitto broker", .serialized)
struct MQTTTests {
    @Test("every event in order on jolt/<device>/event; the state, availability and Home Assistant discovery retained and valid")
    func events() throws {
        let broker = try Broker()
        let sub = try broker.subscribe(["jolt/#", "homeassistant/#"])
        defer { sub.stop() }
        let sock = socketPath()
        let board = try kioskBoard(socket: sock, extra: broker.mqttConfig())
        let out = TextOutput.capturing()
        var o = RunCommand.Options(json: true)
        let play = Playback(fast: true, trace: liftTrace())
        o.limitMicros = 8_000_000
        var emitted: [String] = []
        try RunCommand(board: try BoardProfile.load(path: board), playing: play, options: o, out: out, watcher: Hooks(event: { e, _ in emitted.append(e.json) })).run()
        #expect(sub.wait { $0.filter { $0.0 == "jolt/kiosk-1/event" }.count >= emitted.count && $0.contains { $0.0 == "jolt/kiosk-1/availability" && $0.1 == "offline" } })
        let msgs = sub.messages
        let events = msgs.filter { $0.0 == "jolt/kiosk-1/event" }.map(\.1)
        #expect(events.count == emitted.count && emitted.count >= 4, "\(events.count) of \(emitted.count)")
        var lastSeq = 0
        for (got, want) in zip(events, emitted) {
            let g = try #require(json(got)), w = try #require(json(want))
            #expect(g["event"] as? String == w["event"] as? String && g["t"] as? Double == w["t"] as? Double, "\(got) vs \(want)")
            #expect(g["device"] as? String == "kiosk-1")
            let seq = try #require(g["seq"] as? Int)
            #expect(seq > lastSeq, "seq increases")
            lastSeq = seq
        }
        #expect(events.contains { json($0).map { isEvent($0, "alarm", "triggered") } == true })
        // Availability: online first, offline (a clean stop) last.
        let availability = msgs.filter { $0.0 == "jolt/kiosk-1/availability" }.map(\.1)
        #expect(availability.first == "online" && availability.last == "offline")
        let states = msgs.filter { $0.0 == "jolt/kiosk-1/state" }.compactMap { json($0.1)?["state"] as? String }
        #expect(states.last == "triggered", "\(states)")
        // Discovery: valid JSON with what Home Assistant requires.
        let discovery = msgs.filter { $0.0.hasPrefix("homeassistant/") && !$0.1.isEmpty && $0.1 != "(null)" }
        #expect(Set(discovery.map(\.0)) == Set(["alarm_control_panel/kiosk-1/alarm", "sensor/kiosk-1/last_command", "event/kiosk-1/shake", "event/kiosk-1/flip",
                                                "event/kiosk-1/tamper", "event/kiosk-1/walk_test", "siren/kiosk-1/buzzer", "button/kiosk-1/test_buzzer", "binary_sensor/kiosk-1/tamper",
                                                "binary_sensor/kiosk-1/problem", "binary_sensor/kiosk-1/trouble", "binary_sensor/kiosk-1/shake", "binary_sensor/kiosk-1/face_down",
                                                "sensor/kiosk-1/tilt", "sensor/kiosk-1/speed"].map { "homeassistant/\($0)/config" }))
        for (topic, payload) in discovery {
            let d = try #require(json(payload), "\(topic): valid JSON")
            for key in ["name", "unique_id", "availability_topic", "device", "origin"] { #expect(d[key] != nil, "\(topic) has \(key)") }
            #expect(d["state_topic"] != nil || d["command_topic"] != nil, "\(topic)")
            #expect(((d["device"] as? [String: Any])?["identifiers"] as? [String]) == ["jolt_kiosk-1"])
            #expect(((d["device"] as? [String: Any])?["sw_version"] as? String)?.hasPrefix(BuildInfo.version + " (commit ") == true, "\(topic): sw_version")
            if topic.contains("alarm_control_panel") {
                #expect(d["command_topic"] as? String == "jolt/kiosk-1/set" && d["payload_arm_away"] as? String == "arm" && d["payload_disarm"] as? String == "disarm")
            }
        }
        // The old last-event sensor: an empty retained configuration removes it.
        #expect(msgs.contains { $0.0 == "homeassistant/sensor/kiosk-1/last_event/config" && ($0.1.isEmpty || $0.1 == "(null)") }, "removal published")
        // Retained: a subscriber arriving later sees the last state and the discovery.
        let late = try broker.subscribe(["jolt/kiosk-1/state", "homeassistant/#"])
        defer { late.stop() }
        #expect(late.wait { $0.count >= 5 }, "\(late.messages)")
        #expect(late.messages.contains { $0.0 == "jolt/kiosk-1/state" && $0.1.contains("triggered") })
    }

    @Test("evidence over MQTT: with mqtt.evidence_max_kib, the alarm's evidence trace arrives on jolt/<device>/evidence, trimmed around the trigger to fit; the file keeps it whole")
    func evidence() throws {
        let broker = try Broker()
        // Each message as "topic length" on a line, then its payload: the evidence, whole and
        // exactly. The run publishes it once, so the subscriber must be in first: it is once it
        // hears a probe on a topic of the same subscription.
        let sub = try broker.subscribe(["jolt/kiosk-1/probe", "jolt/kiosk-1/evidence"], format: "%t %l\n%p")
        defer { sub.stop() }
        let subscribed = sub.wait(until: { _ in
            if sub.output.contains("jolt/kiosk-1/probe ") { return true }
            try? broker.publish("jolt/kiosk-1/probe", "?")
            return false
        }, timeout: 30)
        try #require(subscribed, "the subscriber hears its probe: \(sub.output)")
        let state = NSTemporaryDirectory() + "jolt-evidence-mqtt-\(UUID().uuidString.prefix(8))"
        let mqtt = broker.mqttConfig().edited("\"outbox\":", "\"evidence_max_kib\": 8, \"outbox\":")
        let board = try kioskBoard(socket: socketPath(), extra: mqtt)
        // In real time, as a kiosk runs: the evidence goes once, to a broker that is there, and a
        // run replayed as fast as it reads can end before its link has connected on a busy machine.
        var o = RunCommand.Options(json: true)
        let play = Playback(trace: liftTrace())
        o.limitMicros = 8_000_000
        o.stateDirectory = state
        var triggered: [String: Any]?
        let hooks = Hooks(event: { e, _ in if let j = json(e.json), j["state"] as? String == "triggered" { triggered = j } })
        try RunCommand(board: try BoardProfile.load(path: board), playing: play, options: o, out: TextOutput.capturing(), watcher: hooks).run()
        let trigger = try #require(triggered, "the lift triggers the alarm")
        let path = try #require(trigger["evidence"] as? String)
        func evidence() -> [UInt8]? {
            let out = Array(sub.output.utf8), head = Array("jolt/kiosk-1/evidence ".utf8)
            guard let at = (0...max(out.count - head.count, 0)).first(where: { out.count >= head.count && Array(out[$0..<$0 + head.count]) == head }),
                  let eol = out[(at + head.count)...].firstIndex(of: 10),
                  let length = Int(String(decoding: out[(at + head.count)..<eol], as: UTF8.self)), out.count >= eol + 1 + length else { return nil }
            return Array(out[(eol + 1)..<(eol + 1 + length)])
        }
        try #require(sub.wait(until: { _ in evidence() != nil }, timeout: 30), "the evidence arrives: \(sub.output.prefix(300))")
        let data = evidence() ?? []
        let sent = String(decoding: data, as: UTF8.self)
        #expect(data.count <= 8 * 1024, "\(data.count) bytes")
        #expect(sent.hasPrefix("# jolt-trace v1\n") && sent.contains("# trimmed: kept ") && sent.contains("to fit mqtt.evidence_max_kib"), "\(sent.prefix(600))")
        let whole = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!whole.contains("# trimmed:") && whole.utf8.count > 8 * 1024, "the file is whole: \(whole.utf8.count) bytes")
        let rows = sent.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("t,") }
        let times = rows.compactMap { Double(String($0.split(separator: ",")[0])) }
        let t = try #require(trigger["t"] as? Double)
        #expect(rows.count > 50 && times.count == rows.count, "\(rows.count) rows")
        #expect((times.first ?? .infinity) <= t && t <= (times.last ?? -1), "\(times.first ?? 0) … \(times.last ?? 0) around \(t)")
        let fileRows = Set(whole.split(separator: "\n").filter { !$0.hasPrefix("#") })
        #expect(rows.allSatisfy { fileRows.contains($0) }, "the rows sent are the file's")
    }

    @Test("arm and disarm over MQTT change the alarm; a wrong or missing code is refused and answered; jolt status agrees")
    func commands() throws {
        let broker = try Broker()
        let sub = try broker.subscribe(["jolt/kiosk-2/result", "jolt/kiosk-2/state"])
        defer { sub.stop() }
        let sock = socketPath()
        let mqtt = broker.mqttConfig(device: "kiosk-2").edited(#""device": "kiosk-2","#, #""device": "kiosk-2", "command_code": "4711","#)
        let board = try kioskBoard(socket: sock, extra: mqtt)
        var o = RunCommand.Options(json: true)
        let play = Playback(trace: stillTrace(up: V3(0, 0, 1), seconds: 60))
        o.limitMicros = 9_000_000
        let cmd = try RunCommand(board: try BoardProfile.load(path: board), playing: play, options: o, out: TextOutput.capturing())
        let t = BackgroundRun(cmd)
        defer { _ = t.finish() }
        #expect(sub.wait { $0.contains { $0.0 == "jolt/kiosk-2/state" && $0.1.contains("\"armed\"") } }, "armed at start: \(sub.messages)")
        func result(_ n: Int) -> [String: Any]? { sub.messages.filter { $0.0 == "jolt/kiosk-2/result" }.dropFirst(n).first.flatMap { json($0.1) } }
        try broker.publish("jolt/kiosk-2/set", #"{"command": "disarm", "code": "1111"}"#)
        #expect(sub.wait { _ in result(0) != nil })
        #expect(result(0)?["ok"] as? Bool == false && result(0)?["error"] as? String == "wrong code")
        try broker.publish("jolt/kiosk-2/set", "disarm")
        #expect(sub.wait { _ in result(1) != nil })
        #expect(result(1)?["error"] as? String == "a code is required")
        #expect(reply("status", sock)["state"] as? String == "armed")
        try broker.publish("jolt/kiosk-2/set", #"{"command": "disarm", "code": "4711"}"#)
        #expect(sub.wait { _ in result(2) != nil })
        #expect(result(2)?["ok"] as? Bool == true && result(2)?["state"] as? String == "disarmed")
        #expect(reply("status", sock)["state"] as? String == "disarmed")
        try broker.publish("jolt/kiosk-2/set", #"{"command": "arm", "code": "4711"}"#)
        #expect(sub.wait { $0.contains { $0.0 == "jolt/kiosk-2/state" && $0.1.contains("\"arming\"") } })
        try broker.publish("jolt/kiosk-2/set", "self-destruct")
        #expect(sub.wait { _ in result(4) != nil })
        #expect((result(4)?["error"] as? String)?.hasPrefix("unknown command") == true)
    }

    @Test("a wrong password is refused with a clear error; the alarm still runs and its events wait in the outbox")
    func wrongPassword() throws {
        let broker = try Broker()
        let outbox = broker.dir + "/outbox-wrong"
        let board = try kioskBoard(socket: socketPath(), extra: broker.mqttConfig(password: "guess", outbox: outbox))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: packageRoot + "/.build/debug/jolt")
        p.arguments = ["run", "--board", board, "--trace", liftTrace(), "--fast", "--json", "--seconds", "8"]
        let err = Pipe(), out = Pipe()
        p.standardError = err
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let events = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 0)
        let refused = log.split(separator: "\n").filter { $0.contains("refused the connection") }
        #expect(refused.count == 1, "said once: \(log)")
        #expect(refused.first?.contains("refused the connection: not authorised — check mqtt.username (kiosk) and the password;") == true, "\(log)")
        #expect(jsonLines(events).contains { isEvent($0, "alarm", "triggered") }, "the alarm works without the broker")
        let waiting = try FileManager.default.contentsOfDirectory(atPath: outbox).filter { $0.hasSuffix(".msg") }
        #expect(waiting.count == events.split(separator: "\n").count && waiting.count >= 4, "\(waiting.count) events in the outbox")
    }

    @Test("the broker stopped for 30 s of events and restarted: every event raised meanwhile arrives, in order, once; the outbox drains")
    func outage() throws {
        let broker = try Broker()
        var subs = [try broker.subscribe(["jolt/kiosk-3/event"])]
        let board = try BoardProfile.load(path: tempFile("{ \"bus\": \"sim\", \"rate_hz\": 100, \(broker.mqttConfig(device: "kiosk-3")) \"sim\": { \"motion\": \"rest\" } }", name: "mqtt.json"))
        var o = RunCommand.Options(json: true)
        let play = Playback(fast: true, trace: shakesTrace(count: 20))
        o.control = false
        var emitted: [(t: Int64, name: String)] = []
        let hooks = Hooks(event: { e, _ in emitted.append((e.t, e.bindingName)) })
        let cmd = try RunCommand(board: board, playing: play, options: o, out: TextOutput.capturing(), watcher: hooks)
        var phase = 0
        var drainSeconds = 0.0
        var duringOutage = 0
        // The hook holds the command and the broker, and the command holds the hook: undone at
        // the end, or the restarted broker outlives the test.
        defer { hooks.wake = nil; broker.stop() }
        hooks.wake = { now in
            guard let link = cmd.service?.bridge?.link else { return }
            func waitFor(_ what: String, _ cond: () -> Bool) {
                let end = Date().addingTimeInterval(20)
                while !cond() && Date() < end { usleep(10_000) }
                if !cond() { Issue.record("timed out waiting for \(what)") }
            }
            if phase == 0 { waitFor("the connection") { link.isConnected }; phase = 1 }
            if phase == 1 && now >= 15_000_000 {
                waitFor("the events before the outage") { link.pending == 0 }
                broker.stop()
                subs[0].stop()
                waitFor("the link to notice") { !link.isConnected }
                duringOutage = emitted.count
                phase = 2
            }
            if phase == 2 && now >= 45_000_000 {
                duringOutage = emitted.count - duringOutage
                #expect(link.pending == duringOutage, "\(link.pending) waiting, \(duringOutage) raised")
                _ = try? broker.start()
                subs.append(try! broker.subscribe(["jolt/kiosk-3/event", "test/ready"]))
                try? broker.publish("test/ready", "1", retain: true)
                waitFor("the new subscriber") { subs[1].messages.contains { $0.0 == "test/ready" } }
                let restarted = Date()
                waitFor("the outbox to drain") { link.pending == 0 }
                drainSeconds = Date().timeIntervalSince(restarted)
                phase = 3
            }
        }
        try cmd.run()
        #expect(subs[1].wait { _ in subs[0].messages.count + subs[1].messages.count - 1 >= emitted.count })
        let all = (subs[0].messages.map(\.1) + subs[1].messages.filter { $0.0 == "jolt/kiosk-3/event" }.map(\.1)).compactMap(json)
        subs[1].stop()
        #expect(duringOutage >= 15, "\(duringOutage) events raised during the outage")
        #expect(all.count == emitted.count, "\(all.count) arrived of \(emitted.count) raised")
        let seqs = all.compactMap { $0["seq"] as? Int }
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "in order, each once")
        for (g, w) in zip(all, emitted) {
            #expect(Int64(((g["t"] as? Double ?? -1) * 1e6).rounded()) == w.t, "\(g) vs \(w)")
        }
        print("mqtt outage: \(duringOutage) events raised while the broker was down; outbox drained \(String(format: "%.3f", drainSeconds)) s after the broker came back")
        #expect(drainSeconds < 10)
    }

    @Test("publishing rate: 2000 events through the on-disk outbox to the broker, each acknowledged (QoS 1)")
    func rate() throws {
        let broker = try Broker()
        var s = MQTTLink.Settings()
        s.host = "127.0.0.1"
        s.port = broker.port
        s.username = Broker.user
        s.password = Broker.password
        s.clientID = "rate-test"
        let outbox = try Outbox(directory: broker.dir + "/rate-outbox", capacity: 100_000)
        let link = try MQTTLink(settings: s, outbox: outbox)
        link.start()
        defer { link.stop() }
        let end = Date().addingTimeInterval(10)
        while !link.isConnected && Date() < end { usleep(5000) }
        try #require(link.isConnected)
        let n = 2000
        let start = Date()
        for i in 0..<n { link.publishEvent(topic: "jolt/rate/event") { seq in Array("{\"i\":\(i),\"seq\":\(seq)}".utf8) } }
        while link.published < n && Date().timeIntervalSince(start) < 60 { usleep(2000) }
        let seconds = Date().timeIntervalSince(start)
        #expect(link.published == n && link.pending == 0)
        print("mqtt publishing rate: \(n) events in \(String(format: "%.3f", seconds)) s = \(Int(Double(n) / seconds)) events/s (each written and fsync'd to the outbox, published at QoS 1 and acknowledged)")
    }

    @Test("TLS: events reach a broker that checks nothing less than its certificate against the CA; a wrong CA is refused with a clear error")
    func tls() throws {
        let broker = try Broker(tls: true)
        let sub = try broker.subscribe(["jolt/kiosk-4/event"])
        defer { sub.stop() }
        let run = jolt(["run", "--board", try kioskBoard(socket: socketPath(), extra: broker.mqttConfig(device: "kiosk-4")), "--trace", liftTrace(), "--fast", "--json", "--seconds", "8"])
        #expect(run.code == .ok, "\(run.error)")
        let raised = run.out.split(separator: "\n").count
        #expect(sub.wait { $0.count >= raised } && raised >= 4, "\(sub.messages.count) of \(raised) over TLS")
        // Another CA: the broker's certificate does not check out, and Jolt says so.
        let other = try Broker(tls: true)
        defer { other.stop() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: packageRoot + "/.build/debug/jolt")
        p.arguments = ["run", "--board", try kioskBoard(socket: socketPath(), extra: broker.mqttConfig(device: "kiosk-5", ca: other.caFile)), "--trace", liftTrace(), "--fast", "--seconds", "4"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 0)
        #expect(log.split(separator: "\n").filter { $0.contains("mqtt: cannot reach the broker") && $0.contains("TLS") }.count == 1, "\(log)")
    }

    @Test("a full outbox drops the oldest and counts them; events survive a restart in order")
    func outboxBounds() throws {
        let dir = NSTemporaryDirectory() + "outbox-\(UUID().uuidString.prefix(8))"
        let o = try Outbox(directory: dir, capacity: 3)
        for i in 1...5 { o.append(Outbox.Entry(seq: UInt64(i), topic: "t", payload: Array("e\(i)".utf8))) }
        #expect(o.entries.map(\.seq) == [3, 4, 5] && o.dropped == 2)
        o.remove(seq: 4)
        let again = try Outbox(directory: dir, capacity: 3)
        #expect(again.entries.map(\.seq) == [3, 5] && again.entries.map { String(decoding: $0.payload, as: UTF8.self) } == ["e3", "e5"])
        #expect(throws: Errno.self) { _ = try Outbox(directory: "/proc/no-outbox-here", capacity: 3) }
    }

    @Test("mqtt settings: bad values are refused with the field's path")
    func config() {
        let cases: [(String, String)] = [
            (#"{"port": 1883}"#, "mqtt.host"),
            (#"{"host": "b", "port": 0}"#, "mqtt.port"),
            (#"{"host": "b", "device": "kiosk/1"}"#, "mqtt.device: must be letters"),
            (#"{"host": "b", "password": "x"}"#, "mqtt.username: missing"),
            (#"{"host": "b", "username": "u", "password": "x", "password_file": "/etc/hostname"}"#, "not both"),
            (#"{"host": "b", "username": "u", "password_file": "/nonexistent/pw"}"#, "/nonexistent/pw"),
            (#"{"host": "b", "tls": {}}"#, "mqtt.tls.ca_file: missing"),
            (#"{"host": "b", "outbox": {"max_events": 0}}"#, "mqtt.outbox.max_events"),
            (#"{"host": "b", "qos": 2}"#, "mqtt.qos: unknown key"),
            // Keys read twice (port, keepalive_s) are listed once.
            (#"{"host": "b", "zzzzzzzzzzz": 2}"#, "(known keys: host, port, device, client_id, username, password, password_file, tls, keepalive_s, topic_prefix,"),
        ]
        for (mqtt, message) in cases {
            let r = jolt(["run", "--board", tempFile("{\"mqtt\": \(mqtt)}", name: "m.json"), "--fast", "--seconds", "1"])
            #expect(r.code != .ok && r.error.contains(message), "\(mqtt): \(r.error)")
        }
    }
}

@Suite("MQTT commands that cannot be guessed or flooded", .serialized)
struct MQTTAttackTests {
    /// `jolt run` on the kiosk board lifted at once (triggered within seconds, and sounding until
    /// disarmed), with `mqtt`.
    func triggeredKiosk(_ sock: String, mqtt: String, stateDir: String? = nil) throws -> BackgroundJolt {
        let board = try kioskBoard(socket: sock, extra: mqtt, untilDisarmed: true)
        return try BackgroundJolt(["run", "--board", board, "--trace", liftTrace(), "--fast", "--forever"] + (stateDir.map { ["--state-dir", $0] } ?? []))
    }

    func waitTriggered(_ sock: String) -> Bool {
        waitForAlarm(sock, "triggered")
    }

    /// Until the broker holds jolt's state as triggered. Jolt subscribes to its set topic as it
    /// connects, before it publishes any state on that connection, so a command sent after this
    /// is heard; one sent as soon as the socket says triggered may reach the broker first, and be
    /// lost.
    func waitHeard(_ broker: Broker) throws -> Bool {
        let state = try broker.subscribe(["jolt/kiosk-1/state"])
        defer { state.stop() }
        return state.wait { $0.contains { $0.1.contains("\"triggered\"") } }
    }

    @Test("without a command code, disarm over MQTT is refused; remote_disarm without a code is a configuration error")
    func noCodeNoDisarm() throws {
        let broker = try Broker()
        let sub = try broker.subscribe(["jolt/kiosk-1/result"])
        defer { sub.stop() }
        let sock = socketPath()
        let run = try triggeredKiosk(sock, mqtt: broker.mqttConfig())
        defer { _ = run.stop() }
        #expect(waitTriggered(sock), "\(run.stderr)")
        #expect(try waitHeard(broker), "the broker never held the state: \(run.stderr)")
        try broker.publish("jolt/kiosk-1/set", "disarm")
        #expect(sub.wait { $0.contains { $0.1.contains("disarm over MQTT is off") } }, "\(sub.messages)")
        #expect(alarmState(sock) == "triggered")
        let bad = tempFile(#"{"bus": "sim", "mqtt": {"host": "h", "username": "u", "password": "p", "remote_disarm": true}}"#, name: "bad.json")
        let r = joltBinary(["run", "--board", bad, "--fast", "--seconds", "1"])
        #expect(r.code == 78 && r.error.contains("mqtt.remote_disarm: needs mqtt.command_code"), "\(r)")
    }

    @Test("all 10,000 four-digit codes as fast as the broker takes them: locked out after 5, the alarm still sounding, one lockout line")
    func bruteForce() throws {
        let broker = try Broker()
        let sub = try broker.subscribe(["jolt/kiosk-1/result"])
        defer { sub.stop() }
        let sock = socketPath()
        let dir = NSTemporaryDirectory() + "jolt-state-\(UUID())"
        let mqtt = broker.mqttConfig().edited(#""device": "kiosk-1","#, #""device": "kiosk-1", "command_code": "4711","#)
        let run = try triggeredKiosk(sock, mqtt: mqtt, stateDir: dir)
        defer { _ = run.stop() }
        #expect(waitTriggered(sock), "\(run.stderr)")
        #expect(try waitHeard(broker), "the broker never held the state: \(run.stderr)")
        // One mosquitto_pub, one message per line: 0000 … 9999, the right code among them.
        var lines = ""
        for c in 0..<10_000 { lines += #"{"command": "disarm", "code": "\#(String(format: "%04d", c))"}"# + "\n" }
        try broker.publish(lines: lines, to: "jolt/kiosk-1/set")
        #expect(sub.wait { $0.contains { $0.1.contains("locked out for") } }, "\(sub.messages.suffix(3))")
        usleep(500_000)
        #expect(alarmState(sock) == "triggered", "still sounding after the brute force")
        let results = sub.messages.compactMap { json($0.1) }
        #expect(results.filter { ($0["error"] as? String) == "wrong code" }.count == 4, "four wrong codes answered as such")
        #expect(!results.contains { ($0["ok"] as? Bool) == true }, "no command went through")
        #expect(run.stderr.components(separatedBy: "remote commands locked out").count - 1 == 1, "one log line per lockout")
        // Counted across restarts: the lockout is on disk.
        let saved = try String(contentsOfFile: dir + "/remote-commands.json", encoding: .utf8)
        #expect(saved.contains("\"lockouts\":1"), "\(saved)")
    }

    @Test("a 100 MB command: ignored without being copied, and not one sample lost")
    func hugePayload() throws {
        let broker = try Broker()
        let sock = socketPath()
        var board = try String(contentsOfFile: try kioskBoard(socket: sock, extra: broker.mqttConfig()), encoding: .utf8)
        board = board.edited("\"motion\": \"lift\"", "\"motion\": \"rest\"")
        let run = try BackgroundJolt(["run", "--board", tempFile(board, name: "kiosk.json"), "--seconds", "5"])
        #expect(run.wait(for: "mqtt: connected"), "\(run.stderr)")
        let big = NSTemporaryDirectory() + "big-\(UUID()).bin"
        #expect(FileManager.default.createFile(atPath: big, contents: Data(repeating: 0x61, count: 100 << 20)))
        defer { unlink(big) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        p.arguments = ["-h", "127.0.0.1", "-p", "\(broker.port)", "-u", Broker.user, "-P", Broker.password, "-q", "1", "-t", "jolt/kiosk-1/set", "-f", big]
        try p.run()
        let asked = Date()
        let status = joltBinary(["status", "--socket", sock])
        // A control socket waiting on the payload would wait for all 100 MB.
        #expect(status.code == 0 && Date().timeIntervalSince(asked) < 3, "status while the payload arrives: \(status)")
        p.waitUntilExit()
        let deadline = Date().addingTimeInterval(10)
        while run.process.isRunning && Date() < deadline { usleep(50_000) }
        #expect(run.process.terminationStatus == 0, "\(run.stderr)")
        let summary = try #require(run.stderr.split(separator: "\n").first { $0.contains("stopped: ") })
        let samples = Int(summary.split(separator: " ")[2]) ?? 0
        // Every sample of the 5 s, and the run stops at the drain that passes them: at most one
        // drain's worth more (10 samples at fifo_poll_ms 100), wherever its polls fall.
        #expect(samples >= 500 && samples <= 510, "\(summary)")
        for word in ["overflow", "skipped", "missing", "fault"] { #expect(!run.stderr.contains(word), "\(run.stderr)") }
        #expect(run.stderr.contains("larger than 1024 bytes"), "the refusal is logged: \(run.stderr.suffix(400))")
    }
}

@Suite("The outbox with a poisoned entry", .serialized)
struct PoisonedOutboxTests {
    @Test("an event the MQTT library refuses (a topic with #) is moved aside once; every later event is delivered")
    func poisoned() throws {
        let broker = try Broker()
        let sub = try broker.subscribe(["jolt/kiosk-1/event"])
        defer { sub.stop() }
        let outbox = broker.dir + "/outbox-poisoned"
        try FileManager.default.createDirectory(atPath: outbox, withIntermediateDirectories: true)
        try "jolt/kiosk-1/#\n{\"event\":\"poison\"}".write(toFile: outbox + "/00000000000000000001.msg", atomically: true, encoding: .utf8)
        let board = try kioskBoard(socket: socketPath(), extra: broker.mqttConfig(outbox: outbox))
        let r = joltBinary(["run", "--board", board, "--trace", liftTrace(), "--fast", "--json", "--seconds", "8"])
        let log = r.error
        let events = r.out.split(separator: "\n")
        #expect(r.code == 0 && events.count >= 4, "\(r)")
        #expect(sub.wait { $0.count >= events.count }, "delivered \(sub.messages.count) of \(events.count): \(log)")
        #expect(log.components(separatedBy: "was moved aside").count - 1 == 1, "\(log)")
        #expect(FileManager.default.fileExists(atPath: outbox + "/quarantine/00000000000000000001.msg"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).filter { $0.hasSuffix(".msg") }.isEmpty, "the outbox drained")
    }
}
