#if canImport(Glibc)
import Glibc
#endif
import JoltCore

// A straightforward floating-point implementation of Jolt's default detectors — the same logic,
// decisions and parameters as JoltCore's fixed-point ones, written the way one would with
// Double (g, °/s, seconds) — so the benchmark can measure what fixed point buys, in the same run,
// and check that both find the same events.

struct FloatGravity {
    var x: Real = 0, y: Real = 0, z: Real = 0
    var primed = false
    let alpha: Real
    let k: Real   // Δt in radians per °/s
    let gyro: Bool

    init(_ s: DetectionSettings) {
        let dt = Real(s.periodMicros) / 1e6
        alpha = dt / (Real(s.gravityTauMillis) / 1000 + dt)
        k = dt * Real.pi / 180
        gyro = s.gyro
    }

    mutating func update(_ a: (Real, Real, Real), _ w: (Real, Real, Real)) -> (Real, Real, Real) {
        if !primed {
            (x, y, z) = a
            primed = true
            return a
        }
        if gyro && max(abs(w.0), abs(w.1), abs(w.2)) > 30 {
            func turn(_ v: (Real, Real, Real)) -> (Real, Real, Real) {
                ((v.1 * w.2 - v.2 * w.1) * k, (v.2 * w.0 - v.0 * w.2) * k, (v.0 * w.1 - v.1 * w.0) * k)
            }
            let a1 = turn((x, y, z))
            let a2 = turn(a1)
            x += a1.0 + a2.0 / 2
            y += a1.1 + a2.1 / 2
            z += a1.2 + a2.2 / 2
        } else if max(abs(a.0 - x), abs(a.1 - y), abs(a.2 - z)) <= 0.016 {
            return (x, y, z)   // within the still band: noise
        }
        x += (a.0 - x) * alpha
        y += (a.1 - y) * alpha
        z += (a.2 - z) * alpha
        return (x, y, z)
    }
}

struct FloatShake {
    let threshold, strong, hysteresis: Real
    /// A lobe past this breaks the quiet spell, counted or not (JoltShake.motion2).
    let motion: Real
    /// The second lobe's share of the first's peak from a still hand; 0: the rule is off.
    let calmPair: Real
    let minLobes: Int
    let minHalf, maxHalf: Int64
    let ratio: Real
    let quietBefore: Int64
    let opposition, clippedOpposition, fill: Real
    let clipLevel: Real

    var open = false, counted = false
    var peak: (Real, Real, Real) = (0, 0, 0), peakMag: Real = 0
    var start: Int64 = 0, lastClose: Int64 = .min, openedAt: Int64 = 0
    var lastWidth: Int64 = 0
    var clipped = false, lastClipped = false
    var chain = 0, prevStrong = false, restartsLeft = 0, restarted = false, between = false
    var lastPeak: (Real, Real, Real) = (0, 0, 0), lastPeakMag: Real = 0
    var lastStart: Int64 = 0, lastHalf: Int64 = 0
    var lastCountedEnd: Int64 = .min
    var chainCalm = false
    var pairLevel: Real = .infinity
    var lifecycle: GestureLifecycle

    init(_ s: DetectionSettings) {
        let c = s.shake
        threshold = Real(c.thresholdMilliG) / 1000
        strong = Real(c.strongMilliG) / 1000
        hysteresis = Real(c.hysteresisMilliG) / 1000
        motion = Real(min(c.thresholdMilliG, JoltShake.handMovingMilliG)) / 1000
        let share = Int64(min(max(c.calmPairPercent, 0), 400))
        calmPair = (Real((share * share * 64 + 5000) / 10_000) / 64).squareRoot()   // as the core rounds it
        minLobes = Int(max(c.minLobes, 2))
        minHalf = Int64(c.minHalfPeriodMillis) * 1000
        maxHalf = Int64(c.maxHalfPeriodMillis) * 1000
        ratio = Real(max(c.maxHalfPeriodRatioPercent, 100)) / 100
        quietBefore = Int64(c.quietBeforeMillis) * 1000
        opposition = Real(c.oppositionPercent) / 100
        clippedOpposition = Real(c.clippedOppositionPercent) / 100
        fill = Real(c.fillPercent) / 100
        let r = Real(s.rangeMilliG) / 1000
        clipLevel = r > 0 ? r - r / 50 : .infinity
        lifecycle = GestureLifecycle(quietMicros: Int64(c.quietMillis) * 1000, refractoryMicros: Int64(c.refractoryMillis) * 1000,
                                     maxDurationMicros: Int64(c.maxDurationMillis) * 1000)
    }

