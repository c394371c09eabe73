/// Jolt's shake detector: a shake is the hand pushing the device one way and pulling it back,
/// again and again, a few times a second.
///
/// What it measures: the dynamic acceleration `d = a − gravity` (gravity from a slow low-pass).
/// It cuts `d` into *lobes*: a lobe starts when |d| rises past the hysteresis level and ends when
/// |d| falls back below it or when `d` turns more than 90° away from the lobe's peak. A lobe
/// *counts* when its peak reaches the threshold. A shake is a chain of counted lobes in which each
/// points the opposite way to the one before (cosine of the angle below -0.75: more than 139°
/// apart), each starts 40-320 ms after
/// the one before (half a cycle of a 1.6-12 Hz shake), and consecutive half-periods are alike
/// (within a factor of 2).
///
/// Why: walking and running shake a pocket too, but the motion is one-signed impacts (heel strike
/// up, then a free-fall that cannot exceed 1 g down) at uneven half-periods, and a knock is a
/// single spike or a ring far faster than a hand. A deliberate shake is symmetric, periodic and
/// reverses direction. Two opposite lobes both past `strong` are recognised at once (about one
/// cycle after onset); gentler shakes need `minLobes` lobes — unless the hand was still before
/// (nothing past the hysteresis level for `quietBefore`) and the second lobe follows the first
/// within 200 ms (half a cycle, shortened by the hand setting off) and reaches 0.83 of its peak:
/// a gentle 2 Hz shake is then recognised at its second stroke, not its third. What else
/// starts from rest with two such lobes does not fit: the first strides of a run, the device
/// in hand, come 220 ms or more apart; a jerk that starts an exercise recoils weaker than it
/// pushed. A chain begun after a quiet spell
/// and not yet recognised restarts, up to twice, at a lobe that points only roughly back (at
/// least 120°, not 139°), or after a stroke back too weak to count, instead of ending: a hand's
/// first strokes from rest are often lopsided.
///
/// All arithmetic is integer: squared lengths in mg², dot products in mg², times in µs.
public struct JoltShake: Sendable {
    // Parameters, fixed point, for one output data rate.
    @usableFromInline let threshold2: Int64
    /// A lobe that reaches this (squared) is a hand in motion, counted or not: it breaks the
    /// quiet spell a shake must start from. The threshold, or `handMovingMilliG` when the
    /// threshold is set higher: a firmer shake is asked for, but a stride or a swing past 0.7 g
    /// is no hand at rest, whatever the threshold.
    @usableFromInline let motion2: Int64
    /// The medium preset's threshold, mg: see `motion2`.
    public static let handMovingMilliG: Int32 = 700
    @usableFromInline let strong2: Int64
    @usableFromInline let hysteresis2: Int64
    @usableFromInline let minLobes: Int32
    @usableFromInline let minHalf: Int64
    @usableFromInline let maxHalf: Int64
    @usableFromInline let ratioPercent: Int64
    @usableFromInline let quietBefore: Int64
    @usableFromInline let opposition2: Int64
    @usableFromInline let fillPercent: Int64
    @usableFromInline let clipLevel: Int32
    @usableFromInline let clippedOpposition2: Int64

    // The open lobe (or, when `open` is false, the last lobe).
    @usableFromInline var open = false
    @usableFromInline var counted = false
    @usableFromInline var peak = Vec3.zero
    @usableFromInline var peak2: Int64 = 0
    /// When the lobe started: midway between the last lobe's end and this one's rise past the
    /// hysteresis level, which is where the motion reversed (the zero crossing, for a sine),
    /// whatever the two lobes' sizes.
    @usableFromInline var start: Int64 = 0
    /// When the last lobe ended, µs.
    @usableFromInline var lastClose: Int64 = .min
    /// When the open lobe rose past the hysteresis level, µs.
    @usableFromInline var openedAt: Int64 = 0
    /// How long the last counted lobe stayed above the hysteresis level, µs.
    @usableFromInline var lastWidth: Int64 = 0
    /// Whether the open lobe, and the last counted one, had a reading at the chip's full scale:
    /// clipping bends a stroke's direction, so the pair need only point roughly opposite ways.
    @usableFromInline var clipped = false
    @usableFromInline var lastClipped = false

