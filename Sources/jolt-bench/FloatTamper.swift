#if canImport(Glibc)
import Glibc
#endif
import JoltCore

/// The tamper detector in floating point: the same movement (a leaky velocity past a dead zone
/// around a slow baseline, zeroed by jolts and rings) and the same tilt test, in g and seconds.
/// With a gyroscope (`fine`, MovementGyro.swift), the rotation since the baseline in degrees,
/// the bias in dps, and the distance the velocity has carried the kiosk in g·s².
struct FloatMovement {
    let period: Real, speed: Real, hold: Int64, leak: Real, gain: Real
    let dead: Real = 0.025, shock: Real = 0.45
    let fine: Bool, pastDead: Real
    /// With a gyroscope, the deviation the velocity takes is low-passed (τ 20 ms, within ±0.45 g),
    /// and a ring's reversals are judged on it, past the quiet band (Movement.smoothed).
    let smooth: Real, ringLevel: Real
    var f: (Real, Real, Real) = (0, 0, 0)
    var r: (Real, Real, Real) = (0, 0, 0), wb: (Real, Real, Real) = (0, 0, 0), ws: (Real, Real, Real) = (0, 0, 0)
    var x: (Real, Real, Real) = (0, 0, 0)
    let travelLeak: Real, travel: Real = 0.01 / 9.80665
    /// At 50 Hz and below, each deviation a sample late, lone spikes left out (Movement.despike);
    /// at 50 Hz two samples late, runs of up to two left out (Movement.pairs).
    let despike: Bool, pairs: Bool
    var p1: (Real, Real, Real) = (0, 0, 0), p2: (Real, Real, Real) = (0, 0, 0), pquiet = true
    var p3: (Real, Real, Real) = (0, 0, 0), p4: (Real, Real, Real) = (0, 0, 0), pquiet2 = true
    var started = false
    var sum: (Real, Real, Real) = (0, 0, 0), n: Real = 0, due: Int64 = 0, fresh = false
    var b: (Real, Real, Real) = (0, 0, 0), v: (Real, Real, Real) = (0, 0, 0), d: (Real, Real, Real) = (0, 0, 0)
    var since: Int64 = .min, quietFrom: Int64 = .min, lastReversal: Int64 = .min
    var signs: (Int, Int, Int) = (0, 0, 0)
    let turnLimit: Real = 0.030, turnHold: Int64 = 60_000, turnBand: Real = 0.017, band: Real, lp: Real
    var l: (Real, Real, Real) = (0, 0, 0), turnDir: (Real, Real, Real) = (0, 0, 0)
    var turnSince: Int64 = .min
    /// Off the baseline and still (within 40 mg for 1 s): the baseline moves there.
    let settleBand: Real = 0.040, settleTime: Int64 = 1_000_000
    var held: (Real, Real, Real) = (0, 0, 0), heldSince: Int64 = .min

    init(_ s: DetectionSettings) {
        period = Real(s.periodMicros) / 1e6
        speed = Real(s.tamper.moveSpeedMMs) / 1000 / 9.80665
        hold = Int64(s.tamper.moveMillis) * 1000
        leak = period / 0.5
        gain = period / 20
        lp = period / (0.04 + period)
        despike = s.tamper.mayAlias && s.periodMicros >= Movement.despikePeriodMicros
        pairs = despike && s.periodMicros < 2 * Movement.despikePeriodMicros
        fine = s.gyro && !despike
        pastDead = fine ? Real(Movement.gyroDeadZoneMilliG) / 1000 : dead
        band = fine ? Real(Movement.gyroBandMilliG) / 1000 : turnBand
        smooth = period / (Real(Movement.smoothTauMicros) / 1e6 + period)
        ringLevel = fine ? band : dead
        travelLeak = period / 2
    }

    mutating func restart() {
        started = false
        hush()
        quietFrom = .min; lastReversal = .min
        signs = (0, 0, 0)
        heldSince = .min
    }

    mutating func hush() {
        v = (0, 0, 0)
        x = (0, 0, 0)
        f = (0, 0, 0)
        since = .min
        l = (0, 0, 0)
        turnSince = .min
        p1 = (0, 0, 0); p2 = (0, 0, 0); p3 = (0, 0, 0); p4 = (0, 0, 0); pquiet = true; pquiet2 = true
    }

