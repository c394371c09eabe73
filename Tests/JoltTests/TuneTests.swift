import Foundation
@testable import JoltApp
import JoltConfig
import JoltCore
import JoltMotion
import JoltSupport
import JoltTrace
import Testing

/// A scene on a counter at 100 Hz, as a trace file.
func sceneTrace(_ name: String, seed: UInt64, gyro: Bool = true, _ build: (inout Scene) -> Void) -> String {
    var sc = Scene(rate: 100, seed: seed)
    build(&sc)
    var text = TraceWriter.header(rateMilliHz: 100_000, gyro: gyro)
    for s in sc.samples { text += TraceWriter.row(s, gyro: gyro) }
    return tempFile(text, name: name)
}

@Suite("jolt tune")
struct TuneTests {
    /// The simulated kiosk's board (medium preset, every trigger).
    var board: String { tempFile(try! String(contentsOfFile: "boards/kiosk-alarm.json", encoding: .utf8), name: "kiosk.json") }

    /// A day at the counter: taps on the screen, a lean, a slammed door, and a customer bumping
    /// the kiosk `bumpMM` along the counter in 0.4 s; recorded with a gyroscope, or without.
    func site(bumpMM: Double, peak: Double, seed: UInt64 = 11, gyro: Bool = true) -> String {
        sceneTrace("site.csv", seed: seed, gyro: gyro) { sc in
            sc.rest(3)
            sc.taps(seconds: 10, screenNormal: V3(0.3, 1, 0.3).unit)
            sc.lean(degrees: 0.6, hold: 3)
            sc.counterShock(peak: 0.8, ringHz: 20, decay: 0.1)
            sc.rest(3)
            sc.slide(metres: bumpMM / 1000, seconds: 0.4, jerks: 1, peak: peak, heading: 0.5)
            sc.rest(4)
        }
    }

    /// A walk test's slide: 15 cm across the counter.
    func slide(gyro: Bool = true) -> String {
        sceneTrace("slide.csv", seed: 12, gyro: gyro) { sc in
            sc.rest(4)
            sc.slide(metres: 0.15, seconds: 1.5, jerks: 2, peak: 0.2, heading: 2)
            sc.rest(2)
        }
    }