    // The chain of counted lobes so far; `last…` describe the previous counted lobe.
    @usableFromInline var chain: Int32 = 0
    /// How many more times a chain begun after a quiet spell may restart before it is
    /// recognised, and whether it did (two strong lobes then do not suffice).
    @usableFromInline var restartsLeft: Int8 = 0
    @usableFromInline var restarted = false
    /// Whether a lobe too weak to count came between the last counted one and the open one.
    @usableFromInline var between = false
    @usableFromInline var prevStrong = false
    @usableFromInline var lastPeak = Vec3.zero
    @usableFromInline var lastPeak2: Int64 = 0
    @usableFromInline var lastStart: Int64 = 0
    @usableFromInline var lastHalf: Int64 = 0
    /// When the last counted lobe ended, µs: a chain only starts after a quiet spell. Until a
    /// first sample has been seen it is unknown (.min); then the stream's start counts as the
    /// last motion, since nothing shows it was quiet before.
    @usableFromInline var lastCountedEnd: Int64 = .min
    /// Whether the chain began with a lobe that rose from a still hand (nothing past the
    /// hysteresis level for `quietBefore` before it).
    @usableFromInline var chainCalm = false
    /// The level (squared) at which the open lobe, the second of such a chain, makes a shake:
    /// `calmPairPercent` of the first lobe's peak (0.83: 44/64 of its square); .max when there
    /// is none.
    @usableFromInline var pairLevel2: Int64 = .max
    /// `calmPairPercent` squared, in 64ths (0.83 gives 44); 0: the rule is off.
    @usableFromInline let pairSquare64: Int64
    /// A chain begun from a still hand is a shake at its second lobe when that lobe starts
    /// within this of the first, µs, and reaches `pairLevel2`.
    public static let pairHalfMicros: Int64 = 200_000

    /// The began / ended / cancelled lifecycle.
    @inlinable public var lifecycle: GestureLifecycle { _lifecycle }
    @usableFromInline var _lifecycle: GestureLifecycle
    /// The largest lobe peak of the current (or last) shake, squared, mg².
    @inlinable public var shakePeak2: Int64 { _shakePeak2 }
    @usableFromInline var _shakePeak2: Int64 = 0

    /// A detector with `settings`; times are converted to µs.
    /// `range` is the chip's full scale in mg (0: unknown); readings near it are clipped.
    public init(settings s: ShakeSettings, range: Int32 = 0) {
        threshold2 = Int64(s.thresholdMilliG) * Int64(s.thresholdMilliG)
        let motion = Int64(min(s.thresholdMilliG, Self.handMovingMilliG))
        motion2 = motion * motion
        strong2 = Int64(s.strongMilliG) * Int64(s.strongMilliG)
        hysteresis2 = Int64(s.hysteresisMilliG) * Int64(s.hysteresisMilliG)
        minLobes = max(s.minLobes, 2)
        minHalf = Int64(s.minHalfPeriodMillis) * Units.microsPerMilli
        maxHalf = Int64(s.maxHalfPeriodMillis) * Units.microsPerMilli
        ratioPercent = Int64(max(s.maxHalfPeriodRatioPercent, 100))
        quietBefore = Int64(s.quietBeforeMillis) * Units.microsPerMilli
        opposition2 = Int64(s.oppositionPercent) * Int64(s.oppositionPercent)
        fillPercent = Int64(s.fillPercent)
        clipLevel = range > 0 ? range - range / 50 : .max
        clippedOpposition2 = Int64(s.clippedOppositionPercent) * Int64(s.clippedOppositionPercent)
        let share = Int64(min(max(s.calmPairPercent, 0), 400))
        pairSquare64 = (share * share * 64 + 5000) / 10_000
        _lifecycle = GestureLifecycle(
            quietMicros: Int64(s.quietMillis) * Units.microsPerMilli,
            refractoryMicros: Int64(s.refractoryMillis) * Units.microsPerMilli,
            maxDurationMicros: Int64(s.maxDurationMillis) * Units.microsPerMilli)
    }