    mutating func update(_ t: Int64, _ a: (Real, Real, Real), _ g: (Real, Real, Real)) -> ShakePhase? {
        if lastCountedEnd == .min { lastCountedEnd = t }
        let d = (a.0 - g.0, a.1 - g.1, a.2 - g.2)
        let m = (d.0 * d.0 + d.1 * d.1 + d.2 * d.2).squareRoot()
        var recognised = false, evidence = false
        if open {
            if max(abs(a.0), abs(a.1), abs(a.2)) >= clipLevel { clipped = true }
            if m < hysteresis {
                open = false
                lastClose = t
                if counted || peakMag >= motion { lastCountedEnd = t }
            } else if d.0 * peak.0 + d.1 * peak.1 + d.2 * peak.2 < 0 {
                (recognised, evidence) = startLobe(d, m, t)
            } else if m > peakMag {
                let before = peakMag
                peak = d
                peakMag = m
                if !counted {
                    if m >= threshold { (recognised, evidence) = count() }
                } else if (prevStrong && before < strong && m >= strong) || (before < pairLevel && m >= pairLevel) {
                    recognised = true
                    evidence = true
                }
            }
        } else if m >= hysteresis {
            (recognised, evidence) = startLobe(d, m, t)
        }
        if !recognised && !lifecycle.needsUpdate { return nil }
        return lifecycle.update(t: t, recognised: recognised, evidence: evidence)
    }

    mutating func startLobe(_ d: (Real, Real, Real), _ m: Real, _ t: Int64) -> (Bool, Bool) {
        if open { lastClose = t }
        if open && (counted || peakMag >= motion) { lastCountedEnd = t }
        if counted {
            lastPeak = peak
            lastPeakMag = peakMag
            lastStart = start
            lastWidth = lastClose - openedAt
            lastClipped = clipped
        } else {
            between = true
        }
        pairLevel = .infinity
        open = true
        openedAt = t
        clipped = false
        counted = false
        peak = d
        peakMag = m
        start = lastClose != .min && t - lastClose < maxHalf ? (lastClose + t) / 2 : t
        if m >= threshold { return count() }
        return (false, false)
    }

    mutating func count() -> (Bool, Bool) {
        counted = true
        let half = start - lastStart
        var continues = false, roughly = false
        if chain > 0 && half >= minHalf && half <= maxHalf {
            let cos = (peak.0 * lastPeak.0 + peak.1 * lastPeak.1 + peak.2 * lastPeak.2) / (peakMag * lastPeakMag)
            continues = cos <= -(clipped || lastClipped ? clippedOpposition : opposition)
            roughly = cos <= -0.5 || between
            if continues { continues = Real(lastWidth) >= fill * Real(half) }
            if continues && chain >= 2 {
                continues = Real(half) <= Real(lastHalf) * ratio && Real(lastHalf) <= Real(half) * ratio
            }
        }
        if continues {
            chain += 1
            prevStrong = lastPeakMag >= strong && !restarted
        } else if start - lastCountedEnd >= quietBefore || (chain > 0 && half <= minHalf) {
            if start - lastCountedEnd >= quietBefore {
                restartsLeft = 2
                restarted = false
            }
            chainCalm = openedAt &- max(lastClose, lastCountedEnd) >= quietBefore
            chain = 1
            prevStrong = false
        } else if chain > 0 && chain < minLobes && restartsLeft > 0 && roughly {
            restartsLeft -= 1
            restarted = true
            chain = 1
            prevStrong = false
        } else if chain == 1 && chainCalm && half <= JoltShake.pairHalfMicros && peakMag * 5 < lastPeakMag * 3 {
            counted = false
            return (false, false)
        } else {
            chain = 0
            prevStrong = false
        }
        lastHalf = half
        between = false
        if chain == 0 { return (false, false) }
        if continues && chain == 2 && chainCalm && !restarted && half <= JoltShake.pairHalfMicros && calmPair > 0 {
            pairLevel = max(threshold, lastPeakMag * calmPair)
        }
        return (chain >= minLobes || (prevStrong && peakMag >= strong) || peakMag >= pairLevel, chain >= 2)
    }
}

