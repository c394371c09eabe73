import Foundation
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltCore
@testable import JoltCorpus
import JoltMotion
import JoltTestSupport
import Testing

@Suite("Detection design: gravity, quiet starts, knocks, clipping; the corpus and its scoring")
struct DetectionQualityTests {
    @Test("with a gyroscope the gravity estimate turns with the device; without one it lags")
    func gravityFollowsRotation() {
        var sc = Scene(rate: 100, seed: 5)
        sc.rest(1)
        sc.turn(axis: V3(1, 0, 0), degrees: 90, seconds: 0.25)
        sc.rest(0.05)
        let samples = sc.samples
        func finalAngle(gyro: Bool) -> Double {
            var g = GravityFilter(tauMicros: 500_000, periodMicros: 10_000, gyro: gyro)
            var v = Vec3.zero
            for s in samples { v = g.update(s) }
            let last = samples.last!.accel
            let dot = Double(v.dot(last)) / (Double(v.lengthSquared).squareRoot() * Double(last.lengthSquared).squareRoot())
            return acos(min(1, dot)) * 180 / .pi
        }
        #expect(finalAngle(gyro: true) < 5, "with the gyro: \(finalAngle(gyro: true))°")
        #expect(finalAngle(gyro: false) > 30, "without: \(finalAngle(gyro: false))°")
    }

    @Test("the gravity estimate keeps its length through fast turns at low rates")
    func gravityLength() {
        var g = GravityFilter(tauMicros: 500_000, periodMicros: 20_000, gyro: true)
        var v = Vec3.zero
        // Spinning at 1000 °/s about x with gravity along z, 50 Hz, for 2 s (the accelerometer
        // reads gravity turning too).
        for i in 0..<100 {
            let a = Double(i) * 0.02 * 1000 * .pi / 180
            let s = Sample(t: Int64(i) * 20_000, accel: Vec3(0, Int32(1000 * sin(a)), Int32(1000 * cos(a))), gyro: Vec3(1_000_000, 0, 0))
            v = g.update(s)
        }
        let length = Double(v.lengthSquared).squareRoot()
        #expect(abs(length - 1000) < 60, "length \(length) mg")
    }

    @Test("a shake starts from a hand at rest: the same strokes straight out of a run are not a shake")
    func quietBefore() {
        func began(pause: Double) -> Int {
            var sc = Scene(rate: 100, seed: 3)
            sc.rest(1)
            sc.gait(run: true, carry: .pocket, seconds: 8, cadence: 2.7)
            sc.hold(pause)
            sc.shake(freq: 4, amp: 1.5, axis: V3(1, 0, 0), seconds: 1.2)
            sc.rest(2)
            var d = DefaultDetectors(settings(rate: 100))
            return detect(&d, sc.samples).filter { $0.e.contains(.shakeBegan) && $0.t > 8_500_000 }.count
        }
        #expect(began(pause: 1.0) == 1)
        #expect(began(pause: 0.0) == 0)
    }

    @Test("regular knocking (knock-knock-knock) is not a shake however regular")
    func knocking() {
        for rate in [50.0, 100, 400] {
            var sc = Scene(rate: rate, seed: 9)
            sc.rest(1)
            for _ in 0..<10 {
                sc.knocks(count: 4, peak: 3, spacing: 0.2)
                sc.rest(1)
            }
            var d = DefaultDetectors(settings(rate: rate))
            #expect(detect(&d, sc.samples).filter { $0.e.contains(.shakeBegan) }.isEmpty, "at \(rate) Hz")
        }
    }

    @Test("a vertical shake clipped at ±2 g is found when the range is known")
    func clipped() {
        var sc = Scene(rate: 100, seed: 12, range: 2)
        sc.rest(1)
        sc.shake(freq: 6, amp: 3, axis: V3(0, 0, 1), seconds: 1.5, twist: 15)
        sc.rest(2)
        var s = settings(rate: 100)
        s.rangeMilliG = 2000
        var d = DefaultDetectors(s)
        #expect(detect(&d, sc.samples).filter { $0.e.contains(.shakeBegan) }.count == 1)
    }

