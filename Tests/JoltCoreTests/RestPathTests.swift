import JoltBaselines
import JoltCore
import JoltTestSupport
import Testing

/// The rest path must be invisible: the default set with it and without gives the same events
/// at the same times, and the same gravity, orientation and shake state, on any signal. Signals
/// here are random: long rests at several noise levels and offsets, slow drifts and tilts, taps
/// and knocks, shakes, flips, gaps and clocks that stall or step back, readings far past any
/// chip, and the alarm arming, disarming and re-arming at random moments.
@Suite("the rest path")
struct RestPathTests {
    /// A random signal of about `seconds`, at `rate`.
    static func signal(seed: UInt64, rate: Double, seconds: Double) -> [Sample] {
        var b = SignalBuilder(rate: rate, seed: seed)
        var rng = SplitMix64(state: seed ^ 0x5eed)
        func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        func axis() -> (Double, Double, Double) {
            let v = (rng.normal(), rng.normal(), rng.normal())
            let n = max((v.0 * v.0 + v.1 * v.1 + v.2 * v.2).squareRoot(), 1e-9)
            return (v.0 / n, v.1 / n, v.2 / n)
        }
        while b.t < seconds {
            b.noise = [0.001, 0.004, 0.006, 0.012, 0.03][pick(5)]
            switch pick(10) {
            case 0, 1, 2: b.rest(0.5 + rng.uniform() * 6)
            case 3: b.rotate(axis: axis(), degrees: rng.uniform() * 4, seconds: 1 + rng.uniform() * 20)   // drift, a lean
            case 4: b.rotate(axis: axis(), degrees: 5 + rng.uniform() * 40, seconds: 0.3 + rng.uniform() * 3)
            case 5: b.rotate(axis: (1, 0, 0), degrees: pick(2) == 0 ? 180 : -180, seconds: 0.4 + rng.uniform())
            case 6: b.knock(peak: 0.05 + rng.uniform() * 2, axis: axis())
            case 7: b.shake(freq: 1.5 + rng.uniform() * 8, amp: 0.3 + rng.uniform() * 2.5, axis: axis(), seconds: 0.3 + rng.uniform() * 3)
            case 8: b.t += [0.015, 0.05, 0.5, 3][pick(4)]   // a gap
            default:
                // A trace that says strange things: a reading far past any chip, or a clock
                // that stands still or steps back.
                let big = Int32([2_000_000, -2_500_000, 1_000_000_000, Int32.max][pick(4)])
                let last = b.samples.last ?? Sample(t: 0, accel: Vec3(0, 0, 1000))
                if pick(2) == 0 {
                    b.samples.append(Sample(t: last.t + 1, accel: Vec3(big, last.accel.y, last.accel.z)))
                } else {
                    for k in 0..<(5 + pick(40)) {
                        b.samples.append(Sample(t: last.t - Int64(pick(3)) * 1000 * Int64(k % 2), accel: last.accel, gyro: last.gyro))
                    }
                }
            }
        }
        return b.samples
    }

    /// Runs `samples` through two default sets, one with the rest path and one without, with the
    /// same random commands; returns how many samples took the rest path.
    static func compare(_ samples: [Sample], _ settings: DetectionSettings, seed: UInt64) -> (rest: Int, events: Int) {
        var fast = DefaultDetectors(settings)
        var full = DefaultDetectors(settings)
        full.restPath = false
        var rng = SplitMix64(state: seed)
        var rest = 0, events = 0
        for (i, s) in samples.enumerated() {
            if i > 0 && rng.next() % 1500 == 0 {
                switch rng.next() % 5 {
                case 0, 1: fast.armTamper(); full.armTamper()
                case 2: fast.disarmTamper(); full.disarmTamper()
                case 3:
                    let r = Vec3(Int32(rng.next() % 400) - 200, Int32(rng.next() % 400) - 200, 980)
                    fast.armTamper(reference: r); full.armTamper(reference: r)
                default: fast.reset(); full.reset()
                }
            }
            if fast.takesRestPath(s) { rest += 1 }
            let a = fast.update(s), b = full.update(s)
            if !b.isEmpty { events += 1 }
            guard a == b && fast.gravity == full.gravity && fast.isFaceDown == full.isFaceDown
                && fast.shakeSince == full.shakeSince && fast.tamperArmed == full.tamperArmed
            else {
                Issue.record("seed \(seed), rate \(settings.rateMilliHz) mHz, gyro \(settings.gyro): sample \(i) at t=\(s.t): rest path \(a.rawValue), full path \(b.rawValue)")
                return (rest, events)
            }
        }
        return (rest, events)
    }

    @Test("random signals at every rate, with and without a gyroscope, armed and not: the same events at the same times",
          arguments: [12.5, 25, 50, 100, 200, 400, 800, 1000])
    func randomSignals(rate: Double) {
        var rest = 0, samples = 0, events = 0
        for k in 0..<6 {
            let seed = UInt64(rate * 8) &+ UInt64(k) &* 7919
            let signal = Self.signal(seed: seed, rate: rate, seconds: 120)
            let gyro = k % 2 == 0
            var s = settings(rate: rate, gyro: gyro, [Sensitivity.low, .medium, .high][k % 3])
            s.rangeMilliG = [0, 2000, 8000][k % 3]
            let r = Self.compare(signal, s, seed: seed)
            rest += r.rest
            events += r.events
            samples += signal.count
        }
        // Not vacuous: the rest path was taken, and events were raised on both sides of it.
        #expect(rest * 8 > samples, "only \(rest) of \(samples) samples took the rest path")
        #expect(events > 20)
    }

    @Test("the algorithms without a rest path never take one")
    func othersHaveNone() {
        var d = DetectorSet<ThresholdShake, PhoneFlip>(settings(rate: 100))
        var taken = 0
        for s in Self.signal(seed: 3, rate: 100, seconds: 30) {
            if d.takesRestPath(s) { taken += 1 }
            _ = d.update(s)
        }
        #expect(taken == 0)
    }

    @Test("a kiosk at rest takes the rest path nearly always; a tap, a turn or a command leaves it at once")
    func restAndLeave() {
        var b = SignalBuilder(rate: 100, seed: 9)
        b.rest(30)
        let calm = b.samples
        var d = DefaultDetectors(settings(rate: 100))
        _ = d.update(calm[0])
        d.armTamper()
        var taken = 0
        for s in calm.dropFirst() {
            if d.takesRestPath(s) { taken += 1 }
            _ = d.update(s)
        }
        #expect(taken * 100 > (calm.count - 1) * 95, "\(taken) of \(calm.count - 1)")
        let last = calm[calm.count - 1]
        let tap = Sample(t: last.t + 10_000, accel: Vec3(last.accel.x + 200, last.accel.y, last.accel.z), gyro: last.gyro)
        let turning = Sample(t: last.t + 10_000, accel: last.accel, gyro: Vec3(40_000, 0, 0))
        let next = Sample(t: last.t + 10_000, accel: last.accel, gyro: last.gyro)
        #expect(d.takesRestPath(next))
        #expect(!d.takesRestPath(tap))
        #expect(!d.takesRestPath(turning))
        d.disarmTamper()
        #expect(!d.takesRestPath(next))
    }
}
