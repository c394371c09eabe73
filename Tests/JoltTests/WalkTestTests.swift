import Foundation
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltRun
@testable import JoltSimBoard
import JoltCore
import JoltLinux
import JoltJSON
import JoltTestSupport
import Testing

/// What an alarm controller did, in order.
final class AlarmEffectsLog: @unchecked Sendable {
    var sounding: [Bool] = []
    var records: [EventRecord] = []
    var chirps: [Pattern?] = []
    var published: [(AlarmState, Bool)] = []

    var effects: AlarmEffects {
        AlarmEffects(sound: { self.sounding.append($0) }, announce: { self.records.append($0) },
                     publish: { self.published.append(($0.state, $0.walkTest)) },
                     chirp: { self.chirps.append($0) })
    }
}

@Suite("The walk test and the alarm's chirps", .serialized)
struct WalkTestTests {
    func controller(_ edit: (inout AlarmConfig) -> Void) -> (AlarmController, AlarmEffectsLog) {
        var c = AlarmConfig()
        c.settings.armingMillis = 1000
        c.output = "buzzer"
        edit(&c)
        let log = AlarmEffectsLog()
        return (AlarmController(config: c, detection: DetectionSettings(rateMilliHz: 100_000, gyro: true), store: nil, effects: log.effects), log)
    }

    let down = Vec3(0, 0, 1000)

