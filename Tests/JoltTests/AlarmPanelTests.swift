import Foundation
@testable import JoltApp
@testable import JoltActions
@testable import JoltBoard
@testable import JoltConfig
@testable import JoltControl
@testable import JoltRun
@testable import JoltSimBoard
import JoltCore
import JoltLinux
import JoltSupport
import JoltTestSupport
import Testing

/// The alarm as a panel: an entry delay with its chirps, and arming modes (docs/alarm.md).
@Suite("The alarm panel: entry delay and arming modes", .serialized)
struct AlarmPanelTests {
    /// The simulated kiosk with its own socket and `alarm` keys added, played `trace` in real time.
    func kiosk(_ alarmKeys: String, armed: Bool = true) throws -> (BoardProfile, String) {
        let sock = socketPath()
        var text = try String(contentsOfFile: try kioskBoard(socket: sock), encoding: .utf8)
        text = text.edited("\"armed_at_start\": true", "\"armed_at_start\": \(armed), \(alarmKeys)")
        return (try BoardProfile.load(path: tempFile(text, name: "kiosk.json")), sock)
    }

    func start(_ board: BoardProfile, trace: String?, seconds: Int64, buzzer: SimOutput) throws -> (TextOutput, BackgroundRun) {
        var o = RunCommand.Options(json: true)
        let play = Playback(trace: trace)
        o.limitMicros = seconds * 1_000_000
        let out = TextOutput.capturing()
        return (out, BackgroundRun(try RunCommand(board: board, playing: play, options: o, out: out, outputs: ["buzzer": buzzer])))
    }

    @Test("entry_ms: a lift trips it, it chirps four times a second through the delay, then sounds for the lift, 1.5 s later in stream time")
    func entryDelay() throws {
        let (board, _) = try kiosk("\"entry_ms\": 1500")
        let buzzer = SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))
        let (out, t) = try start(board, trace: liftTrace(), seconds: 6, buzzer: buzzer)
        let report = try t.report()
        let events = out.text.split(separator: "\n").compactMap { json(String($0)) }
        let pending = try #require(events.first { $0["state"] as? String == "pending" }, "\(out.text)")
        let triggered = try #require(events.first { $0["state"] as? String == "triggered" }, "\(out.text)")
        #expect(pending["cause"] as? String == "tamper" && pending["reason"] != nil, "\(pending)")
        #expect(triggered["from"] as? String == "pending" && triggered["cause"] as? String == "tamper" && triggered["reason"] as? String == pending["reason"] as? String)
        let wait = (triggered["t"] as? Double ?? 0) - (pending["t"] as? Double ?? 0)
        #expect(abs(wait - 1.5) < 0.02, "sounded \(wait) s after it tripped")
        // Chirps through the delay (60 ms on, 190 off), then the alarm's cadence.
        let soundedAt = try #require(report.triggeredAtWall)
        let chirps = buzzer.changes.filter { $0.1 && $0.0 < soundedAt - 100_000 }
        #expect(chirps.count >= 4, "\(chirps.count) chirps in the entry delay: \(buzzer.changes)")
        let on = buzzer.changes.filter { $0.1 && $0.0 < soundedAt - 100_000 }.map(\.0)
        let offs = buzzer.changes.filter { !$0.1 }.map(\.0)
        for o in on {
            if let off = offs.first(where: { $0 > o }) { #expect(off - o < 200_000, "a chirp, not the siren: \(off - o) µs") }
        }
        #expect(buzzer.changes.contains { $0.1 && $0.0 >= soundedAt - 50_000 }, "then it sounds")
    }

    @Test("disarmed in its entry delay, it never sounds: only chirps, and no trigger")
    func disarmInTime() throws {
        let (board, sock) = try kiosk("\"entry_ms\": 5000")
        let buzzer = SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))
        let (out, t) = try start(board, trace: liftTrace(), seconds: 8, buzzer: buzzer)
        #expect(waitForAlarm(sock, "pending", seconds: 10))
        let disarm = try ControlClient.request("disarm", socket: sock)
        #expect(says(disarm, state: "disarmed"), "\(disarm)")
        #expect(try t.report().alarm == .disarmed)
        #expect(!jsonLines(out.text).contains { isEvent($0, "alarm", "triggered") }, "\(out.text)")
        let changes = buzzer.changes
        for (i, c) in changes.enumerated() where c.1 {
            let off = changes.dropFirst(i + 1).first { !$0.1 }
            #expect(off.map { $0.0 - c.0 < 200_000 } ?? false, "every sound a chirp: \(changes)")
        }
        #expect(!buzzer.isActive)
    }

    @Test("arming modes over the socket: night arms with its triggers and says so; a mode the profile lacks is refused with the fix")
    func modes() throws {
        let (board, sock) = try kiosk("\"modes\": { \"night\": [\"tamper\"] }", armed: false)
        let (_, t) = try start(board, trace: nil, seconds: 4, buzzer: SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17")))
        defer { _ = t.finish() }
        #expect(waitForAlarm(sock, "disarmed", seconds: 10))
        let home = jolt(["arm", "--mode", "home", "--socket", sock])
        #expect(home.code == .failure && home.error.contains("not set up to arm home (add alarm.modes.home"), "\(home)")
        #expect(jolt(["arm", "--mode", "weekend", "--socket", sock]).code == .usage)
        let night = jolt(["arm", "--mode", "night", "--socket", sock])
        #expect(night.code == .ok && night.out.contains("alarm arming (night) since"), "\(night)")
        let status = try ControlClient.request("status", socket: sock)
        #expect(status.contains("\"mode\":\"night\""), "\(status)")
        #expect(jolt(["disarm", "--socket", sock]).out.contains("alarm disarmed since"))
    }
}