    func json(_ r: (code: ExitCode, out: String, error: String)) throws -> [String: Any] {
        #expect(r.code == .ok, "\(r.error)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    }

    func setting(_ o: [String: Any], _ judged: String, _ name: String) -> [String: Any]? {
        ((o[judged] as? [String: Any])?["settings"] as? [String: Any])?[name] as? [String: Any]
    }

    /// Whether `jolt replay --arm` with `config` raises a tamper on `trace`.
    func tampers(_ config: String, _ trace: String) -> Bool {
        let r = jolt(["replay", "--arm", "--json", "--config", config, trace])
        #expect(r.code == .ok, "\(r.error)")
        return jsonLines(r.out).contains { isEvent($0, "tamper") }
    }

    @Test("finds where a bump trips move_mm_s, suggests the most sensitive preset that keeps twice that, and the written board holds on both recordings")
    func suggestsPreset() throws {
        // Recorded by an accelerometer alone (an ADXL345 kiosk): with a gyroscope, a bump that
        // carries the kiosk 6 mm is not a move at any speed (`guideOnSimulatedKiosk`).
        let (b, s, m) = (board, site(bumpMM: 6, peak: 0.12, gyro: false), slide(gyro: false))
        let out = NSTemporaryDirectory() + "tuned-\(UUID().uuidString).json"
        let o = try json(jolt(["tune", "--board", b, "--moves", m, "--json", "-o", out, s]))
        // The bump pushes the kiosk at 10-25 mm/s: the speed rule fires on it somewhere there,
        // under medium's 20 mm/s held 120 ms.
        let speed = try #require(setting(o, "now", "tamper.move_mm_s"))
        let firesAt = try #require(speed["fires_at"] as? Double)
        #expect(firesAt >= 8 && firesAt < 20, "fires at \(firesAt) mm/s")
        #expect(abs((speed["margin"] as? Double ?? 0) - 20 / firesAt) < 0.006)
        #expect((o["would_trigger"] as? [Any])?.isEmpty == true)
        // Medium keeps under 2×, so the suggestion is low, quiet on the site with room to spare.
        let suggested = try #require(o["suggested"] as? [String: Any])
        #expect(suggested["name"] as? String == "low" && suggested["passes"] as? Bool == true, "fires at \(firesAt)")
        #expect(((suggested["detection"] as? [String: Any])?["sensitivity"] as? String) == "low")
        // The written board: the site's life never trips it, the slide does.
        #expect(try BoardProfile.load(path: out).detection.tamper == TamperSettings.preset(.low))
        #expect(!tampers(out, s))
        #expect(tampers(out, m))
        // The first bisection's edge, replayed: at the value found the rule fires on the site.
        let edge = tempFile(#"{"name":"edge","bus":"sim","detection":{"tamper":{"move_mm_s":\#(Int(firesAt)),"tilt_deg":90}}}"#, name: "edge.json")
        let over = tempFile(#"{"name":"over","bus":"sim","detection":{"tamper":{"move_mm_s":\#(Int(firesAt) + 2),"tilt_deg":90}}}"#, name: "over.json")
        #expect(tampers(edge, s))
        #expect(!tampers(over, s))
    }

    @Test("a bump no preset keeps twice away from: the low preset with move_mm_s raised to twice its firing point, and the bump it already trips listed")
    func customSetting() throws {
        let (b, s) = (board, site(bumpMM: 14, peak: 0.3, seed: 21))
        let o = try json(jolt(["tune", "--board", b, "--json", s]))
        let triggers = try #require(o["would_trigger"] as? [[String: Any]])
        #expect(triggers.contains { $0["reason"] as? String == "moved" }, "the profile as it is trips on the bump: \(triggers)")
        let suggested = try #require(o["suggested"] as? [String: Any])
        #expect(suggested["name"] as? String == "custom")
        let tamper = try #require((suggested["detection"] as? [String: Any])?["tamper"] as? [String: Any])
        let raised = try #require(tamper["move_mm_s"] as? Double)
        let speed = try #require(setting(o, "suggested", "tamper.move_mm_s"))
        #expect(speed["value"] as? Double == raised)
        #expect(speed["quiet"] as? Bool == true || (speed["margin"] as? Double ?? 0) >= 2, "\(speed)")
        #expect(raised > 30, "raised past the low preset's 30 mm/s: \(raised)")
        // What the text says: the firing point, the bump's place and reason.
        let text = jolt(["tune", "--board", b, s])
        #expect(text.code == .ok && text.out.contains("the site's life would have triggered the alarm") && text.out.contains("moved"))
    }

    @Test("docs/guide.md step 10 on the simulated kiosk: a minute of its shop life and its lift, tuned; the written board is quiet on the one and sounds on the other")
    func guideOnSimulatedKiosk() throws {
        let dir = NSTemporaryDirectory() + "tune-guide-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/site", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/walk", withIntermediateDirectories: true)
        let b = board
        #expect(jolt(["record", "--board", b, "--motion", "shop", "--seconds", "60", "--fast", "-o", dir + "/site/counter.csv"]).code == .ok)
        #expect(jolt(["record", "--board", b, "--seconds", "20", "--fast", "-o", dir + "/walk/lift.csv"]).code == .ok)
        let o = try json(jolt(["tune", "--board", b, "--moves", dir + "/walk", "--json", "-o", dir + "/kiosk.json", dir + "/site"]))
        // The shop's bump carries the kiosk 6 mm: under the 10 mm a move must carry it, read
        // with the MPU6050's gyroscope, so medium's move_mm_s is quiet on it at any speed, and
        // the suggestion is the most sensitive preset. The lift is caught, far past it.
        let speed = try #require(setting(o, "now", "tamper.move_mm_s"))
        #expect(speed["fires_at"] is NSNull && (speed["margin"] as? Double ?? 0) >= 2, "\(speed)")
        let caught = try #require((o["now"] as? [String: Any])?["moves"] as? [[String: Any]])
        #expect(caught.count == 1 && caught[0]["reason"] as? String == "moved" && (caught[0]["mm_s"] as? Double ?? 0) > 100)
        let suggested = try #require(o["suggested"] as? [String: Any])
        #expect(suggested["passes"] as? Bool == true && suggested["name"] as? String == "high")
        #expect(!tampers(dir + "/kiosk.json", dir + "/site/counter.csv"))
        #expect(tampers(dir + "/kiosk.json", dir + "/walk/lift.csv"))
        // --motion is the simulated board's: a real board's bus is never replaced by a script.
        #expect(jolt(["record", "--board", "boards/pi-mpu6050.json", "--motion", "shop", "--seconds", "5", "-o", dir + "/x.csv"]).code == .usage)
        #expect(jolt(["record", "--board", b, "--motion", "dance", "--seconds", "5", "-o", dir + "/x.csv"]).code == .usage)
    }

    @Test("bad input: no recordings, a missing one, -o without a board, a margin under 1")
    func badInput() {
        #expect(jolt(["tune"]).code == .usage)
        let missing = jolt(["tune", "--board", board, "/nonexistent/site"])
        #expect(missing.code == .noInput && missing.error.contains("/nonexistent/site"))
        #expect(jolt(["tune", "-o", "x.json", site(bumpMM: 2, peak: 0.05)]).code == .usage || ProcessInfo.processInfo.environment["JOLT_BOARD"] != nil || FileManager.default.fileExists(atPath: "/etc/jolt/jolt.json"))
        #expect(jolt(["tune", "--board", board, "--margin", "0.5", site(bumpMM: 2, peak: 0.05)]).code == .usage)
    }
}
