#if canImport(Glibc)
import Glibc
#endif
import JoltCore
import JoltMotion

/// Writes the labelled corpus: deliberate shakes, flips, near-flips, set-downs, knocks and
/// slams, walking and running with the device in a hand, a bag and a pocket, and a kiosk being
/// lifted and carried — from the physical models in `JoltMotion`, with a fixed seed, so the same
/// seed always gives the same corpus.
///
/// Where the numbers come from is in Tests/Corpus/README.md.
public struct CorpusGenerator {
    /// Output data rate, Hz.
    public let rate: Double
    /// The seed: the committed test split uses 2026, tuning used 1.
    public let seed: UInt64
    /// Minutes of each walking and running trace.
    public var gaitMinutes: Double = 2
    /// The accelerometer's noise, g RMS per axis: 4 mg is a chip with its low-pass filter on;
    /// a chip read at full bandwidth, or in a low-power mode, is noisier.
    public var noise: Double = 0.004

    public init(rate: Double, seed: UInt64) {
        self.rate = rate
        self.seed = seed
    }

    var rateMilliHz: Int32 { Int32((rate * 1000).rounded()) }

    /// Every trace of the corpus.
    public func all() -> [LabelledTrace] {
        [shakes(name: "shakes", count: 100, range: 8, salt: 1),
         shakes(name: "shakes-clipped", count: 40, range: 2, salt: 2),
         flips(count: 40),
         nearFlips(count: 30),
         setDowns(count: 24),
         knocks(count: 50),
         lifts(count: 8)]
            + Carry.allCases.flatMap { c in [gait(run: false, carry: c), gait(run: true, carry: c)] }
    }

    func scene(_ salt: UInt64, range: Double = 8) -> Scene {
        var sc = Scene(rate: rate, seed: seed &* 1_000_003 &+ salt, range: range)
        sc.noise = noise
        return sc
    }

    /// Seconds to µs, to the millisecond (labels are written to the millisecond).
    func us(_ s: Double) -> Int64 { Int64((s * 1000).rounded()) * 1000 }

    func finish(_ sc: Scene, name: String, labels: [Label], range: Double, category: String) -> LabelledTrace {
        // Keep exactly what a compact corpus file holds (0.1 °/s), so that traces generated in
        // memory and read from the files are the same.
        let samples = sc.samples.map { s in
            Sample(t: s.t, accel: s.accel, gyro: Vec3(round100(s.gyro.x), round100(s.gyro.y), round100(s.gyro.z)))
        }
        return LabelledTrace(name: name, rateMilliHz: rateMilliHz, hasGyro: true, rangeMilliG: Int32(range * 1000),
                             samples: samples, labels: labels, real: false, category: category)
    }

    func round100(_ v: Int32) -> Int32 { (v + (v >= 0 ? 50 : -50)) / 100 * 100 }

    /// A random direction, mostly across the device's face (phones are shaken side to side or
    /// up and down in the hand), sometimes along the screen's normal.
    func shakeAxis(_ sc: inout Scene) -> V3 {
        let r = sc.rng.uniform()
        if r < 0.35 { return sc.orientation.apply(V3(1, 0.2 * sc.rng.normal(), 0.2 * sc.rng.normal())) }
        if r < 0.7 { return sc.orientation.apply(V3(0.2 * sc.rng.normal(), 1, 0.2 * sc.rng.normal())) }
        if r < 0.85 { return sc.orientation.apply(V3(0.2 * sc.rng.normal(), 0.2 * sc.rng.normal(), 1)) }
        return V3(sc.rng.normal(), sc.rng.normal(), sc.rng.normal())
    }

    /// Deliberate shakes, 2–8 Hz, 1–3.5 g, 0.4–2.5 s, along varied axes, from a device held
    /// still in a hand (with tremor) or lying on a table and picked up.
    public func shakes(name: String, count: Int, range: Double, salt: UInt64) -> LabelledTrace {
        var sc = scene(salt, range: range)
        var labels: [Label] = []
        sc.rest(1)
        for _ in 0..<count {
            // Held at a natural angle: screen up, tilted toward the user, turned any way.
            sc.orientation = Mat3.facing(V3(0.3 * sc.rng.normal(), -0.5 + 0.2 * sc.rng.normal(), 1), yaw: sc.rng.uniform(0, 6.28))
            let trembling = sc.rng.uniform() < 0.5
            if trembling { sc.hold(sc.rng.uniform(1.5, 2.5), tremor: sc.rng.uniform(0.01, 0.04)) } else { sc.rest(sc.rng.uniform(1.5, 2.5)) }
            let freq = sc.rng.uniform(2, 8), amp = sc.rng.uniform(1, 3.5), secs = sc.rng.uniform(0.4, 2.5)
            let axis = shakeAxis(&sc)
            let onset = sc.time
            sc.shake(freq: freq, amp: amp, axis: axis, seconds: secs, twist: sc.rng.uniform(3, 25))
            labels.append(Label(kind: .shake, onset: us(onset), end: us(sc.time),
                                details: "freq=\(f1(freq)) amp=\(f1(amp)) secs=\(f1(secs))\(trembling ? " hand=trembling" : "")\(range < 8 ? " range=\(Int(range))g" : "")"))
            if trembling { sc.hold(sc.rng.uniform(2, 3), tremor: sc.rng.uniform(0.01, 0.04)) } else { sc.rest(sc.rng.uniform(2, 3)) }
        }
        return finish(sc, name: name, labels: labels, range: range, category: "shake")
    }

