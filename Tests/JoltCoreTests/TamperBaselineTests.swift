#if canImport(Glibc)
import Glibc
#endif
import JoltBaselines
import JoltCore
import Testing

@Suite("Tamper baselines: the ADXL345's activity interrupt and a plain tilt rule")
struct TamperBaselineTests {
    func sample(_ t: Int64, _ x: Int32, _ y: Int32, _ z: Int32) -> Sample { Sample(t: t, accel: Vec3(x, y, z)) }

    @Test("activity: AC-coupled to the first reading after arming, any axis past 0.25 g")
    func activity() {
        var a = ActivityTamper()
        let unarmed = a.update(sample(0, 0, 500, 866))
        #expect(!unarmed, "not armed: nothing")
        a.arm()
        let seen = [sample(10_000, 0, 500, 866), sample(20_000, 240, 500, 866), sample(30_000, 0, 260, 1100),
                    sample(40_000, 0, 500, 1117), sample(50_000, -260, 500, 866)].map { a.update($0) }
        // The first is the reference; 0.24 g on x and 0.234 g on z are within; 0.251 g on z and
        // 0.26 g on x are past it.
        #expect(seen == [false, false, false, true, true], "\(seen)")
    }

    @Test("tilt: past 10 degrees from the armed gravity, not at 9")
    func tilt() {
        var t = TiltTamper()
        #expect(!t.tilted(Vec3(0, 0, 1000)), "not armed")
        t.arm(gravity: Vec3(0, 0, 1000))
        // sin 9° = 0.156, cos 9° = 0.988; sin 11° = 0.191, cos 11° = 0.982.
        #expect(!t.tilted(Vec3(156, 0, 988)))
        #expect(t.tilted(Vec3(191, 0, 982)))
        #expect(t.tilted(Vec3(0, 0, -1000)), "upside down")
        #expect(!t.tilted(Vec3(0, 0, 1300)), "heavier, not tilted")
    }
}

@Suite("Movement: a kiosk that moves, not one that is tapped or rung")
struct MovementTests {
    /// 100 Hz readings of a level kiosk plus `extra` (mg, world = chip axes) at each time, s.
    func run(seconds: Double, _ extra: (Double) -> (Double, Double, Double)) -> [Int64] {
        var m = Movement(periodMicros: 10_000, speedMMs: 20, holdMillis: 120)
        var fired: [Int64] = []
        for i in 0..<Int(seconds * 100) {
            let t = Double(i) / 100
            let e = t < 1 ? (0, 0, 0) : extra(t - 1)
            let s = Sample(t: Int64(i) * 10_000, accel: Vec3(Int32(e.0.rounded()), Int32(e.1.rounded()), Int32((1000 + e.2).rounded())))
            if m.update(s) { fired.append(s.t) }
        }
        return fired
    }

    @Test("a slide's push (0.15 g for 0.2 s, then a gentle stop) fires within 0.4 s; a straight lift too")
    func moves() throws {
        let slide = run(seconds: 4) { t in (t < 0.2 ? 150 * sin(.pi * t / 0.2) : (t < 1 ? -20 : 0), 0, 0) }
        let first = try #require(slide.first)
        #expect(first >= 1_000_000 && first <= 1_400_000, "fired at \(first) µs")
        let lift = run(seconds: 4) { t in (0, 0, t < 0.4 ? 150 * sin(2 * .pi * t / 0.4) : 0) }
        #expect(lift.first.map { $0 <= 1_400_000 } == true, "\(lift)")
    }

