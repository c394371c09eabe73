import Foundation
import JoltBaselines
import JoltCore
import JoltTestSupport
import Testing

@Suite("Shake detection")
struct ShakeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let freq: Double, amp: Double, rate: Double
        let axis: (Double, Double, Double)
        var testDescription: String { "\(freq) Hz \(amp) g at \(rate) Hz along \(axis)" }
    }

    static let cases: [Case] = {
        var c: [Case] = []
        for rate in [50.0, 100, 400] {
            for freq in [2.0, 3.5, 5, 8] where freq < rate / 4 {
                for amp in [1.2, 2.0, 3.5] {
                    for axis in [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (1.0, 1.0, 0.5)] {
                        c.append(Case(freq: freq, amp: amp, rate: rate, axis: axis))
                    }
                }
            }
        }
        return c
    }()

    @Test("a deliberate shake fires began once, soon, then ended", arguments: cases)
    func deliberateShake(_ c: Case) {
        var g = SignalBuilder(rate: c.rate)
        g.rest(1)
        let onset = g.t
        g.shake(freq: c.freq, amp: c.amp, axis: c.axis, seconds: 1.5)
        g.rest(2)
        var d = DefaultDetectors(settings(rate: c.rate))
        let ev = detect(&d, g.samples)
        let began = ev.filter { $0.e.contains(.shakeBegan) }
        let ended = ev.filter { $0.e.contains(.shakeEnded) }
        #expect(began.count == 1, "began \(began.count) times")
        #expect(ended.count == 1, "ended \(ended.count) times")
        #expect(!ev.contains { $0.e.contains(.shakeCancelled) })
        if let b = began.first {
            let latency = Double(b.t) / 1e6 - onset
            // Recognised within about one and a half cycles (plus a sample).
            #expect(latency <= 1.5 / c.freq + 2 / c.rate + 0.05, "latency \(latency) s")
            if let e = ended.first { #expect(e.t > b.t) }
        }
    }

    @Test("a shake clipped by a ±2 g range is still a shake", arguments: [(1.0, 0.0, 0.0), (0.0, 0.0, 1.0)])
    func clipped(axis: (Double, Double, Double)) {
        var g = SignalBuilder(rate: 100)
        g.clip = 2
        g.rest(1)
        g.shake(freq: 4, amp: 3.5, axis: axis, seconds: 1.5)
        g.rest(2)
        var d = DefaultDetectors(settings(rate: 100))
        #expect(detect(&d, g.samples).filter { $0.e.contains(.shakeBegan) }.count == 1)
    }

    @Test("rest noise never fires", arguments: [12.5, 50, 100, 1000])
    func restNoise(rate: Double) {
        var g = SignalBuilder(rate: rate)
        g.noise = 0.02
        g.rest(30)
        var d = DefaultDetectors(settings(rate: rate))
        #expect(detect(&d, g.samples).isEmpty)
    }

    @Test("knocks on the table are not shakes", arguments: [0.5, 1.5, 3, 5])
    func knocks(peak: Double) {
        for rate in [50.0, 100, 400] {
            var g = SignalBuilder(rate: rate)
            g.rest(1)
            for _ in 0..<5 {
                g.knock(peak: peak, ringHz: 35, decay: 0.03)
                g.rest(0.4)
            }
            var d = DefaultDetectors(settings(rate: rate))
            let ev = detect(&d, g.samples)
            #expect(!ev.contains { $0.e.contains(.shakeBegan) }, "rate \(rate), peak \(peak) g")
        }
    }

    @Test("the refractory period: two shakes closer than 1 s after the first ends make one")
    func refractory() {
        var g = SignalBuilder(rate: 100)
        g.rest(1)
        g.shake(freq: 5, amp: 2, seconds: 1)
        g.rest(0.6)   // shake ends ~0.4 s into this rest; the next starts 0.2 s later
        g.shake(freq: 5, amp: 2, seconds: 0.6)
        g.rest(2.5)
        g.shake(freq: 5, amp: 2, seconds: 1)
        g.rest(2)
        var d = DefaultDetectors(settings(rate: 100))
        let began = detect(&d, g.samples).filter { $0.e.contains(.shakeBegan) }
        #expect(began.count == 2, "\(began.map(\.t))")
    }

    @Test("refractory period is configurable")
    func refractoryConfigurable() {
        var g = SignalBuilder(rate: 100)
        g.rest(1)
        g.shake(freq: 5, amp: 2, seconds: 1)
        g.rest(0.6)
        g.shake(freq: 5, amp: 2, seconds: 0.6)
        g.rest(2)
        var s = settings(rate: 100)
        s.shake.refractoryMillis = 0
        var d = DefaultDetectors(s)
        #expect(detect(&d, g.samples).filter { $0.e.contains(.shakeBegan) }.count == 2)
    }

    @Test("a shake going on past the maximum duration is cancelled, and does not begin again until it stops")
    func cancelled() {
        var g = SignalBuilder(rate: 100)
        g.rest(1)
        g.shake(freq: 6, amp: 1.5, seconds: 12)
        g.rest(2)
        var d = DefaultDetectors(settings(rate: 100))
        let ev = detect(&d, g.samples)
        let began = ev.filter { $0.e.contains(.shakeBegan) }
        let cancelled = ev.filter { $0.e.contains(.shakeCancelled) }
        #expect(began.count == 1)
        #expect(cancelled.count == 1)
        #expect(!ev.contains { $0.e.contains(.shakeEnded) })
        if let b = began.first, let c = cancelled.first {
            #expect(abs(Double(c.t - b.t) / 1e6 - 4.0) < 0.05, "cancelled after the 4 s maximum")
        }
    }

    @Test("presets order by sensitivity: a gentle shake is caught by high, not by low")
    func presets() {
        func began(_ s: Sensitivity, amp: Double) -> Int {
            var g = SignalBuilder(rate: 100)
            g.rest(1)
            g.shake(freq: 4, amp: amp, seconds: 1.5)
            g.rest(2)
            var d = DefaultDetectors(settings(rate: 100, s))
            return detect(&d, g.samples).filter { $0.e.contains(.shakeBegan) }.count
        }
        #expect(began(.high, amp: 0.7) == 1)
        #expect(began(.medium, amp: 0.7) == 0)
        #expect(began(.medium, amp: 0.9) == 1)
        #expect(began(.low, amp: 0.9) == 0)
        #expect(began(.low, amp: 2.0) == 1)
    }

    @Test("the phone algorithms fire past their thresholds and not below", arguments: ShakeAlgorithm.allCases.filter { $0 != .jolt })
    func phoneAlgorithms(_ alg: ShakeAlgorithm) {
        func began(amp: Double, axis: (Double, Double, Double) = (1, 0, 0)) -> Int {
            var g = SignalBuilder(rate: 100)
            g.rest(1)
            g.shake(freq: 4, amp: amp, axis: axis, seconds: 1)
            g.rest(2)
            var s = settings(rate: 100)
            s.shakeAlgorithm = alg
            return run(alg, s, g.samples).filter { $0.e.contains(.shakeBegan) }.count
        }
        switch alg {
        case .threshold:
            #expect(began(amp: 2.3) == 0)
            #expect(began(amp: 2.7) >= 1)
        case .planar:
            #expect(began(amp: 2.2) == 0)
            #expect(began(amp: 2.5) >= 1)
            #expect(began(amp: 3.0, axis: (0, 0, 1)) == 0, "z does not count")
        case .lowpass:
            #expect(began(amp: 0.2) == 0)
            #expect(began(amp: 0.6) >= 1)
        case .window:
            // |a| = sqrt(1 + d²) must pass 1.3256 g on 3/4 of the samples.
            #expect(began(amp: 0.5) == 0)
            #expect(began(amp: 3.0) >= 1)
        case .jolt:
            break
        }
    }

    @Test("phone algorithms: a trigger every half cycle makes one shake per second, as the apps do")
    func phoneRefractory() {
        var g = SignalBuilder(rate: 100)
        g.rest(1)
        g.shake(freq: 4, amp: 3, seconds: 2.5)
        g.rest(2)
        var s = settings(rate: 100)
        s.shakeAlgorithm = .threshold
        let began = run(.threshold, s, g.samples).filter { $0.e.contains(.shakeBegan) }
        #expect(began.count == 3, "\(began.map(\.t))")
        for (a, b) in zip(began, began.dropFirst()) { #expect(b.t - a.t >= 1_000_000) }
    }

    @Test("strokes far past any chip (a trace may hold ±1000 g) are a shake, not an overflow", arguments: [900.0, 1000])
    func hugeStrokes(g: Double) {
        // Two lobes of 900 g pointing opposite ways made the opposition test's products overflow
        // (a trap: the process died on a valid trace).
        var b = SignalBuilder(rate: 100, seed: 4)
        b.noise = 0
        b.rest(2)
        for k in 0..<8 { for _ in 0..<8 { b.emit((k % 2 == 0 ? g : -g, 0, 1)) } }
        b.rest(2)
        let began = run(.jolt, settings(rate: 100), b.samples).filter { $0.e.contains(.shakeBegan) }
        #expect(began.count == 1)
    }

    /// Half-sine strokes of 100 ms (a 5 Hz shake) at 100 Hz after 2 s at rest, along the given
    /// directions in the x-y plane (degrees) with the given peaks (g), then rest; the `began`s.
    func strokes(_ s: [(degrees: Double, g: Double)]) -> [Int64] {
        var b = SignalBuilder(rate: 100, seed: 9)
        b.noise = 0
        b.rest(2)
        for (deg, g) in s {
            let c = cos(deg * .pi / 180), n = sin(deg * .pi / 180)
            for i in 1...10 {
                let a = g * sin(Double(i) * .pi / 11)
                b.emit((a * c, a * n, 1))
            }
        }
        b.rest(2)
        return run(.jolt, settings(rate: 100), b.samples).filter { $0.e.contains(.shakeBegan) }.map(\.t)
    }

    @Test("a lopsided second stroke from rest restarts the chain rather than ending it")
    func lopsidedStart() {
        // The second stroke points 130° from the first (cos −0.64: not opposite enough to
        // continue a chain); the strokes after it are a regular shake along its axis.
        let began = strokes([(0, 0.9), (130, 0.9), (310, 0.9), (130, 0.9), (310, 0.9)])
        #expect(began.count == 1, "\(began)")
        // Recognised at the third stroke after the restart (the fourth), not before.
        if let t = began.first { #expect(t >= 2_300_000 && t < 2_400_000, "\(t)") }
    }

    /// The same strokes fed to the shake detector itself as its dynamic acceleration (no gravity
    /// estimate in between), so the angles between them are exactly those given; the `began`s.
    func directStrokes(_ s: [(degrees: Double, g: Double)]) -> [Int64] {
        pacedStrokes(s.map { ($0.degrees, $0.g, 10) })
    }

    @Test("a chain restarts at most twice before it is recognised")
    func twoRestarts() {
        // Every third stroke turns only 130° from the last: two restarts, and the third ends it.
        let third = directStrokes([(0, 0.9), (130, 0.9), (310, 0.9), (80, 0.9), (260, 0.9), (30, 0.9), (210, 0.9), (30, 0.9)])
        #expect(third.isEmpty, "\(third)")
        // Two lopsided strokes, then a regular shake: recognised at its third stroke.
        let twice = directStrokes([(0, 0.9), (130, 0.9), (310, 0.9), (80, 0.9), (260, 0.9), (80, 0.9)])
        #expect(twice.count == 1, "\(twice)")
        if let t = twice.first { #expect(t >= 2_500_000 && t < 2_600_000, "\(t)") }
    }

    @Test("a stroke back too weak to count restarts a chain from rest; none between ends it")
    func weakStrokeBetween() {
        // The stroke back peaks at 0.5 g, under the 0.7 g threshold (at 25 Hz a stroke's peak
        // can fall between samples); the next points the same way as the first. Recognised at
        // the third counted stroke after the restart (the fifth), not before.
        let weak = directStrokes([(0, 0.9), (180, 0.5), (0, 0.9), (180, 0.9), (0, 0.9)])
        #expect(weak.count == 1, "\(weak)")
        if let t = weak.first { #expect(t >= 2_400_000 && t < 2_500_000, "\(t)") }
        // Two strokes the same way with nothing between (a step, then the next): the chain ends,
        // and the regular strokes after them start nothing.
        #expect(directStrokes([(0, 0.9), (0, 0.9), (180, 0.9), (0, 0.9), (180, 0.9)]).isEmpty)
    }

    @Test("a lobe that starts one half-period minimum after the last (a sample later at 25 Hz) is a split stroke: the chain restarts there")
    func splitAtMinimumHalf() {
        // 40 ms (the 40 ms minimum half-period) after the first stroke, a stroke 100° from it:
        // at 25 Hz the very next sample. The regular strokes after it are a shake, recognised at
        // the third lobe of the restarted chain.
        let split = pacedStrokes([(0, 1.5, 4), (100, 1.0, 8), (280, 1.0, 8), (100, 1.0, 8), (280, 1.0, 8)])
        #expect(split.count == 1, "\(split)")
        if let t = split.first { #expect(t >= 2_200_000 && t < 2_300_000, "\(t)") }
        // 50 ms after: no split, and a lobe 100° from the last ends the chain, as walking's does.
        #expect(pacedStrokes([(0, 1.5, 5), (100, 1.0, 8), (280, 1.0, 8), (100, 1.0, 8), (280, 1.0, 8)]).isEmpty)
    }

    @Test("from a still hand, a side lobe under 0.6 of the first stroke is passed over; a stronger one ends the chain")
    func weakSideLobe() {
        // The first stroke (2 g), a side lobe 100° from it (0.8 g: past the threshold, 0.4 of the
        // stroke), rest for a sample, then strokes back and forth: two strong opposite strokes.
        let side = pacedStrokes([(0, 2.0, 8), (100, 0.8, 4), (0, 0, 1), (180, 2.0, 8), (0, 2.0, 8)])
        #expect(side.count == 1, "\(side)")
        if let t = side.first { #expect(t >= 2_130_000 && t < 2_210_000, "\(t)") }
        // A side lobe of 1.5 g (0.75 of the stroke) is a stroke of its own, and not opposite.
        #expect(pacedStrokes([(0, 2.0, 8), (100, 1.5, 4), (0, 0, 1), (180, 2.0, 8), (0, 2.0, 8)]).isEmpty)
    }

    @Test("a restart needs the strokes to point at least 120° apart, and its full three lobes")
    func restartLimits() {
        // 100° apart: the chain ends, as walking's does; nothing starts until a quiet spell.
        #expect(strokes([(0, 0.9), (100, 0.9), (280, 0.9), (100, 0.9), (280, 0.9)]).isEmpty)
        // Two strong strokes suffice for a chain begun after rest, not for a restarted one (the
        // start of a run looks the same).
        #expect(strokes([(0, 0.9), (130, 1.6), (310, 1.6)]).isEmpty)
        #expect(strokes([(0, 1.6), (180, 1.6)]).count == 1)
    }

    /// Half-sine strokes fed to the shake detector as its dynamic acceleration at 100 Hz after
    /// 2 s at rest: each along a direction in the x-y plane (degrees), with a peak (g; 0 is rest)
    /// and a length in samples; the `began`s.
    func pacedStrokes(_ s: [(degrees: Double, g: Double, samples: Int)], calmPair: Int32 = 83, threshold: Int32 = 700) -> [Int64] {
        var settings = ShakeSettings.preset(.medium)
        settings.calmPairPercent = calmPair
        settings.thresholdMilliG = threshold
        var d = JoltShake(settings: settings)
        var t: Int64 = 0
        var began: [Int64] = []
        func feed(_ v: Vec3) {
            if d.update(Sample(t: t, accel: Vec3(v.x, v.y, v.z + 1000)), dynamic: v) == .began { began.append(t) }
            t += 10_000
        }
        for _ in 0..<200 { feed(.zero) }
        for (deg, g, n) in s {
            let c = cos(deg * .pi / 180), k = sin(deg * .pi / 180)
            for i in 1...n {
                let a = g * sin(Double(i) * .pi / Double(n + 1)) * 1000
                feed(Vec3(Int32(a * c), Int32(a * k), 0))
            }
        }
        for _ in 0..<200 { feed(.zero) }
        return began
    }

    @Test("calm_pair 0.83 (the high preset's): from a still hand, a second stroke within 200 ms reaching 0.83 of the first is a shake; a run's first strides, a weaker recoil or strokes after motion are not; off (medium's), the third stroke")
    func calmPair() {
        #expect(ShakeSettings.preset(.medium).calmPairPercent == 0 && ShakeSettings.preset(.low).calmPairPercent == 0)
        #expect(ShakeSettings.preset(.high).calmPairPercent == 83)
        // Off: the same gentle slow shake begins at its third stroke.
        let off = pacedStrokes([(0, 0.9, 16), (180, 0.9, 16), (0, 0.9, 16)], calmPair: 0)
        #expect(off.count == 1, "\(off)")
        if let t = off.first { #expect(t > 2_330_000, "\(t)") }
        #expect(pacedStrokes([(0, 0.9, 16), (180, 0.9, 16)], calmPair: 0).isEmpty)
        // A gentle slow shake (0.9 g, 160 ms strokes): recognised as its second stroke passes
        // 0.8 of the first's peak, within 450 ms of the start, not at the third stroke.
        let pair = pacedStrokes([(0, 0.9, 16), (180, 0.9, 16), (0, 0.9, 16)])
        #expect(pair.count == 1, "\(pair)")
        if let t = pair.first { #expect(t > 2_160_000 && t < 2_320_000, "\(t)") }
        // The same strokes 230 ms apart (the first strides of a run, the device in hand): only
        // the third stroke makes it a shake.
        let run = pacedStrokes([(0, 0.9, 23), (180, 0.9, 23), (0, 0.9, 23)])
        #expect(run.count == 1, "\(run)")
        if let t = run.first { #expect(t > 2_460_000, "\(t)") }
        #expect(pacedStrokes([(0, 0.9, 23), (180, 0.9, 23)]).isEmpty)
        // A push and a weaker recoil (0.7 of it): no shake from two strokes.
        #expect(pacedStrokes([(0, 1.15, 16), (180, 0.8, 16)]).isEmpty)
        // Two strokes half a second after a movement past the hysteresis level: no shake.
        #expect(pacedStrokes([(90, 0.5, 10), (0, 0, 50), (0, 0.9, 16), (180, 0.9, 16)]).isEmpty)
        // …a second after, they are.
        #expect(pacedStrokes([(90, 0.5, 10), (0, 0, 100), (0, 0.9, 16), (180, 0.9, 16)]).count == 1)
    }

    @Test("a hand past 0.7 g is no hand at rest, whatever the threshold: with threshold_g 1.0, strides of 0.8 g before strong strokes veto a shake, as they do at 0.7")
    func motionBreaksQuiet() {
        // Strides of 0.8 g every 0.4 s (below a 1.0 g threshold), then three strong strokes
        // 170 ms apart with no pause: walking that ends in a hard stride or two, not a hand
        // that was at rest.
        var strides: [(degrees: Double, g: Double, samples: Int)] = []
        for i in 0..<4 { strides += [(Double(i % 2) * 180, 0.8, 14), (0, 0, 26)] }
        let strong: [(degrees: Double, g: Double, samples: Int)] = [(0, 1.3, 17), (180, 1.3, 17), (0, 1.3, 17)]
        #expect(pacedStrokes(strides + strong, calmPair: 0, threshold: 1000).isEmpty)
        #expect(pacedStrokes(strides + strong, calmPair: 0, threshold: 700).isEmpty)
        // The same strong strokes from rest are a shake at either threshold.
        #expect(pacedStrokes(strong, calmPair: 0, threshold: 1000).count == 1)
        #expect(pacedStrokes(strong, calmPair: 0, threshold: 700).count == 1)
    }

    func run(_ alg: ShakeAlgorithm, _ s: DetectionSettings, _ samples: [Sample]) -> [(t: Int64, e: Events)] {
        switch alg {
        case .jolt: var d = DetectorSet<JoltShake, JoltFlip>(s); return detect(&d, samples)
        case .threshold: var d = DetectorSet<ThresholdShake, JoltFlip>(s); return detect(&d, samples)
        case .lowpass: var d = DetectorSet<LowPassShake, JoltFlip>(s); return detect(&d, samples)
        case .planar: var d = DetectorSet<PlanarShake, JoltFlip>(s); return detect(&d, samples)
        case .window: var d = DetectorSet<WindowShake, JoltFlip>(s); return detect(&d, samples)
        }
    }
}