    /// Whether a reading off the baseline has stayed within 40 mg of one place for 1 s.
    mutating func settled(_ t: Int64, _ a: (Real, Real, Real)) -> Bool {
        if heldSince != .min && max(abs(a.0 - held.0), abs(a.1 - held.1), abs(a.2 - held.2)) <= settleBand {
            return t - heldSince >= settleTime
        }
        held = a
        heldSince = t
        return false
    }

    mutating func reseat(_ t: Int64, _ a: (Real, Real, Real)) {
        b = a
        sum = (0, 0, 0); n = 0
        due = t + 100_000
        fresh = true
        quietFrom = .min
        heldSince = .min
        r = (0, 0, 0); ws = (0, 0, 0)
        hush()
    }

    /// The turn across gravity past 30 mg, low-passed, held the same way for 60 ms.
    mutating func turning(_ t: Int64, _ e: (Real, Real, Real), quiet: Bool) -> Bool {
        var p = e
        if quiet {
            p = (0, 0, 0)
        } else {
            let g2 = b.0 * b.0 + b.1 * b.1 + b.2 * b.2
            if g2 >= 0.25 {
                let q = (e.0 * b.0 + e.1 * b.1 + e.2 * b.2) / g2
                p = (e.0 - b.0 * q, e.1 - b.1 * q, e.2 - b.2 * q)
            }
        }
        l = (l.0 + (p.0 - l.0) * lp, l.1 + (p.1 - l.1) * lp, l.2 + (p.2 - l.2) * lp)
        let l2: Real = l.0 * l.0 + l.1 * l.1 + l.2 * l.2
        guard l2 > turnLimit * turnLimit else {
            turnSince = .min
            return false
        }
        if turnSince == .min || l.0 * turnDir.0 + l.1 * turnDir.1 + l.2 * turnDir.2 <= 0 {
            turnSince = t
            turnDir = l
        }
        return t - turnSince >= turnHold
    }

    /// The reading less the baseline; the baseline moves every 2 s, toward the mean of the
    /// readings since.
    mutating func deviation(_ t: Int64, _ a: (Real, Real, Real), _ w: (Real, Real, Real)) -> (Real, Real, Real) {
        if !started {
            b = a
            sum = (0, 0, 0); n = 0
            due = t + 100_000
            fresh = true
            started = true
            wb = w; ws = (0, 0, 0); r = (0, 0, 0)
        }
        let e = (a.0 - b.0, a.1 - b.1, a.2 - b.2)
        sum = (sum.0 + a.0, sum.1 + a.1, sum.2 + a.2)
        n += 1
        if fine {
            ws = (ws.0 + w.0, ws.1 + w.1, ws.2 + w.2)
            if t >= due { moveBias() }
        }
        if t >= due && fresh {
            // The first, short batch after a single reading became the baseline: its mean.
            b = (sum.0 / n, sum.1 / n, sum.2 / n)
            fresh = false
            sum = (0, 0, 0); n = 0
            due = t + 2_000_000
        } else if t >= due {
            b = (b.0 + (sum.0 - n * b.0) * gain, b.1 + (sum.1 - n * b.1) * gain, b.2 + (sum.2 - n * b.2) * gain)
            sum = (0, 0, 0); n = 0
            due = t + 2_000_000
        }
        return e
    }

    /// One step of the velocity's low-pass toward `e`, each axis within ±0.45 g.
    mutating func smoothed(_ e: (Real, Real, Real)) -> (Real, Real, Real) {
        func step(_ f: Real, _ x: Real) -> Real { f + (min(max(x, -shock), shock) - f) * smooth }
        f = (step(f.0, e.0), step(f.1, e.1), step(f.2, e.2))
        return f
    }

    /// The rotation since the baseline, degrees: at the batch's start, and the rates since less
    /// the bias.
    func turned() -> (Real, Real, Real) {
        (r.0 + (ws.0 - n * wb.0) * period, r.1 + (ws.1 - n * wb.1) * period, r.2 + (ws.2 - n * wb.2) * period)
    }