    /// Flips face down at varied speeds (0.3–2 s), from a table (picked up first) or a hand,
    /// about varied horizontal axes, set down with a bump, a rest, then turned back face up.
    public func flips(count: Int) -> LabelledTrace {
        var sc = scene(3)
        var labels: [Label] = []
        sc.rest(1)
        for _ in 0..<count {
            sc.orientation = Mat3.facing(V3(0, 0, 1), yaw: sc.rng.uniform(0, 6.28))
            sc.rest(sc.rng.uniform(1.5, 2.5))
            let onset = sc.time
            if sc.rng.uniform() < 0.5 { sc.pickUp(lift: sc.rng.uniform(0.1, 0.3)) } else { sc.hold(sc.rng.uniform(0.5, 1.5)) }
            let a = sc.rng.uniform(0, 6.28)
            let secs = sc.rng.uniform(0.3, 2)
            sc.turn(axis: V3(cos(a), sin(a), 0), degrees: sc.rng.uniform(170, 185) * (sc.rng.uniform() < 0.5 ? 1 : -1), seconds: secs, lift: sc.rng.uniform(0, 0.15))
            sc.setDown(lower: sc.rng.uniform(0.05, 0.2), seconds: sc.rng.uniform(0.3, 0.7), bump: sc.rng.uniform(0.2, 1.2))
            let settled = sc.time
            sc.rest(sc.rng.uniform(2.5, 4))
            labels.append(Label(kind: .flip, onset: us(onset), end: us(sc.time), settled: us(settled), details: "turn=\(f1(secs))s"))
            sc.pickUp(lift: 0.15)
            let b = sc.rng.uniform(0, 6.28)
            sc.turn(axis: V3(cos(b), sin(b), 0), degrees: 180, seconds: sc.rng.uniform(0.4, 1.5))
            sc.setDown()
            // Put it back exactly face up for the next flip.
            sc.orientation = Mat3.facing(V3(0, 0, 1), yaw: sc.rng.uniform(0, 6.28))
            sc.rest(1)
        }
        return finish(sc, name: "flips", labels: labels, range: 8, category: "flip")
    }

    /// Near-flips: tilted to 40–80° (from a hand or a table) and back.
    public func nearFlips(count: Int) -> LabelledTrace {
        var sc = scene(4)
        var labels: [Label] = []
        sc.rest(1)
        for _ in 0..<count {
            sc.orientation = Mat3.facing(V3(0, 0, 1), yaw: sc.rng.uniform(0, 6.28))
            sc.rest(sc.rng.uniform(1, 2))
            let onset = sc.time
            let a = sc.rng.uniform(0, 6.28), deg = sc.rng.uniform(40, 80)
            let axis = V3(cos(a), sin(a), 0)
            sc.turn(axis: axis, degrees: deg, seconds: sc.rng.uniform(0.3, 1.5))
            sc.hold(sc.rng.uniform(0.5, 2))
            sc.turn(axis: axis, degrees: -deg, seconds: sc.rng.uniform(0.3, 1.5))
            sc.setDown(bump: sc.rng.uniform(0.1, 0.5))
            labels.append(Label(kind: .nearflip, onset: us(onset), end: us(sc.time), details: "tilt=\(Int(deg))"))
            sc.rest(1)
        }
        return finish(sc, name: "nearflips", labels: labels, range: 8, category: "nearflip")
    }