struct FloatFlip {
    let downZ, releaseZ, still, stillRate: Real
    let useGyro: Bool
    let hold, window, release: Int64
    // The spell since the device came past the release angle or last moved: its band, and the
    // sums for the line fitted through its readings (as JoltFlip keeps them).
    var low: (Real, Real, Real) = (0, 0, 0), high: (Real, Real, Real) = (0, 0, 0)
    var sum: (Real, Real, Real) = (0, 0, 0), weighted: (Real, Real, Real) = (0, 0, 0)
    var count = 0
    var stillSince: Int64 = .min, lastNotDown: Int64 = .min, releaseSince: Int64 = .min
    var isFaceDown = false

    init(_ s: DetectionSettings) {
        let f = s.flip
        // The same thresholds as the fixed-point detector: angles turned into whole milli-g.
        downZ = -Real(Trig.cosMilli(deciDegrees: f.faceDownAngleDeci)) / 1000
        releaseZ = -Real(Trig.cosMilli(deciDegrees: f.releaseAngleDeci)) / 1000
        still = Real(f.stillMilliG) / 1000
        stillRate = Real(f.stillRateMdps) / 1000
        useGyro = s.gyro
        hold = Int64(f.holdMillis) * 1000
        window = Int64(f.flipWindowMillis) * 1000
        release = Int64(f.releaseMillis) * 1000
    }

    mutating func begin(_ t: Int64, _ a: (Real, Real, Real)) {
        stillSince = t
        low = a
        high = a
        sum = a
        weighted = (0, 0, 0)
        count = 1
    }

    mutating func keeps(_ a: (Real, Real, Real), _ w: (Real, Real, Real)) -> Bool {
        if useGyro && max(abs(w.0), abs(w.1), abs(w.2)) > stillRate { return false }
        let lo = (min(low.0, a.0), min(low.1, a.1), min(low.2, a.2))
        let hi = (max(high.0, a.0), max(high.1, a.1), max(high.2, a.2))
        guard max(hi.0 - lo.0, hi.1 - lo.1, hi.2 - lo.2) <= 2 * still, count < Int(JoltFlip.longestSpell) else { return false }
        low = lo
        high = hi
        let i = Real(count)
        weighted = (weighted.0 + i * a.0, weighted.1 + i * a.1, weighted.2 + i * a.2)
        sum = (sum.0 + a.0, sum.1 + a.1, sum.2 + a.2)
        count += 1
        return true
    }

    /// The change of the least-squares line through the spell's readings, largest axis, scaled
    /// up by fewestToJudge / n below that many readings.
    func drift() -> Real {
        let n = Real(count), few = Real(JoltFlip.fewestToJudge)
        func change(_ w: Real, _ s: Real) -> Real { abs(6 * (2 * w - (n - 1) * s) / (n * (n + 1))) }
        return max(change(weighted.0, sum.0), change(weighted.1, sum.1), change(weighted.2, sum.2)) * max(few / n, 1)
    }

    mutating func update(_ t: Int64, _ a: (Real, Real, Real), _ w: (Real, Real, Real)) -> FaceState? {
        if isFaceDown {
            if a.2 > releaseZ {
                if releaseSince == .min { releaseSince = t }
                if t - releaseSince >= release {
                    isFaceDown = false
                    lastNotDown = t
                    stillSince = .min
                    return .faceUp
                }
            } else {
                releaseSince = .min
            }
            return nil
        }
        if a.2 > releaseZ {
            lastNotDown = t
            stillSince = .min
            return nil
        }
        if stillSince == .min || !keeps(a, w) || (t - stillSince >= hold / 2 && drift() > (still * 500).rounded(.down) / 1000) {
            begin(t, a)
        }
        if a.2 <= downZ && t - stillSince >= hold && lastNotDown != .min && stillSince - lastNotDown <= window {
            isFaceDown = true
            releaseSince = .min
            return .faceDown
        }
        return nil
    }
}