    /// At a batch: the bias to the batch's mean rate after a restart (the rotation afresh), else
    /// toward it by the baseline's gain, the rotation fading by it.
    mutating func moveBias() {
        if fresh {
            wb = (ws.0 / n, ws.1 / n, ws.2 / n)
            r = (0, 0, 0)
        } else {
            r = turned()
            // The bias follows by the gain, at most 5 mdps a batch (`Movement.biasSlewQ8`).
            func follow(_ b: Real, _ s: Real) -> Real { b + min(max((s - n * b) * gain, -0.005), 0.005) }
            wb = (follow(wb.0, ws.0), follow(wb.1, ws.1), follow(wb.2, ws.2))
            let k = 1 - n * gain
            r = (r.0 * k, r.1 * k, r.2 * k)
        }
        ws = (0, 0, 0)
    }

    /// What the rotation does to gravity, g: the baseline crossed with the rotation in radians.
    func rotated() -> (Real, Real, Real) {
        let (a, c, d) = turned()
        let q = (a * .pi / 180, c * .pi / 180, d * .pi / 180)
        return (b.1 * q.2 - b.2 * q.1, b.2 * q.0 - b.0 * q.2, b.0 * q.1 - b.1 * q.0)
    }

    /// At 50 Hz and below, the last deviation, 0 on an axis where it is a lone spike, and
    /// whether it was quiet (the current one kept).
    mutating func despiked(_ e: (Real, Real, Real), quiet: Bool) -> ((Real, Real, Real), Bool) {
        guard despike else { return (e, quiet) }
        func unlessLone(_ b: Real, _ m: Real, _ a: Real) -> Real {
            if m > dead { return b > dead || a > dead ? m : 0 }
            if m < -dead { return b < -dead || a < -dead ? m : 0 }
            return m
        }
        func side(_ x: Real) -> Int { x > dead ? 1 : (x < -dead ? -1 : 0) }
        func unlessPair(_ b2: Real, _ b1: Real, _ m: Real, _ a1: Real, _ a2: Real) -> Real {
            let s = side(m)
            guard s != 0 else { return m }
            let before = side(b1) == s, after = side(a1) == s
            return (before && side(b2) == s) || (before && after) || (after && side(a2) == s) ? m : 0
        }
        let out = pairs
            ? ((unlessPair(p4.0, p3.0, p2.0, p1.0, e.0), unlessPair(p4.1, p3.1, p2.1, p1.1, e.1), unlessPair(p4.2, p3.2, p2.2, p1.2, e.2)), pquiet2)
            : ((unlessLone(p2.0, p1.0, e.0), unlessLone(p2.1, p1.1, e.1), unlessLone(p2.2, p1.2, e.2)), pquiet)
        p4 = p3
        p3 = p2
        p2 = p1
        p1 = e
        pquiet2 = pquiet
        pquiet = quiet
        return out
    }

    mutating func update(_ t: Int64, _ a: (Real, Real, Real), _ w: (Real, Real, Real)) -> Bool {
        let e = deviation(t, a, w)
        let size = max(abs(e.0), abs(e.1), abs(e.2))
        if endsEarly(t, a, quiet: size <= band) { return false }
        if size > shock { quietFrom = t + 250_000 }
        // With a gyroscope, the velocity and the turn take what the rotation does not explain
        // (the velocity low-passed), and the rotation past a lean's is a turn of its own.
        let k = fine ? rotated() : (0, 0, 0)
        let u = subtract(e, k)
        let (m, mquiet) = fine ? (smoothed(u), size <= band) : despiked(e, quiet: size <= band)
        func sign(_ x: Real) -> Int { x > ringLevel ? 1 : (x < -ringLevel ? -1 : 0) }
        var flipped = false
        func follow(_ x: Real, _ last: inout Int) {
            let n = sign(x)
            if n != 0 { if last == -n { flipped = true }; last = n }
        }
        let ring = fine ? m : e
        follow(ring.0, &signs.0); follow(ring.1, &signs.1); follow(ring.2, &signs.2)
        if flipped {
            if lastReversal != .min && t - lastReversal < 250_000 { quietFrom = t + 250_000 }
            lastReversal = t
        }
        if quietFrom != .min && t < quietFrom {
            hush()
            return false
        }
        let still = mquiet || (fine && max(abs(u.0), abs(u.1), abs(u.2)) <= turnBand)
        let spun = fine && k.0 * k.0 + k.1 * k.1 + k.2 * k.2 > turnLimit * turnLimit
        let turned = turning(t, fine ? u : m, quiet: still) || spun
        func past(_ x: Real) -> Real { x > pastDead ? x - pastDead : (x < -pastDead ? x + pastDead : 0) }
        v = (v.0 + past(m.0) * period - v.0 * leak, v.1 + past(m.1) * period - v.1 * leak, v.2 + past(m.2) * period - v.2 * leak)
        if fine { x = (x.0 + v.0 * period - x.0 * travelLeak, x.1 + v.1 * period - x.1 * travelLeak, x.2 + v.2 * period - x.2 * travelLeak) }
        guard v.0 * v.0 + v.1 * v.1 + v.2 * v.2 > speed * speed else {
            since = .min
            return turned
        }
        if since == .min || v.0 * d.0 + v.1 * d.1 + v.2 * d.2 <= 0 {
            since = t
            d = v
        }
        let far = x.0 * x.0 + x.1 * x.1 + x.2 * x.2 > travel * travel
        return turned || (t - since >= hold && (!fine || far))
    }