    @Test("taps, a ringing counter, a lean and drift do not fire")
    func stays() {
        // Taps: 0.5 g in and back over 20 ms, three a second, for 5 s.
        #expect(run(seconds: 7) { t in
            let p = t.truncatingRemainder(dividingBy: 0.33)
            return (0, p < 0.02 ? 500 * sin(2 * .pi * p / 0.02) : 0, 0)
        }.isEmpty)
        // A ring: 1 g at 8 Hz dying in 0.15 s.
        #expect(run(seconds: 4) { t in (0, 0, 1000 * exp(-t / 0.15) * sin(2 * .pi * 8 * t)) }.isEmpty)
        // Leaning: 1° (17 mg sideways) for 5 s; drift: 10 mg over a minute.
        #expect(run(seconds: 7) { t in (t < 5 ? 17 : 0, 0, 0) }.isEmpty)
        #expect(run(seconds: 61) { t in (10 * t / 60, 0, 0) }.isEmpty)
    }

    /// Readings of a level kiosk at 100 Hz, `extra` (mg, sideways on x or `up` on z) from 1 s:
    /// when it fired and the velocity along that axis after each reading, mm/s.
    func trace(up: Bool = false, _ extra: (Double) -> Double) -> (fired: Int64?, speeds: [Int64]) {
        var m = Movement(periodMicros: 10_000, speedMMs: 20, holdMillis: 120)
        var fired: Int64?, speeds: [Int64] = []
        for i in 0..<300 {
            let t = Double(i) / 100
            let e = Int32((t < 1 ? 0 : extra(t - 1)).rounded())
            let s = Sample(t: Int64(i) * 10_000, accel: up ? Vec3(0, 0, 1000 + e) : Vec3(e, 0, 1000))
            if m.update(s) && fired == nil { fired = s.t }
            speeds.append(up ? m.velocityMMs.z : m.velocityMMs.x)
        }
        return (fired, speeds)
    }

    @Test("the figure in docs/detection.md: a push sideways turns the reading, a push up builds a velocity; a tap's is gone in a sample, a ring and a lean leave none")
    func figure() {
        let push: (Double) -> Double = { t in t < 0.2 ? 150 * sin(.pi * t / 0.2) : (t < 1 ? -20 : 0) }
        let slide = trace(push)
        #expect(slide.fired == 1_100_000, "a slide's push: turned across gravity for 60 ms at +100 ms")
        let lift = trace(up: true, push)
        #expect(lift.speeds[106] >= 20 && lift.speeds[105] < 20, "passes 20 mm/s at +60 ms: \(lift.speeds[100...125])")
        #expect((110...130).contains(lift.speeds.max()!), "peaks near 120 mm/s")
        #expect(lift.fired == 1_180_000, "a lift's push: moved 120 ms later, at +180 ms")
        let tap = trace { t in t < 0.03 ? 500 * sin(2 * .pi * t / 0.03) : 0 }
        #expect(tap.fired == nil && tap.speeds.max()! <= 45 && tap.speeds[102...].allSatisfy { $0 == 0 }, "\(tap.speeds[100...104])")
        let ring = trace(up: true) { t in 1000 * exp(-t / 0.15) * sin(2 * .pi * 8 * t) }
        #expect(ring.fired == nil && ring.speeds.allSatisfy { $0 == 0 })
        let lean = trace { t in t < 5 ? 17 : 0 }
        #expect(lean.fired == nil && lean.speeds.allSatisfy { $0 == 0 })
    }

    /// Readings every 10 ms of `accel(t)` (mg) for `seconds`: when the movement said moving, and
    /// the first time from `restFrom` s on that it was at rest (its rest box available).
    func follow(seconds: Double, restFrom: Double = .infinity, _ accel: (Double) -> Vec3) -> (fired: [Int64], restedAt: Double?) {
        var m = Movement(periodMicros: 10_000, speedMMs: 20, holdMillis: 120)
        var fired: [Int64] = [], rested: Double?
        for i in 0..<Int(seconds * 100) {
            let t = Double(i) / 100
            if m.update(Sample(t: Int64(i) * 10_000, accel: accel(t))) { fired.append(Int64(i) * 10_000) }
            var box = RestBox()
            if rested == nil && t >= restFrom && m.restBox(&box) { rested = t }
        }
        return (fired, rested)
    }

    @Test("a kiosk standing still off its baseline for 1 s puts the baseline there: turned over, it sees a slide again; left tilted, it stops integrating a push that is not there")
    func settles() throws {
        // Level, turned face down at 1 s (every reading a jolt from the old baseline), still,
        // then slid sideways at 2.5 s as in `moves`: seen within 0.4 s.
        let over = follow(seconds: 5) { t in
            let push = t >= 2.5 && t < 2.7 ? 150 * sin(.pi * (t - 2.5) / 0.2) : 0
            return t < 1 ? Vec3(0, 0, 1000) : Vec3(Int32(push.rounded()), 0, -1000)
        }
        let first = try #require(over.fired.first, "the slide of a kiosk turned over is seen")
        #expect(first >= 2_500_000 && first <= 2_900_000, "fired at \(first) µs")
        // Left tilted by 6° (100 mg sideways, a baseline 20 s behind): a push that is not there
        // fires at first, then not once the baseline has moved there, and the detector rests.
        let tilted = follow(seconds: 6, restFrom: 1) { t in t < 1 ? Vec3(0, 0, 1000) : Vec3(105, 0, 995) }
        #expect(!tilted.fired.isEmpty && tilted.fired.allSatisfy { $0 < 2_100_000 }, "\(tilted.fired)")
        #expect(tilted.restedAt.map { $0 <= 2.1 } == true, "rested at \(String(describing: tilted.restedAt)) s")
    }

    @Test("a baseline put at one reading is the mean of the next 100 ms: a first reading 15 mg off does not stay 15 mg off for seconds")
    func freshBaselineIsAMean() {
        // 800 Hz: the first reading 15 mg high on z, then readings 997 and 1003 mg in turn.
        var m = Movement(periodMicros: 1250, speedMMs: 20, holdMillis: 120)
        var seen: [Int32] = []
        for i in 0..<400 {
            _ = m.update(Sample(t: Int64(i) * 1250, accel: Vec3(0, 0, i == 0 ? 1015 : (i % 2 == 0 ? 997 : 1003))))
            if i == 40 || i == 100 || i == 399 { seen.append(m.baselineMilliG.z) }
        }
        // At 50 ms the single reading; from 100 ms on, the mean of the readings since (the 1015
        // among 80 readings of 1000: 1000.2).
        #expect(seen == [1015, 1000, 1000], "\(seen)")
    }

    @Test("a nudge's velocity (60 mg for 50 ms, under the speed) is nothing in flight once under 1.3 mm/s: at rest within 1.5 s, not seconds later")
    func nudgeRests() throws {
        let nudge = follow(seconds: 8, restFrom: 1.05) { t in
            let p = t >= 1 && t < 1.05 ? 60 * sin(.pi * (t - 1) / 0.05) : 0
            return Vec3(Int32(p.rounded()), 0, 1000)
        }
        #expect(nudge.fired.isEmpty)
        let rested = try #require(nudge.restedAt)
        #expect(rested <= 2.5, "at rest at \(rested) s")
    }

    @Test("readings at the ends of Int32 never trap, at the slowest rate and the fastest: jolts hold it quiet, and a step from a stuck reading is the push it is at 1 g")
    func extremes() {
        for period: Int64 in [80_000, 1_000] {
            var m = Movement(periodMicros: period, speedMMs: 20, holdMillis: 120)
            var fired = 0
            let values: [Int32] = [.max, .min, 0, 1000, .max, .max, .min, -1000]
            for i in 0..<64 {
                let v = values[i % values.count], w = values[(i * 3 + 1) % values.count]
                if m.update(Sample(t: Int64(i) * period, accel: Vec3(v, w, v))) { fired += 1 }
            }
            #expect(fired == 0, "jolts of thousands of g zero the velocity (period \(period) µs)")
            // A reading stuck near the top of the range that then steps by 0.1 g on each axis:
            // the turn across a "gravity" of two million g is worked out without overflow, and
            // the step is the same push it is at 1 g: seen as movement the same number of times.
            let samples = Int(max(64, 600_000 / period))
            func steps(from g: Int32) -> Int {
                var m = Movement(periodMicros: period, speedMMs: 20, holdMillis: 120)
                var moved = 0
                for i in 0..<samples {
                    let v = g - (i < 8 ? 0 : 100)
                    if m.update(Sample(t: Int64(i) * period, accel: Vec3(v, v, v))) { moved += 1 }
                }
                return moved
            }
            let atOneG = steps(from: 577), stuck = steps(from: .max)
            #expect(atOneG > 0, "a 0.17 g push held for 0.6 s is movement (period \(period) µs)")
            #expect(stuck == atOneG, "stuck at the top: \(stuck) firings, at 1 g: \(atOneG) (period \(period) µs)")
        }
    }

    @Test("readings that may fold taps into spikes (a foreign trace at 50 Hz or below): a lone one-sample spike moves nothing, nor at 50 Hz a spike of two, a push of several samples still fires; not despiked at 100 Hz, nor for Jolt's own readings")
    func despikes() {
        func fires(rate: Int64, despike: Bool = true, _ extra: (Int) -> Int32) -> Bool {
            let period = 1_000_000 / rate
            var m = Movement(periodMicros: period, speedMMs: 20, holdMillis: 120, despike: despike)
            var fired = false
            for i in 0..<Int(rate * 4) {
                let e = i < Int(rate) ? 0 : extra(i - Int(rate))
                if m.update(Sample(t: Int64(i) * period, accel: Vec3(e, 0, 1000))) { fired = true }
            }
            return fired
        }
        // Taps at 25 Hz: one sample of 0.3 g sideways every 0.4 s, nothing between. Read as they
        // are (Jolt's own readings are filtered and never look like this), they are a push.
        let taps: (Int) -> Int32 = { i in i % 10 == 0 ? 300 : 0 }
        #expect(!fires(rate: 25, taps))
        #expect(fires(rate: 25, despike: false, taps))
        #expect(!fires(rate: 50) { i in i % 20 == 0 ? 300 : 0 })
        // At 50 Hz a 30 ms tap can fall on two samples: taps of two, every 0.4 s, move nothing
        // either (a push, read as it is); three in a row are a push.
        let pairTaps: (Int) -> Int32 = { i in i % 20 < 2 ? 300 : 0 }
        #expect(!fires(rate: 50, pairTaps))
        #expect(fires(rate: 50, despike: false, pairTaps))
        #expect(fires(rate: 50) { i in i % 20 < 3 ? 300 : 0 })
        #expect(Movement(periodMicros: 20_000, speedMMs: 20, holdMillis: 120, despike: true).pairs)
        #expect(Movement(periodMicros: 40_000, speedMMs: 20, holdMillis: 120, despike: true).pairs == false)
        #expect(Movement(periodMicros: 10_000, speedMMs: 20, holdMillis: 120, despike: true).despike == false)
        #expect(Movement(periodMicros: 20_000, speedMMs: 20, holdMillis: 120, despike: true).despike)
        #expect(Movement(periodMicros: 40_000, speedMMs: 20, holdMillis: 120).despike == false)
        // A slide's push: 0.15 g for 0.2 s.
        #expect(fires(rate: 25) { i in i < 5 ? 150 : 0 })
        #expect(fires(rate: 50) { i in i < 10 ? 150 : 0 })
    }
}
