/// The tamper detector, for the alarm: once armed, it fires when the device tilts away from the
/// orientation it had when armed, or keeps moving.
///
/// - Tilt: the angle between the gravity estimate and the reference captured by `arm` exceeds
///   `tilt` (compared as cosines, in integers: `dot² < cos²θ·|g|²·|r|²` or `dot < 0`).
/// - Motion: time is cut into 20 ms buckets; a bucket is *moving* when any sample in it had a
///   dynamic acceleration (gravity removed) past `motion` on some axis. A moving-time meter rises
///   by one bucket for each moving bucket and leaks by 1/50 of itself for each bucket (so a steady
///   fraction f of moving buckets settles at 50·f): tamper when it reaches `motionMillis` worth of
///   buckets — 300 ms of motion in the last second or so. A knock on the table rings for a few
///   tens of milliseconds; someone leaning on it tilts it a degree or two; a lift or a carry moves
///   it for much longer.
///
/// Both checks run once per bucket, so the per-sample cost is a comparison or two.
public struct Tamper: Sendable {
    /// Length of a motion bucket, µs.
    public static let bucketMicros: Int64 = 20_000

    @usableFromInline let cos2Q30: Int64
    @usableFromInline let motion: Int32
    @usableFromInline let motionBuckets: Int32
    @usableFromInline let holdoff: Int64

    @usableFromInline var armed = false
    @usableFromInline var reference = Vec3.zero
    @usableFromInline var reference2: Int64 = 0
    /// Moving time, in buckets × 256 (Q8), leaking 1/64 per bucket.
    @usableFromInline var moving: Int32 = 0
    @usableFromInline var bucketEnd: Int64 = .min
    @usableFromInline var bucketMoving = false
    @usableFromInline var lastFired: Int64 = .min

    /// A detector with `settings`.
    public init(settings s: TamperSettings) {
        let c = Int64(Trig.cosQ15(deciDegrees: s.tiltDeci))
        cos2Q30 = c * c
        motion = s.motionMilliG
        // The meter after n moving buckets in a row: 256·Σ(63/64)^k ≈ 256·n·(1 − n/128); this is
        // the level that `motionMillis` of continuous motion reaches.
        let n = Int32((Int64(s.motionMillis) * Units.microsPerMilli + Tamper.bucketMicros - 1) / Tamper.bucketMicros)
        var level: Int32 = 0
        for _ in 0..<n { level = level - (level >> 6) + 256 }
        motionBuckets = level
        holdoff = Int64(s.holdoffMillis) * Units.microsPerMilli
    }

    /// Whether the detector is armed.
    public var isArmed: Bool { armed }

    /// The orientation it was armed at (gravity, mg), when armed.
    public var armedReference: Vec3? { armed ? reference : nil }

    /// Arms the detector: `gravity` (mg) becomes the reference orientation.
    public mutating func arm(gravity: Vec3) {
        armed = true
        reference = gravity
        reference2 = gravity.lengthSquared
        moving = 0
        bucketEnd = .min
        bucketMoving = false
        lastFired = .min
    }

    /// Disarms the detector.
    public mutating func disarm() {
        armed = false
    }

    /// Feeds one sample; `gravity` is the current gravity estimate and `dynamic` the
    /// acceleration minus it, mg.
    @inlinable @inline(__always)
    public mutating func update(_ s: Sample, gravity: Vec3, dynamic: Vec3) -> Bool {
        guard armed else { return false }
        if !dynamic.within(motion) { bucketMoving = true }
        if s.t < bucketEnd { return false }
        return closeBucket(s.t, gravity)
    }

    /// Feeds one sample; `gravity` is the current gravity estimate in mg.
    @inlinable
    public mutating func update(_ s: Sample, gravity: Vec3) -> Bool {
        update(s, gravity: gravity, dynamic: s.accel - gravity)
    }

    @usableFromInline
    mutating func closeBucket(_ t: Int64, _ g: Vec3) -> Bool {
        if bucketEnd == .min {
            bucketEnd = t + Tamper.bucketMicros
            return false
        }
        // Leak 1/64, then add a bucket (256 in Q8) if this one moved: the meter settles at 64·f
        // buckets for a steady fraction f of moving buckets.
        moving = moving &- (moving >> 6) &+ (bucketMoving ? 256 : 0)
        bucketMoving = false
        bucketEnd += Tamper.bucketMicros
        if bucketEnd <= t { bucketEnd = t + Tamper.bucketMicros }   // after a gap
        if lastFired != .min && t - lastFired < holdoff { return false }
        var fired = moving >= motionBuckets
        if !fired { fired = Tamper.tilted(g, from: reference, reference2: reference2, cos2Q30: cos2Q30) }
        if fired { lastFired = t }
        return fired
    }

    /// Whether `g` has turned from `reference` (whose squared length is `reference2`) by more than
    /// the angle whose squared cosine is `cos2Q30` (Q30), or past 90°: `dot² < cos²θ·|g|²·|r|²` or
    /// `dot < 0`, in integers.
    ///
    /// With every component within ±16383 mg (any chip's range up to ±16 g), dot² and |g|²·|r|²
    /// stay below 9·2^56 < 2^63; dropping 15 bits from each factor keeps |g|²·|r|²·cos²θ below 2^63
    /// too. Larger readings (a trace may hold up to 1000 g) are scaled down together first: the
    /// angle is the same, nothing can trap.
    @inlinable @inline(__always)
    public static func tilted(_ g: Vec3, from reference: Vec3, reference2: Int64, cos2Q30: Int64) -> Bool {
        var gv = g, rv = reference, r2 = reference2
        let big = Swift.max(magnitude(g), magnitude(reference))
        if big > 16_383 {
            var k: Int32 = 1
            while big >> Int64(k) > 16_383 { k += 1 }
            gv = Vec3(g.x >> k, g.y >> k, g.z >> k)
            rv = Vec3(reference.x >> k, reference.y >> k, reference.z >> k)
            r2 = rv.lengthSquared
        }
        let dot = gv.dot(rv)
        let rhs = ((gv.lengthSquared * r2) >> 15) * (cos2Q30 >> 15)
        return dot < 0 || dot * dot < rhs
    }

    /// The largest absolute component, mg.
    @inlinable static func magnitude(_ v: Vec3) -> Int64 {
        Swift.max(Swift.max(abs(Int64(v.x)), abs(Int64(v.y))), abs(Int64(v.z)))
    }

    /// Forgets motion history (a gap in the data); stays armed with the same reference.
    public mutating func reset() {
        moving = 0
        bucketEnd = .min
        bucketMoving = false
    }
}