    /// The ways a reading ends `update` before the velocity, as in the fixed-point `endsEarly`:
    /// at rest (quiet, nothing in flight), or the baseline put where the kiosk has stood still.
    mutating func endsEarly(_ t: Int64, _ a: (Real, Real, Real), quiet: Bool) -> Bool {
        guard quiet else {
            guard settled(t, a) else { return false }
            reseat(t, a)
            return true
        }
        heldSince = .min
        // What is left in flight on a quiet reading, under 1.3 mm/s and 1 mg, is nothing.
        // (±2^17 mg·µs and ±2^8 in Q8 mg in the fixed-point detector.)
        guard max(abs(v.0), abs(v.1), abs(v.2)) < 1.31072e-4 && max(abs(l.0), abs(l.1), abs(l.2)) < 0.001 else { return false }
        v = (0, 0, 0)
        l = (0, 0, 0)
        x = (0, 0, 0)
        f = (0, 0, 0)
        p1 = (0, 0, 0); p2 = (0, 0, 0); p3 = (0, 0, 0); p4 = (0, 0, 0); pquiet = true; pquiet2 = true
        since = .min
        turnSince = .min
        return true
    }

    func subtract(_ a: (Real, Real, Real), _ b: (Real, Real, Real)) -> (Real, Real, Real) {
        (a.0 - b.0, a.1 - b.1, a.2 - b.2)
    }
}

struct FloatTamper {
    let cos2: Real, holdoff: Int64
    var movement: FloatMovement
    var armed = false
    var reference: (Real, Real, Real) = (0, 0, 1)
    var bucketEnd: Int64 = .min
    var bucketMoved = false
    var lastFired: Int64 = .min

    init(_ s: DetectionSettings) {
        let c = cos(Real(s.tamper.tiltDeci) / 10 * .pi / 180)
        cos2 = c * c
        holdoff = Int64(s.tamper.holdoffMillis) * 1000
        movement = FloatMovement(s)
    }

    mutating func arm(_ g: (Real, Real, Real)) {
        armed = true
        reference = g
        movement.restart()
        bucketEnd = .min
        bucketMoved = false
        lastFired = .min
    }

    mutating func update(_ t: Int64, _ a: (Real, Real, Real), _ w: (Real, Real, Real), _ g: (Real, Real, Real)) -> Bool {
        guard armed else { return false }
        if movement.update(t, a, w) { bucketMoved = true }
        if t < bucketEnd { return false }
        if bucketEnd == .min {
            bucketEnd = t + 20_000
            return false
        }
        let moved = bucketMoved
        bucketMoved = false
        bucketEnd += 20_000
        if bucketEnd <= t { bucketEnd = t + 20_000 }
        if lastFired != .min && t - lastFired < holdoff { return false }
        var fired = moved
        if !fired {
            let dot = g.0 * reference.0 + g.1 * reference.1 + g.2 * reference.2
            let g2 = g.0 * g.0 + g.1 * g.1 + g.2 * g.2
            let r2 = reference.0 * reference.0 + reference.1 * reference.1 + reference.2 * reference.2
            fired = dot < 0 || dot * dot < cos2 * g2 * r2
        }
        if fired { lastFired = t }
        return fired
    }
}