    /// Slow set-downs: carried in a hand, lowered and put down face up.
    public func setDowns(count: Int) -> LabelledTrace {
        var sc = scene(5)
        var labels: [Label] = []
        sc.rest(1)
        for _ in 0..<count {
            sc.orientation = Mat3.facing(V3(0.2 * sc.rng.normal(), 0.2 * sc.rng.normal(), 1), yaw: sc.rng.uniform(0, 6.28))
            let onset = sc.time
            sc.hold(sc.rng.uniform(1, 2))
            sc.setDown(lower: sc.rng.uniform(0.05, 0.3), seconds: sc.rng.uniform(0.5, 1.5), bump: sc.rng.uniform(0.1, 0.6))
            sc.orientation = Mat3.facing(V3(0, 0, 1), yaw: sc.rng.uniform(0, 6.28))
            labels.append(Label(kind: .setdown, onset: us(onset), end: us(sc.time)))
            sc.rest(sc.rng.uniform(1.5, 2.5))
        }
        return finish(sc, name: "setdowns", labels: labels, range: 8, category: "setdown")
    }

    /// Knocks (one to four, 0.15–0.35 s apart, 0.5–5 g) and door slams (0.1–0.6 g) while the
    /// device lies on a table, face up or face down.
    public func knocks(count: Int) -> LabelledTrace {
        var sc = scene(6)
        var labels: [Label] = []
        sc.rest(1)
        for _ in 0..<count {
            sc.orientation = Mat3.facing(V3(0, 0, sc.rng.uniform() < 0.8 ? 1 : -1), yaw: sc.rng.uniform(0, 6.28))
            sc.rest(sc.rng.uniform(1, 2))
            let onset = sc.time
            if sc.rng.uniform() < 0.7 {
                let n = 1 + Int(sc.rng.uniform(0, 4))
                let peak = sc.rng.uniform(0.5, 5)
                sc.knocks(count: n, peak: peak, spacing: sc.rng.uniform(0.15, 0.35))
                labels.append(Label(kind: .knock, onset: us(onset), end: us(sc.time), details: "knocks=\(n) peak=\(f1(peak))"))
            } else {
                let peak = sc.rng.uniform(0.1, 0.6)
                sc.slam(peak: peak)
                labels.append(Label(kind: .knock, onset: us(onset), end: us(sc.time), details: "slam peak=\(f1(peak))"))
            }
            sc.rest(sc.rng.uniform(1, 2))
        }
        return finish(sc, name: "knocks", labels: labels, range: 8, category: "knock")
    }

    /// Walking (1.6–2.1 steps/s) or running (2.5–3.0 steps/s) with the device carried.
    public func gait(run: Bool, carry: Carry) -> LabelledTrace {
        var sc = scene((run ? 100 : 200) + UInt64(Carry.allCases.firstIndex(of: carry)!), range: 8)
        var labels: [Label] = []
        // The device's attitude in the pocket, hand or bag, any way round.
        sc.orientation = Mat3.facing(V3(sc.rng.normal(), sc.rng.normal(), carry == .bag ? 2 : 0.5 * sc.rng.normal()), yaw: sc.rng.uniform(0, 6.28))
        sc.hold(1)
        let total = gaitMinutes * 60
        var done = 0.0
        while done < total {
            // Bouts of 20–60 s with a short stop between: people stop at crossings.
            let bout = min(sc.rng.uniform(20, 60), total - done)
            let onset = sc.time
            let cadence = run ? sc.rng.uniform(2.5, 3.0) : sc.rng.uniform(1.6, 2.1)
            sc.gait(run: run, carry: carry, seconds: bout, cadence: cadence)
            labels.append(Label(kind: run ? .run : .walk, onset: us(onset), end: us(sc.time), details: "carry=\(carry.rawValue) cadence=\(f1(cadence))"))
            sc.hold(2)
            done += bout + 2
        }
        return finish(sc, name: "\(run ? "run" : "walk")-\(carry.rawValue)", labels: labels, range: 8, category: "\(run ? "run" : "walk")-\(carry.rawValue)")
    }

    /// A kiosk at rest, lifted, carried 3–8 s and set down tilted 0–20°.
    public func lifts(count: Int) -> LabelledTrace {
        var sc = scene(7)
        var labels: [Label] = []
        for _ in 0..<count {
            sc.orientation = Mat3.facing(V3(0, 0, 1), yaw: sc.rng.uniform(0, 6.28))
            sc.rest(3)
            let onset = sc.time
            sc.liftAndCarry(lift: sc.rng.uniform(0.2, 0.5), carry: sc.rng.uniform(3, 8), tilt: sc.rng.uniform(0, 20))
            labels.append(Label(kind: .lift, onset: us(onset), end: us(sc.time)))
            sc.rest(2)
        }
        return finish(sc, name: "lifts", labels: labels, range: 8, category: "lift")
    }

    func f1(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? "\(Int(r)).0" : "\(r)"
    }
}
