import Foundation
import JoltCorpus
import JoltCore
import JoltMotion
import JoltTestSupport
import Testing

/// The kiosk corpus's motions are physics: a theft moves the kiosk and leaves it still, a shock
/// or a tap leaves it where it was. Checked by integrating what a noiseless, level chip reads.
@Suite("The kiosk corpus: thefts and shop life, and the tamper rules scored on them")
struct KioskTests {
    /// Velocity and displacement (m/s, m) along world z from a level scene's samples.
    func integrateZ(_ samples: [Sample], rate: Double) -> (v: Double, x: Double, maxX: Double) {
        var v = 0.0, x = 0.0, maxX = 0.0
        for s in samples {
            v += (Double(s.accel.z) - 1000) / 1000 * 9.81 / rate
            x += v / rate
            maxX = max(maxX, abs(x))
        }
        return (v, x, maxX)
    }

    func level(_ rate: Double = 1000) -> Scene {
        var sc = Scene(rate: rate, seed: 5, range: 16)
        sc.noise = 0
        sc.rest(0.5)
        return sc
    }

    @Test("a straight lift raises the kiosk by its height and stops it; a counter shock and a tap leave it where it was")
    func physics() {
        var lift = level()
        lift.straightLift(metres: 0.04, peak: 0.15, hold: 0)
        let l = integrateZ(lift.samples, rate: 1000)
        #expect(abs(l.x - 0.04) < 0.004 && abs(l.v) < 0.01, "lifted \(l.x) m, still moving at \(l.v) m/s")

        var shock = level()
        shock.counterShock(peak: 1.5, ringHz: 8, decay: 0.15)
        shock.rest(0.3)
        let s = integrateZ(shock.samples, rate: 1000)
        #expect(abs(s.v) < 0.01 && abs(s.x) < 0.002, "after the shock: \(s.v) m/s, \(s.x) m")
        #expect(s.maxX > 0.0005, "it did ring: \(s.maxX) m")

        var tap = level()
        tap.taps(seconds: 3, screenNormal: V3(0, 0, 1))
        let t = integrateZ(tap.samples, rate: 1000)
        #expect(abs(t.v) < 0.01, "taps leave no speed: \(t.v) m/s")
    }

    @Test("whatever a shop does to a kiosk that is not stolen leaves it at rest where it was: the integral of its acceleration is zero, and so is the double integral", arguments: ["taps", "slam", "building", "hum", "lean", "drift"])
    func shopLifeStaysPut(kind: String) {
        var sc = Scene(rate: 100, seed: 21, range: 16)
        sc.rest(0.5)
        switch kind {
        case "taps": sc.taps(seconds: 20, screenNormal: V3(0.3, 1, 0.3).unit)
        case "slam": sc.counterShock(peak: 1.5, ringHz: 6, decay: 0.2)
        case "building": sc.building(seconds: 10, hum: false)
        case "hum": sc.building(seconds: 5, hum: true)
        case "lean": sc.lean(degrees: 0.9, hold: 3)
        default: sc.drift(degrees: 0.4, seconds: 10)
        }
        sc.rest(0.2)
        let v = sc.velocity.length, x = sc.position.length
        // Exact in the continuum; the physics step leaves micrometres.
        #expect(v < 0.000_1, "\(kind): still moving at \(v * 1000) mm/s")
        #expect(x < 0.000_01, "\(kind): left \(x * 1e6) µm from where it was")
        // And it did something: the chip read it.
        let z = sc.samples.map { Double($0.accel.z) }
        #expect((z.max() ?? 0) - (z.min() ?? 0) > 10 || kind == "lean" || kind == "drift", "\(kind): the chip read \(z.min() ?? 0)…\(z.max() ?? 0) mg")
    }

    @Test("jolt eval --tamper: every rule on every theft; Jolt's catches the slides and straight lifts the baselines miss, and no shop life")
    func table() throws {
        let r = joltBinary(["eval", "--tamper", "--rate", "100", "--shop-minutes", "2"])
        #expect(r.code == 0, "\(r.error)")
        let rows = r.out.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        func row(_ chip: String, _ rule: String) -> [String]? { rows.first { $0.count > 3 && $0[1] == chip && $0[2] == rule } }
        func percent(_ cell: String) -> Double { Double(cell.dropLast()) ?? -1 }
        for chip in ["gyro", "accel"] {
            let jolt = try #require(row(chip, "jolt")), activity = try #require(row(chip, "activity"))
            #expect(rows.contains { $0.count > 4 && $0[1] == chip && $0[2] == "tilt" })
            // Columns: rate, chip, rule, slide, lift, carry, tilt, tip-over, all, p50, p95, false.
            #expect(percent(jolt[3]) >= 90 && percent(jolt[4]) >= 90, "slides and lifts: \(jolt)")
            #expect(percent(activity[3]) < percent(jolt[3]) && percent(activity[4]) < percent(jolt[4]), "the activity interrupt: \(activity)")
            #expect(jolt[5] == "100%" && jolt[6] == "100%" && jolt[7] == "100%", "carries, tilts, tip-overs: \(jolt)")
            #expect(jolt[11] == "0.0", "false tampers per hour: \(jolt)")
            // The second table: Jolt's detector theft by theft, recall then p50/p95.
            let byTheft = try #require(rows.first { $0.count == 12 && $0[0] == "100" && $0[1] == chip && $0[2].hasSuffix("%") })
            #expect(byTheft[3].contains("/"), "\(byTheft)")
        }
    }