    /// The current chain length (counted alternating lobes), for live views.
    public var chainLength: Int32 { chain }

    /// Feeds one sample whose acceleration minus gravity is `d`, mg.
    @inlinable @inline(__always)
    public mutating func update(_ s: Sample, dynamic d: Vec3) -> ShakePhase? {
        if _slowPath(lastCountedEnd == .min) { lastCountedEnd = s.t }
        let m2 = d.lengthSquared
        var recognised = false
        var evidence = false
        if open {
            if !s.accel.within(clipLevel &- 1) { clipped = true }
            if m2 < hysteresis2 {
                open = false
                lastClose = s.t
                if counted || peak2 >= motion2 { lastCountedEnd = s.t }
            } else if d.dot(peak) < 0 {
                // The motion reversed without passing through rest: a new lobe starts here.
                (recognised, evidence) = startLobe(d, m2, s.t)
            } else if m2 > peak2 {
                let before = peak2
                peak = d
                peak2 = m2
                if !counted {
                    if m2 >= threshold2 { (recognised, evidence) = count(s.t) }
                } else if (prevStrong && before < strong2 && m2 >= strong2) || (before < pairLevel2 && m2 >= pairLevel2) {
                    recognised = true
                    evidence = true
                }
            }
        } else if m2 >= hysteresis2 {
            (recognised, evidence) = startLobe(d, m2, s.t)
        }
        if !recognised && !_lifecycle.needsUpdate { return nil }
        let phase = _lifecycle.update(t: s.t, recognised: recognised, evidence: evidence)
        if phase == .began {
            _shakePeak2 = max(peak2, lastPeak2)
        } else if _lifecycle.isActive && m2 > _shakePeak2 {
            _shakePeak2 = m2
        }
        return phase
    }

    @inlinable
    mutating func startLobe(_ d: Vec3, _ m2: Int64, _ t: Int64) -> (Bool, Bool) {
        if open { lastClose = t }
        if open && (counted || peak2 >= motion2) { lastCountedEnd = t }
        if counted {
            lastPeak = peak
            lastPeak2 = peak2
            lastStart = start
            lastWidth = lastClose - openedAt
            lastClipped = clipped
        } else {
            between = true
        }
        pairLevel2 = .max
        open = true
        openedAt = t
        clipped = false
        counted = false
        peak = d
        peak2 = m2
        start = lastClose != .min && t - lastClose < maxHalf ? (lastClose + t) >> 1 : t
        if m2 >= threshold2 { return count(t) }
        return (false, false)
    }

    /// Whether the open lobe points opposite the last counted one — cos(angle) ≤ −k/100, i.e.
    /// dot < 0 and 100²·dot² ≥ k²·|a|²·|b|² — and whether at least roughly (cos ≤ −0.5, 120°).
    /// All three are scaled down by the same 2^n so the products stay in range: n = 8 for any
    /// chip's readings (|v|² ≤ ~2^30 mg²), more for a trace's far larger ones (up to ±1000 g), so
    /// that each is below 2^24 and every product below 2^62.
    @inlinable
    func opposed() -> (Bool, Bool) {
        let dot = peak.dot(lastPeak)
        guard dot < 0 else { return (false, false) }
        let big = dot.magnitude | peak2.magnitude | lastPeak2.magnitude
        let n = Int64(Swift.max(8, 40 - big.leadingZeroBitCount))
        let s = dot &>> n
        let k2 = clipped || lastClipped ? clippedOpposition2 : opposition2
        let p = (peak2 &>> n) &* (lastPeak2 &>> n)
        return (10_000 &* s &* s >= k2 &* p, 4 &* s &* s >= p)
    }

