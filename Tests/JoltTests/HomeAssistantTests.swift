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
import JoltTestSupport
import JoltTrace
import Testing

/// Home Assistant discovery, entity by entity, and the commands its entities send (docs/fleet.md).
@Suite("Home Assistant: discovery and the entities' commands", .serialized)
struct HomeAssistantTests {
    /// A bridge for a board with `mqtt` extra keys (no connection is made until start).
    func bridge(_ mqtt: String, alarm: Bool = true, alarmKeys: String = "") throws -> (MQTTBridge, BoardProfile) {
        let m = "\"mqtt\": { \"host\": \"127.0.0.1\", \"device\": \"k1\", \"username\": \"u\", \"outbox\": { \"path\": \"\(NSTemporaryDirectory())ha-outbox-\(UUID().uuidString.prefix(6))\" }\(mqtt) }"
        let a = alarm ? ", \"alarm\": { \"output\": \"buzzer\"\(alarmKeys) }" : ""
        let text = "{ \"bus\": \"sim\", \"rate_hz\": 100, \"outputs\": { \"buzzer\": { \"line\": \"GPIO17\" } }, \(m)\(a) }"
        let board = try BoardProfile.load(path: tempFile(text, name: "ha.json"))
        return (try MQTTBridge(config: try #require(board.mqtt), board: board), board)
    }

    /// The configurations by "component/object", and the entities removed (empty payloads).
    func configs(_ b: MQTTBridge, _ board: BoardProfile) -> (present: [String: [String: Any]], removed: Set<String>) {
        var present: [String: [String: Any]] = [:]
        var removed: Set<String> = []
        for (topic, payload) in b.discovery(board: board, sensor: "MPU6050 (WHO_AM_I 0x68)") {
            let parts = topic.split(separator: "/")
            let key = "\(parts[1])/\(parts[3])"
            if payload.isEmpty { removed.insert(key) } else { present[key] = json(payload) ?? [:] }
        }
        return (present, removed)
    }

    @Test("every entity: origin, a stable device with the chip and the version, QoS 1, unique ids; what the board lacks is removed")
    func entities() throws {
        let (b, board) = try bridge(#", "command_code": "4711""#)
        let (present, removed) = configs(b, board)
        #expect(present.count + removed.count == MQTTBridge.allEntities.count, "one topic for every entity Jolt ever published")
        #expect(Set(present.keys) == ["alarm_control_panel/alarm", "sensor/last_command", "event/shake", "event/flip", "event/tamper", "event/walk_test", "siren/buzzer",
                                      "button/test_buzzer", "binary_sensor/tamper", "binary_sensor/problem", "binary_sensor/trouble", "binary_sensor/shake", "binary_sensor/face_down", "sensor/tilt", "sensor/speed"])
        #expect(removed == ["sensor/last_event"], "the old last-event sensor is removed")
        var ids: Set<String> = []
        for (key, d) in present {
            #expect(d["qos"] as? Int == 1, "\(key)")
            #expect((d["origin"] as? [String: Any])?["name"] as? String == "Jolt", "\(key)")
            let device = try #require(d["device"] as? [String: Any])
            #expect(device["model"] as? String == "Jolt accelerometer alarm" && device["hw_version"] as? String == "MPU6050 (WHO_AM_I 0x68)", "\(key)")
            #expect((device["sw_version"] as? String)?.hasPrefix(BuildInfo.version + " (commit ") == true)
            let id = try #require(d["unique_id"] as? String)
            #expect(id.hasPrefix("jolt_k1_") && ids.insert(id).inserted, "\(key): \(id)")
            #expect(d["availability_topic"] as? String == "jolt/k1/availability")
        }
        let panel = try #require(present["alarm_control_panel/alarm"])
        #expect(panel["code"] as? String == "REMOTE_CODE" && panel["code_disarm_required"] as? Bool == true)
        #expect((panel["command_template"] as? String)?.contains("{{ code | tojson }}") == true)
        #expect((panel["value_template"] as? String)?.contains(".get(value_json.state, 'None')") == true)
        #expect(panel["supported_features"] as? [String] == ["arm_away"], "no trigger unless the profile allows it")
        #expect(present["event/shake"]?["event_types"] as? [String] == ["began", "ended", "cancelled"])
        #expect(present["event/flip"]?["event_types"] as? [String] == ["face_down", "face_up"])
        #expect(present["binary_sensor/tamper"]?["device_class"] as? String == "tamper")
        #expect(present["binary_sensor/problem"]?["entity_category"] as? String == "diagnostic")
        #expect(present["binary_sensor/shake"]?["state_topic"] as? String == "jolt/k1/shake" && present["binary_sensor/face_down"]?["icon"] as? String == "mdi:flip-vertical")
        // Each retained topic an event kind moves has its sensor, and each sensor a kind that moves it.
        let moved = Set(EventKinds.all.compactMap { $0.retained?.topic })
        #expect(moved == Set(EventKinds.states.map(\.topic)), "\(moved)")
        #expect(present["sensor/tilt"]?["unit_of_measurement"] as? String == "°" && present["sensor/speed"]?["unit_of_measurement"] as? String == "mm/s")
        #expect(present["sensor/tilt"]?["state_topic"] as? String == "jolt/k1/measures" && present["sensor/speed"]?["state_class"] as? String == "measurement")
    }

    @Test("over a real broker: the tilt and the movement speed, on a change of at least 0.5°, at most once a second")
    func measures() throws {
        let broker = try Broker()
        let sub = try broker.subscribe(["jolt/kiosk-7/measures"])
        defer { sub.stop() }
        let board = try BoardProfile.load(path: try kioskBoard(socket: socketPath(), extra: broker.mqttConfig(device: "kiosk-7")))
        var m = Motion(rate: 100, seed: 3)
        m.rest(3)
        m.rotate(axis: V3(1, 0, 0), degrees: 6, seconds: 1)
        m.rest(4)
        var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
        for s in m.take() { text += TraceWriter.row(s, gyro: true) }
        var o = RunCommand.Options(json: true)
        let play = Playback(trace: tempFile(text, name: "tilt.csv"))
        o.limitMicros = 8_000_000
        let cmd = try RunCommand(board: board, playing: play, options: o, out: TextOutput.capturing(), outputs: ["buzzer": SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))])
        let started = Date()
        try cmd.run()
        let seconds = Date().timeIntervalSince(started)
        #expect(sub.wait { $0.contains { (json($0.1)?["tilt_deg"] as? Double ?? 0) >= 5 } }, "\(sub.messages)")
        let values = sub.messages.compactMap { json($0.1) }
        let tilts = values.compactMap { ($0["tilt_deg"] as? Double) }
        // At most one a second (and the first), each at least 0.5° or 2 mm/s from the last.
        #expect(values.count >= 2 && Double(values.count) <= seconds + 1, "\(values.count) in \(seconds) s: \(values)")
        #expect(tilts.first.map { $0 < 0.5 } == true, "level at first: \(tilts)")
        // Armed (a grace of 0.5 s), the speed is there; it tilted 6° and stood still.
        #expect(values.contains { $0["speed_mm_s"] != nil }, "\(values)")
        // The last one published within the step (0.5°) and the gravity estimate's lag of the 6°.
        #expect(abs((tilts.last ?? 0) - 6) < 1, "\(tilts)")
    }

    @Test("a code with letters gets a text field; remote_trigger offers Trigger; no alarm, no panel; discovery off removes all")
    func variants() throws {
        let (b1, board1) = try bridge(#", "command_code": "open sesame", "remote_trigger": true"#)
        let panel = try #require(configs(b1, board1).present["alarm_control_panel/alarm"])
        #expect(panel["code"] as? String == "REMOTE_CODE_TEXT")
        #expect(panel["supported_features"] as? [String] == ["arm_away", "trigger"] && panel["code_trigger_required"] as? Bool == true)
        let (b4, board4) = try bridge("", alarmKeys: #", "modes": {"night": ["tamper"]}"#)
        let night = try #require(configs(b4, board4).present["alarm_control_panel/alarm"])
        #expect(night["supported_features"] as? [String] == ["arm_away", "arm_night"] && night["payload_arm_night"] as? String == "arm_night")
        let (b2, board2) = try bridge("", alarm: false)
        let c2 = configs(b2, board2)
        #expect(c2.removed == ["alarm_control_panel/alarm", "event/tamper", "event/walk_test", "binary_sensor/tamper", "binary_sensor/trouble", "sensor/last_event", "sensor/speed"], "\(c2.removed)")
        #expect(c2.present["sensor/tilt"] != nil, "the tilt is the chip's, alarm or not")
        #expect(c2.present["siren/buzzer"] != nil, "the buzzer is the board's output")
        let (b3, board3) = try bridge(#", "discovery": false"#)
        let c3 = configs(b3, board3)
        #expect(c3.present.isEmpty && c3.removed.count == MQTTBridge.allEntities.count, "every entity removed")
    }

    @Test("over a real broker: trigger (panic) with the code, the siren cannot silence it, test button and siren sound the buzzer")
    func commands() throws {
        let broker = try Broker()
        let sub = try broker.subscribe(["jolt/kiosk-9/result", "jolt/kiosk-9/state", "jolt/kiosk-9/tamper"])
        defer { sub.stop() }
        let sock = socketPath()
        let mqtt = broker.mqttConfig(device: "kiosk-9").edited(#""device": "kiosk-9","#, #""device": "kiosk-9", "command_code": "4711", "remote_trigger": true,"#)
        let board = try BoardProfile.load(path: try kioskBoard(socket: sock, extra: mqtt))
        let buzzer = SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))
        var o = RunCommand.Options(json: true)
        let play = Playback(trace: stillTrace(up: V3(0, 0, 1), seconds: 60))
        o.limitMicros = 12_000_000
        let cmd = try RunCommand(board: board, playing: play, options: o, out: TextOutput.capturing(), outputs: ["buzzer": buzzer])
        let t = BackgroundRun(cmd)
        defer { _ = t.finish() }
        func results() -> [[String: Any]] { sub.messages.filter { $0.0 == "jolt/kiosk-9/result" }.compactMap { json($0.1) } }
        func send(_ payload: String, _ n: Int) throws -> [String: Any]? {
            try broker.publish("jolt/kiosk-9/set", payload)
            #expect(sub.wait { _ in results().count > n }, "an answer to \(payload)")
            return results().dropFirst(n).first
        }
        #expect(sub.wait { $0.contains { $0.0 == "jolt/kiosk-9/state" && $0.1.contains("\"armed\"") } })
        #expect(try send(#"{"command": "trigger", "code": null}"#, 0)?["error"] as? String == "a code is required")
        let trig = try send(#"{"command": "trigger", "code": "4711"}"#, 1)
        #expect(trig?["ok"] as? Bool == true && trig?["state"] as? String == "triggered", "\(trig ?? [:])")
        #expect(eventually { buzzer.changes.contains { $0.1 } }, "sounding")
        let off = try send(#"{"command": "siren", "state": "off"}"#, 2)
        #expect(off?["ok"] as? Bool == false && (off?["error"] as? String)?.contains("disarm it to silence it") == true, "\(off ?? [:])")
        #expect(reply("status", sock)["state"] as? String == "triggered")
        #expect(try send(#"{"command": "disarm", "code": "4711"}"#, 3)?["state"] as? String == "disarmed")
        #expect(eventually { !buzzer.isActive }, "silent once disarmed")
        let before = buzzer.changes.count
        #expect(try send(#"{"command": "test_buzzer"}"#, 4)?["ok"] as? Bool == true)
        #expect(eventually { buzzer.changes.count >= before + 2 }, "a beep: \(buzzer.changes.dropFirst(before))")
        let beep = buzzer.changes.dropFirst(before)
        #expect(beep.map(\.1) == [true, false], "one beep: \(beep)")
        // Edges timed by the action thread on a shared 2-core machine: ±100 ms.
        if let on = beep.first, let last = beep.last { #expect(abs(Double(last.0 - on.0) / 1000 - 200) < 100, "a 200 ms beep: \(Double(last.0 - on.0) / 1000) ms") }
        let n = buzzer.changes.count
        #expect(try send(#"{"command": "siren", "state": "on", "duration": 1}"#, 5)?["ok"] as? Bool == true)
        #expect(eventually { buzzer.changes.count >= n + 2 }, "the siren ends: \(buzzer.changes.dropFirst(n))")
        let siren = buzzer.changes.dropFirst(n)
        #expect(siren.map(\.1) == [true, false], "on for the duration, then off: \(siren)")
        if let on = siren.first, let last = siren.last { #expect(abs(Double(last.0 - on.0) / 1000 - 1000) < 200, "a 1 s siren: \(Double(last.0 - on.0) / 1000) ms") }
        #expect(try send(#"{"command": "siren", "state": "on", "duration": 9999}"#, 6)?["error"] as? String == "the siren's duration is a whole number of seconds, 1 to 600")
        // The result is retained: Home Assistant's "Last command" sensor has it after a restart.
        let late = try broker.subscribe(["jolt/kiosk-9/result"])
        defer { late.stop() }
        #expect(late.wait { !$0.isEmpty })
    }
}