    @Test("labels read back as written")
    func labels() throws {
        let l = Label(kind: .flip, onset: 1_500_000, end: 4_000_000, settled: 2_250_000, details: "turn=0.7s")
        #expect(l.text == "flip onset=1.500 end=4.000 settled=2.250 turn=0.7s")
        #expect(Label(text: l.text) == l)
        #expect(Label(text: "dance onset=1 end=2") == nil)
        #expect(Label(text: "shake onset=3 end=2") == nil)
    }

    @Test("scoring: hits, latency, false events by category")
    func scoring() {
        let shake = Label(kind: .shake, onset: 1_000_000, end: 2_000_000)
        let flip = Label(kind: .flip, onset: 5_000_000, end: 9_000_000, settled: 6_000_000)
        var samples: [Sample] = []
        for i in 0..<1000 { samples.append(Sample(t: Int64(i) * 10_000, accel: Vec3(0, 0, 1000))) }
        let trace = LabelledTrace(name: "t", rateMilliHz: 100_000, hasGyro: false, rangeMilliG: 8000, samples: samples,
                                  labels: [shake, flip], real: false, category: "knock")
        var r = EvalResult(algorithm: EvalAlgorithm.all[0])
        Evaluator.score(trace, [(1_150_000, .shakeBegan), (3_500_000, .shakeBegan), (6_400_000, .faceDown), (9_500_000, .faceDown)], EvalAlgorithm.all[0], into: &r)
        #expect(r.shakes == 1 && r.shakesFound == 1 && r.shakeLatencies == [150_000])
        #expect(r.falseShakes["knock"] == 1)
        #expect(r.flips == 1 && r.flipsFound == 1 && r.flipLatencies == [400_000])
        #expect(r.falseFlips["knock"] == 1)
        #expect(r.duration["knock"] == 10_000_000)
        #expect(EvalResult.percentile([1000, 2000, 3000, 4000], 50) == 2)
        #expect(EvalTargets().failures(r) == ["1 false shakes on knocks (target 0)"])
    }

    @Test("the generator is deterministic, and the committed test split is what it writes")
    func corpusIsGenerated() throws {
        let g = CorpusGenerator(rate: 50, seed: 2026)
        let a = g.shakes(name: "shakes", count: 100, range: 8, salt: 1)
        let b = g.shakes(name: "shakes", count: 100, range: 8, salt: 1)
        #expect(a.samples == b.samples)
        let file = try EvalCommand.load(packageRoot + "/Tests/Corpus/test/shakes.csv")
        #expect(file.labels == a.labels, "labels differ")
        #expect(file.samples.count == a.samples.count)
        // The same to the last milli-g, but for rounding differences between maths libraries.
        let worst = zip(file.samples, a.samples).map { max(abs(Int($0.accel.x) - Int($1.accel.x)), abs(Int($0.accel.z) - Int($1.accel.z))) }.max() ?? 0
        #expect(worst <= 1)
    }