    @Test("jolt eval --tamper's rows with a gyroscope score the detector with it: a gentle drag the accelerometer alone finds late is found early")
    func evaluatorReadsTheGyroscope() throws {
        // A level kiosk at 100 Hz: from 1 s, a gentle drag (15 cm along x over 1.8 s, tilting it
        // 0.5° about y on the way, which the gyroscope reads).
        let tilt = GentleDrag.tilt, push = GentleDrag.push
        let noise: [Int32] = [3, -1, 0, 2, -3, 1, -2, 0, 1, -1, 2, -2]
        let samples = (0..<600).map { i -> Sample in
            let u = Double(i) / 100 - 1, r = tilt(u) * .pi / 180, n = noise[i % noise.count]
            let rate = (tilt(u + 0.005) - tilt(u - 0.005)) / 0.01
            return Sample(t: Int64(i) * 10_000,
                          accel: Vec3(Int32((push(u) - 1000 * sin(r)).rounded()) + n, n, Int32((1000 * cos(r)).rounded()) - n),
                          gyro: Vec3(0, Int32((rate * 1000).rounded()), 0))
        }
        let drag = KioskCase(scenario: "slide", samples: samples, armAt: 0, onset: 1_000_000, end: 2_800_000)
        let with = try #require(TamperEvaluator.score(.jolt, [drag], rate: 100, gyro: true).latencies["slide"]?.first, "missed with the gyroscope")
        let alone = TamperEvaluator.score(.jolt, [drag], rate: 100, gyro: false).latencies["slide"]?.first ?? .infinity
        #expect(with < 900, "found \(with) ms after the drag began")
        #expect(alone >= with + 400, "the accelerometer alone: \(alone) ms, with the gyroscope: \(with) ms")
    }

    @Test("jolt eval --tamper pools a seed range as one corpus, and refuses the options that only shape the shake and flip corpus")
    func tamperOptions() throws {
        func shopMinutes(_ seed: String) throws -> Double {
            let r = joltBinary(["eval", "--tamper", "--rate", "100", "--shop-minutes", "1", "--seed", seed])
            #expect(r.code == 0, "\(r.error)")
            let line = try #require(r.out.split(separator: "\n").first { $0.hasPrefix("shop life per rate and chip: ") })
            return try #require(Double(line.dropFirst("shop life per rate and chip: ".count).prefix { $0 != " " }))
        }
        let a = try shopMinutes("9001"), b = try shopMinutes("9002"), both = try shopMinutes("9001-9002")
        #expect(abs(a + b - both) <= 0.15, "\(a) + \(b) against \(both) pooled")
        for (extra, named) in [(["--noise", "12"], "--noise"), (["--accel-only"], "--accel-only"), (["--json"], "--json"),
                               (["--sensitivity", "high"], "--sensitivity"), (["Tests/Corpus/test"], "Tests/Corpus/test")] {
            let r = joltBinary(["eval", "--tamper", "--rate", "100"] + extra)
            #expect(r.code == 64 && r.error.contains(named) && r.error.contains("drop it"), "\(extra): \(r.code) \(r.error)")
            #expect(r.out.isEmpty, "\(extra): nothing scored")
        }
        let shop = joltBinary(["eval", "--shop-minutes", "3"])
        #expect(shop.code == 64 && shop.error.contains("--tamper"), "\(shop.error)")
    }

    @Test("below 50 Hz a board whose alarm watches for tamper has its chip read at 100 Hz and averaged, one that only watches for gestures not; the start line says which, and warns where the chip cannot")
    func lowRateOversampling() throws {
        let text = try String(contentsOfFile: try kioskBoard(socket: socketPath()), encoding: .utf8)
        let at100 = joltBinary(["run", "--board", tempFile(text, name: "kiosk.json"), "--fast", "--seconds", "1"])
        #expect(at100.code == 0 && !at100.error.contains("readings a sample") && !at100.error.contains("slammed door"), "\(at100.error)")
        let slow = text.edited("\"rate_hz\": 100", "\"rate_hz\": 25")
        let at25 = joltBinary(["run", "--board", tempFile(slow, name: "kiosk.json"), "--fast", "--seconds", "1"])
        #expect(at25.code == 0 && at25.error.contains(": 25 Hz (read at 100 Hz, 4 readings a sample)"), "\(at25.error)")
        #expect(!at25.error.contains("slammed door"), "\(at25.error)")
        // The same board at 25 Hz without its alarm: read at 25 Hz.
        var plain = try #require(try JSONSerialization.jsonObject(with: Data(slow.utf8)) as? [String: Any])
        plain["alarm"] = nil
        let gestures = String(decoding: try JSONSerialization.data(withJSONObject: plain), as: UTF8.self)
        let noAlarm = joltBinary(["run", "--board", tempFile(gestures, name: "kiosk.json"), "--fast", "--seconds", "1"])
        #expect(noAlarm.code == 0 && noAlarm.error.contains(": 25 Hz, ") && !noAlarm.error.contains("readings a sample"), "\(noAlarm.error)")
        // 40 Hz: the MPU6050 makes 1000/(1+n) Hz, and neither 160 nor 80 Hz is one of them.
        let odd = text.edited("\"rate_hz\": 100", "\"rate_hz\": 40")
        let at40 = joltBinary(["run", "--board", tempFile(odd, name: "kiosk.json"), "--fast", "--seconds", "1"])
        #expect(at40.code == 0 && at40.error.contains("alarm: the MPU6050 cannot be read at a multiple of 40 Hz, so a slammed door"), "\(at40.error)")
    }
}