/// The default detector set in floating point.
struct FloatDefaultDetectors {
    var gravity: FloatGravity
    var shake: FloatShake
    var flip: FloatFlip
    var tamper: FloatTamper

    init(_ s: DetectionSettings) {
        gravity = FloatGravity(s)
        shake = FloatShake(s)
        flip = FloatFlip(s)
        tamper = FloatTamper(s)
    }

    mutating func update(_ s: Sample) -> Events {
        let a = (Real(s.accel.x) / 1000, Real(s.accel.y) / 1000, Real(s.accel.z) / 1000)
        let w = (Real(s.gyro.x) / 1000, Real(s.gyro.y) / 1000, Real(s.gyro.z) / 1000)
        let g = gravity.update(a, w)
        var e = Events()
        if let p = shake.update(s.t, a, g) { e.formUnion(.shake(p)) }
        if let f = flip.update(s.t, a, w) { e.formUnion(.flip(f)) }
        if tamper.update(s.t, a, w, g) { e.formUnion(.tamper) }
        return e
    }

    mutating func armTamper() { tamper.arm((gravity.x, gravity.y, gravity.z)) }
}

/// The phone shake algorithms in floating point: straightforward, as apps write them.
enum FloatPhone {
    struct Refractory {
        var last: Int64 = .min
        var active = false
        mutating func update(_ t: Int64, _ trigger: Bool) -> Bool {
            if active {
                if t - last >= 1_000_000 { active = false }
                return false
            }
            if trigger && (last == .min || t - last >= 1_000_000) {
                last = t
                active = true
                return true
            }
            return false
        }
    }

    struct Threshold {
        var r = Refractory()
        mutating func update(_ s: Sample) -> Bool {
            let a = (Real(s.accel.x) / 1000, Real(s.accel.y) / 1000, Real(s.accel.z) / 1000)
            return r.update(s.t, max(abs(a.0), abs(a.1), abs(a.2)) > 2.45)
        }
    }

    struct LowPass {
        var g: (Real, Real, Real) = (0, 0, 0), primed = false
        let alpha: Real
        var r = Refractory()
        init(periodMicros: Int64) {
            let tau: Real = (1.0 / 60) * 0.9 / 0.1
            let dt = Real(periodMicros) / 1e6
            alpha = dt / (tau + dt)
        }
        mutating func update(_ s: Sample) -> Bool {
            let a = (Real(s.accel.x) / 1000, Real(s.accel.y) / 1000, Real(s.accel.z) / 1000)
            if !primed { g = a; primed = true }
            g = (g.0 + (a.0 - g.0) * alpha, g.1 + (a.1 - g.1) * alpha, g.2 + (a.2 - g.2) * alpha)
            return r.update(s.t, max(abs(a.0 - g.0), abs(a.1 - g.1), abs(a.2 - g.2)) > 0.38)
        }
    }

    struct Planar {
        var r = Refractory()
        mutating func update(_ s: Sample) -> Bool {
            let x = Real(s.accel.x) / 1000, y = Real(s.accel.y) / 1000
            return r.update(s.t, (x * x + y * y).squareRoot() > 2.3)
        }
    }

    struct Window {
        var q: [Bool]
        var head = 0, count = 0, ones = 0
        let minCount: Int
        var r = Refractory()
        init(periodMicros: Int64) {
            let n = Int(500_000 / periodMicros) + 1
            q = Array(repeating: false, count: min(n, 512))
            minCount = Int((250_000 + periodMicros - 1) / periodMicros) + 1
        }
        mutating func update(_ s: Sample) -> Bool {
            let a = (Real(s.accel.x), Real(s.accel.y), Real(s.accel.z))
            let accelerating = (a.0 * a.0 + a.1 * a.1 + a.2 * a.2).squareRoot() / 1000 * 9.80665 > 13
            if count == q.count { if q[head] { ones -= 1 } } else { count += 1 }
            q[head] = accelerating
            if accelerating { ones += 1 }
            head = (head + 1) % q.count
            let shaking = count >= minCount && ones >= count / 2 + count / 4
            if shaking { head = 0; count = 0; ones = 0 }
            return r.update(s.t, shaking)
        }
    }
}