    @Test("jolt eval --gate passes on the committed corpus and the real recordings, and the table has every row")
    func gate() throws {
        let r = jolt(["eval", "--gate", packageRoot + "/Tests/Corpus/test", testData + "/wrist-imu", testData + "/body-imu"])
        #expect(r.code == .ok, "\(r.error)")
        for row in ["jolt (default)", "threshold", "lowpass", "planar", "window", "flip: phone", "flip: android"] {
            #expect(r.out.contains(row))
        }
        let j = jolt(["eval", "--json", packageRoot + "/Tests/Corpus/test/knocks.csv"])
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(j.out.utf8)) as? [String: Any])
        #expect((obj["algorithms"] as? [[String: Any]])?.count == 7)
        #expect(jolt(["eval", "/nonexistent"]).code == .noInput)
        #expect(jolt(["eval", "--rate", "300"]).code == .usage)
    }

    @Test("jolt eval --seed A-B judges a family of draws as one corpus: two draws hold twice the generated traces of one")
    func seedFamily() throws {
        let real = testData + "/body-imu/sk5_hand_xio3_50hz.csv"
        func head(_ seed: String) -> String {
            let r = jolt(["eval", "--rate", "25", "--seed", seed, "--gait-minutes", "0.1", real])
            #expect(r.code == .ok, "\(r.error)")
            return String(r.out.split(separator: "\n").first ?? "")
        }
        let one = head("1"), two = head("1-2")
        #expect(one.hasPrefix("14 traces: ") && one.contains("(seed 1)"), "\(one)")
        #expect(two.hasPrefix("27 traces: ") && two.contains("(seed 1-2)"), "\(two)")
    }

    @Test("jolt eval --by-person: every person of the real recordings, held out or tuned on, and the settings tuned again without each")
    func byPerson() throws {
        let r = jolt(["eval", "--by-person", testData + "/wrist-imu", testData + "/body-imu"])
        #expect(r.code == .ok, "\(r.error)")
        let lines = r.out.split(separator: "\n").map(String.init)
        let people = lines.filter { $0.hasSuffix("  tuned on") || $0.hasSuffix("  held out") }
        #expect(people.count == 14)
        #expect(people.filter { $0.hasSuffix("held out") }.count == 9)
        #expect(people.allSatisfy { $0.hasPrefix("wrist-imu/") == $0.hasSuffix("tuned on") })
        // The one false shake of the default on a held-out person: a hand swinging the NGIMU
        // up and down (Tests/Data/body-imu/README.md).
        let sk4 = try #require(people.first { $0.hasPrefix("body-imu/sk4") })
        #expect(sk4.split(separator: " ").dropFirst(2).first == "1")
        #expect(r.out.contains("held out: 9 people"))
        // Walking with the sensor on the leg left out: tuning on everyone else must not choose a
        // threshold that makes the walk a shake.
        let sk1 = try #require(lines.first { $0.hasPrefix("body-imu/sk1") && !$0.hasSuffix("held out") })
        #expect(sk1.split(separator: " ").map(String.init) == ["body-imu/sk1", "0.80", "g", "0", "0.60", "0"], "\(sk1)")
    }

    @Test("a shake starts from a hand at rest whatever the threshold: strides past 0.7 g break the quiet spell")
    func strideBreaksQuiet() throws {
        // Walking with the sensor on the lower leg: at a 0.85 g threshold the strides between
        // 0.7 and 0.85 g did not count, so a strong stride after them began a shake.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jolt-stride-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("firm.json").path
        try #"{"detection": {"shake": {"threshold_g": 0.85}}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        for leg in ["shank", "thigh"] {
            let r = jolt(["replay", "--config", config, testData + "/body-imu/sk1_\(leg)_walk_120hz.csv"])
            #expect(r.code == .ok, "\(r.error)")
            #expect(!r.out.contains("shake began"), "\(leg): \(r.out)")
        }
    }

    @Test("a 25 Hz trace another tool recorded: taps caught on one sample each do not sound the alarm; the same readings from jolt record (filtered) are read as they are")
    func foreignTraceDespiked() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jolt-foreign-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // 4 s at rest, then taps: one sample of 0.3 g sideways every 0.4 s, for 6 s.
        var rows = ""
        for i in 0..<250 {
            let ax = i >= 100 && i % 10 == 0 ? 0.3 : 0
            rows += "\(Double(i) / 25),\(ax),0,1\n"
        }
        let foreign = dir.appendingPathComponent("foreign.csv").path
        try ("# jolt-trace v1\n# rate_hz: 25\n# source: another logger\nt,ax,ay,az\n" + rows).write(toFile: foreign, atomically: true, encoding: .utf8)
        let own = dir.appendingPathComponent("own.csv").path
        try ("# jolt-trace v1\n# rate_hz: 25\n# source: jolt record, MPU6050 at 0x68 on /dev/i2c-1\nt,ax,ay,az\n" + rows).write(toFile: own, atomically: true, encoding: .utf8)
        let f = jolt(["replay", "--arm", foreign])
        #expect(f.code == .ok, "\(f.error)")
        #expect(!f.out.contains("tamper"), "\(f.out)")
        let o = jolt(["replay", "--arm", own])
        #expect(o.out.contains("tamper"), "read as they are, one-sample spikes every 0.4 s are a push: \(o.out)")
        #expect(jolt(["replay", "--samples", foreign]).out.hasPrefix("# jolt samples: rate_mhz=25000 gyro=0 range_mg=0 may_alias=1\n"))
        #expect(jolt(["replay", "--samples", own]).out.hasPrefix("# jolt samples: rate_mhz=25000 gyro=0 range_mg=0\n"))
    }
}