    /// The open lobe's peak just reached the threshold: extend or restart the chain.
    ///
    /// A lobe that does not carry the chain on restarts it after a quiet spell, or when it came
    /// too soon after the last (within the minimum half-cycle, the next sample at 25 Hz: the first
    /// stroke of a fast shake often splits). The first strokes from rest are often not mirrors of
    /// each other (the hand sets off at an angle; without a gyroscope the gravity estimate lags a
    /// twist; one stroke is weaker than the next): a lobe at least 120° from the last, or after a
    /// lobe too weak to count, half a cycle after it, restarts a chain not yet recognised, up to
    /// twice. The start of a run can look the same, so a restarted chain needs its full
    /// `minLobes`, strong or not. A chain's second lobe from a still hand, within 200 ms of the
    /// first and so far under 0.6 of its peak, is a side lobe of a split stroke (at 25 Hz one can
    /// just reach the threshold): it does not count, yet, and is judged again if it grows.
    /// Anything else is strong motion just before (walking, running, an exercise): no chain.
    @inlinable
    mutating func count(_ t: Int64) -> (Bool, Bool) {
        counted = true
        let half = start - lastStart
        var continues = false
        var roughly = false
        if chain > 0 && half >= minHalf && half <= maxHalf {
            (continues, roughly) = opposed()
            // So does a lobe that points the same way as the last with a weaker one between: the
            // stroke back did not count (at 25 Hz a 7 Hz stroke is a sample or two, and its peak
            // can fall between them).
            roughly = roughly || between
            // The last lobe must fill its half-cycle, as a hand's stroke does: a knock is a spike that
            // is over long before the next one, however regular the knocking.
            if continues { continues = lastWidth &* 100 >= fillPercent &* half }
            if continues && chain >= 2 {
                // Consecutive half-periods must be alike.
                continues = half &* 100 <= lastHalf &* ratioPercent && lastHalf &* 100 <= half &* ratioPercent
            }
        }
        if continues {
            chain += 1
            prevStrong = lastPeak2 >= strong2 && !restarted
        } else if start - lastCountedEnd >= quietBefore || (chain > 0 && half <= minHalf) {
            // A fresh start after a quiet spell, or a split first stroke.
            if start - lastCountedEnd >= quietBefore {
                restartsLeft = 2
                restarted = false
            }
            // From a still hand: this lobe rose (not from a reversal) after a quiet spell.
            chainCalm = openedAt &- Swift.max(lastClose, lastCountedEnd) >= quietBefore
            chain = 1
            prevStrong = false
        } else if chain > 0 && chain < minLobes && restartsLeft > 0 && roughly {
            // A lopsided first stroke from rest.
            restartsLeft -= 1
            restarted = true
            chain = 1
            prevStrong = false
        } else if chain == 1 && chainCalm && half <= Self.pairHalfMicros && peak2 &* 25 < lastPeak2 &* 9 {
            // A side lobe of a split first stroke, from a still hand.
            counted = false
            return (false, false)
        } else {
            // Strong motion just before: not a hand at rest starting to shake.
            chain = 0
            prevStrong = false
        }
        lastHalf = half
        between = false
        if chain == 0 { return (false, false) }
        if continues && chain == 2 && chainCalm && !restarted && half <= Self.pairHalfMicros && pairSquare64 > 0 {
            pairLevel2 = Swift.max(threshold2, (lastPeak2 &* pairSquare64) &>> 6)
        }
        let recognised = chain >= minLobes || (prevStrong && peak2 >= strong2) || peak2 >= pairLevel2
        return (recognised, chain >= 2)
    }

    /// Whether `update` changes nothing for the readings of `box`, which lies within the gravity
    /// estimate's still band: no lobe open, no gesture under way, and the whole band within the
    /// hysteresis level (3 × 16² mg² against 250² or more for every preset).
    @inlinable
    public func restBox(_ box: inout RestBox, gravity: Vec3) -> Bool {
        let band = Int64(GravityFilter.stillBandMilliG)
        return !open && lastCountedEnd != .min && !_lifecycle.needsUpdate && 3 * band * band < hysteresis2
    }

    /// Forgets all motion history, without an event (a gap in the data).
    public mutating func reset() {
        open = false
        counted = false
        chain = 0
        prevStrong = false
        restartsLeft = 0
        restarted = false
        between = false
        lastCountedEnd = .min
        lastClose = .min
        _lifecycle.reset()
    }
}