    @Test("a walk test announces what would trigger, with its reason and margin, chirps, and never sounds; a real alarm sounds on the same events")
    func wouldTrigger() throws {
        for walkTest in [true, false] {
            let (a, log) = controller { $0.walkTest = walkTest }
            _ = a.command(.armCommand, at: 0, gravity: down)
            _ = a.observe([], at: 1_000_000, gravity: down)
            #expect(a.state == .armed)
            let moved = TriggerReason(.moved, speedMMs: 61, millis: 180)
            _ = a.observe(.tamper, at: 2_000_000, gravity: down, reason: { _ in moved })
            if walkTest {
                #expect(a.state == .armed, "a walk test keeps watching")
                #expect(log.sounding.isEmpty, "nothing sounds")
                let e = try #require(log.records.last)
                #expect(e.json == #"{"t":2.0,"event":"walk_test","cause":"tamper","reason":"moved","mm_s":61,"ms":180,"margin":3.05,"setting":"move_mm_s"}"#)
                #expect(e.human.hasSuffix("walk test: would trigger (tamper: moved 61 mm/s for 180 ms, 3.05× move_mm_s 20 mm/s)"), "\(e.human)")
                #expect(log.chirps.last == .some(Chirp.once))
                // Another one later is announced again; the count shows in status.
                _ = a.observe(.shakeBegan, at: 5_000_000, gravity: down, reason: { _ in TriggerReason(.shake, peakMilliG: 2700) })   // against the medium threshold, 0.70 g
                #expect(log.records.last?.json.contains(#""cause":"shake","reason":"shake","peak_g":2.70,"margin":3.86,"setting":"threshold_g""#) == true,
                        "\(log.records.last?.json ?? "")")
                #expect(a.walkTestCount == 2)
                #expect(JSON.members(a.replyFields).text.contains(#""walk_test":true,"walk_test_triggers":2"#))
                #expect(log.published.allSatisfy { $0.1 }, "MQTT's state says it is a walk test")
            } else {
                #expect(a.state == .triggered)
                #expect(log.sounding == [true])
                #expect(!JSON.members(a.replyFields).text.contains("walk_test"))
            }
        }
    }

    @Test("a walk test: a lost sensor is announced once per loss, with its margin over sensor_lost_ms, and never sounds")
    func sensorLost() throws {
        let (a, log) = controller { $0.walkTest = true }
        _ = a.command(.armCommand, at: 0, gravity: down)
        _ = a.observe([], at: 1_000_000, gravity: down)
        _ = a.sensorSilent(for: 2_500_000, at: 4_000_000, gravity: down)
        #expect(a.state == .armed && log.sounding.isEmpty)
        #expect(log.records.last?.json == #"{"t":4.0,"event":"walk_test","cause":"sensor","reason":"sensor","ms":2500,"margin":1.25,"setting":"sensor_lost_ms"}"#)
        let n = log.records.count
        _ = a.sensorSilent(for: 3_000_000, at: 4_500_000, gravity: down)
        #expect(log.records.count == n, "the same loss is announced once")
        a.sensorBack()
        _ = a.sensorSilent(for: 2_000_000, at: 9_000_000, gravity: down)
        #expect(log.records.count == n + 1, "a new loss is announced again")
    }

    @Test("chirp: a short chirp each second of the grace period, one when it watches, none when it re-arms after sounding, two when disarmed")
    func chirps() {
        let (a, log) = controller { $0.chirp = true; $0.settings.maxSoundMillis = 1000 }
        _ = a.command(.armCommand, at: 0, gravity: down)
        #expect(log.chirps == [Chirp.exitDelay])
        _ = a.observe([], at: 1_000_000, gravity: down)
        #expect(log.chirps == [Chirp.exitDelay, Chirp.once])
        _ = a.observe(.tamper, at: 2_000_000, gravity: down)
        _ = a.observe([], at: 3_000_000, gravity: down)
        #expect(a.state == .armed && log.sounding == [true, false], "sounded, then re-armed after max_sound_ms")
        #expect(log.chirps == [Chirp.exitDelay, Chirp.once], "no chirp when it re-arms by itself")
        _ = a.command(.disarmCommand, at: 4_000_000, gravity: down)
        #expect(log.chirps == [Chirp.exitDelay, Chirp.once, Chirp.twice])
        // The panel's trigger in the grace period stops the exit chirps under the siren.
        _ = a.command(.armCommand, at: 5_000_000, gravity: down)
        _ = a.command(.panic, at: 5_500_000, gravity: down)
        #expect(log.chirps.suffix(2) == [Chirp.exitDelay, nil])
        let (quiet, quietLog) = controller { _ in }
        _ = quiet.command(.armCommand, at: 0, gravity: down)
        _ = quiet.command(.disarmCommand, at: 100, gravity: down)
        #expect(quietLog.chirps.isEmpty, "no chirps unless the profile asks")
    }

    @Test("alarm.mode and alarm.chirp: read, refused with the fix")
    func config() throws {
        func load(_ alarm: String) throws(JoltError) -> BoardProfile {
            try BoardProfile.parse(Array(#"{"bus": "sim", "chip": "mpu6050", "outputs": {"buzzer": {"line": "GPIO17"}}, "alarm": {\#(alarm)}}"#.utf8), file: "b.json")
        }
        #expect(try load(#""mode": "test", "output": "buzzer", "chirp": true"#).alarm?.walkTest == true)
        #expect(try load(#""mode": "alarm", "output": "buzzer""#).alarm?.walkTest == false)
        #expect(try load(#""output": "buzzer""#).alarm?.chirp == false)
        #expect(throws: JoltError.self) { try load(#""mode": "walk""#) }
        do {
            _ = try load(#""chirp": true"#)
            Issue.record("chirp without an output loaded")
        } catch {
            #expect(error.message.contains("alarm.chirp") && error.message.contains("set \"output\""), "\(error.message)")
        }
    }

    @Test("the simulated kiosk in a walk test: the lift is announced with a margin above 1, the buzzer only chirps, and the alarm never triggers")
    func kiosk() throws {
        for walkTest in [true, false] {
            var text = try String(contentsOfFile: packageRoot + "/boards/kiosk-alarm.json", encoding: .utf8)
            if walkTest { text = text.edited("\"armed_at_start\": true,", "\"armed_at_start\": true, \"mode\": \"test\", \"chirp\": true,") }
            let board = try BoardProfile.load(path: tempFile(text, name: "kiosk-walk.json"))
            let buzzer = SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))
            var o = RunCommand.Options(json: true, limitMicros: 20_000_000)
            let play = Playback(fast: true)
            o.control = false
            let out = TextOutput.capturing()
            try RunCommand(board: board, playing: play, options: o, out: out, outputs: ["buzzer": buzzer]).run()
            let lines = out.text.split(separator: "\n").map(String.init)
            let tests = lines.filter { json($0).map { isEvent($0, "walk_test") } == true }
            let triggered = jsonLines(out.text).contains { isEvent($0, "alarm", "triggered") }
            if walkTest {
                #expect(!triggered, "\(lines)")
                let first = try #require(tests.first, "\(lines)")
                #expect(first.contains(#""cause":"tamper""#) && first.contains(#""setting":"#), "\(first)")
                let margin = try #require(first.range(of: #""margin":"#).map { Double(first[$0.upperBound...].prefix { $0 != "," && $0 != "}" }) ?? 0 })
                #expect(margin >= 1, "the lift passed its setting: \(first)")
                #expect(buzzer.changes.contains { $0.1 }, "it chirped")
            } else {
                #expect(tests.isEmpty)
                #expect(triggered, "the same lift triggers the alarm")
            }
            #expect(buzzer.isReleased && !buzzer.isActive)
        }
    }
}
