/// The tamper detector, for the alarm: once armed, it fires when the kiosk moves or tilts away
/// from the orientation it had when armed.
///
/// - Moved: `Movement` integrates the acceleration into a velocity and fires when the kiosk
///   keeps going one way (a slide across the counter, a lift, a carry), not when it is tapped,
///   leaned on or rung by a slammed door; and it fires when the reading turns across gravity
///   past about 1.7° and stays turned (the start of a slow tilt, past any lean).
/// - Tilt: the angle between the gravity estimate and the reference captured by `arm` exceeds
///   `tilt` (compared as cosines, in integers: `dot² < cos²θ·|g|²·|r|²` or `dot < 0`).
///
/// Time is cut into 20 ms buckets: a bucket in which the kiosk was moving, or that ends tilted,
/// fires, at most once per `holdoff`.
public struct Tamper: Sendable {
    /// Length of a bucket, µs.
    public static let bucketMicros: Int64 = 20_000

    @usableFromInline let cos2Q30: Int64
    @usableFromInline let holdoff: Int64
    @usableFromInline var movement: Movement

    @usableFromInline var armed = false
    @usableFromInline var reference = Vec3.zero
    @usableFromInline var reference2: Int64 = 0
    @usableFromInline var bucketEnd: Int64 = .min
    @usableFromInline var bucketMoved = false
    @usableFromInline var lastFired: Int64 = .min
    /// Whether the gravity estimate was tilted when the rest box was made (it does not change on
    /// the rest path).
    @usableFromInline var restTilted = false
    /// Whether a bucket closing on the rest path can fire: tilted, or moved before it began.
    @usableFromInline var restMayFire = false

    /// A detector with `settings`, for samples every `periodMicros`.
    public init(settings s: TamperSettings, periodMicros: Int64) {
        let c = Int64(Trig.cosQ15(deciDegrees: s.tiltDeci))
        cos2Q30 = c * c
        holdoff = Int64(s.holdoffMillis) * Units.microsPerMilli
        movement = Movement(periodMicros: periodMicros, speedMMs: s.moveSpeedMMs, holdMillis: s.moveMillis)
    }

    /// Whether the detector is armed.
    public var isArmed: Bool { armed }

    /// The orientation it was armed at (gravity, mg), when armed.
    public var armedReference: Vec3? { armed ? reference : nil }

    /// Arms the detector: `gravity` (mg) becomes the reference orientation, and the next reading
    /// the baseline of the movement.
    public mutating func arm(gravity: Vec3) {
        armed = true
        reference = gravity
        reference2 = gravity.lengthSquared
        movement.restart()
        bucketEnd = .min
        bucketMoved = false
        lastFired = .min
    }

    /// Disarms the detector.
    public mutating func disarm() {
        armed = false
    }

    /// Feeds one sample; `gravity` is the current gravity estimate, mg.
    @inlinable @inline(__always)
    public mutating func update(_ s: Sample, gravity: Vec3) -> Bool {
        guard armed else { return false }
        if movement.update(s) { bucketMoved = true }
        if s.t < bucketEnd { return false }
        return closeBucket(s.t, gravity)
    }

    @inlinable @inline(__always)
    mutating func closeBucket(_ t: Int64, _ g: Vec3) -> Bool {
        if bucketEnd == .min {
            bucketEnd = t + Tamper.bucketMicros
            return false
        }
        guard let moved = nextBucket(t) else { return false }
        let fired = moved || Tamper.tilted(g, from: reference, reference2: reference2, cos2Q30: cos2Q30)
        if fired { lastFired = t }
        return fired
    }

    /// Starts the next bucket at `t`; whether the one that ended saw the kiosk move, or nil when
    /// it may not fire (within the holdoff).
    @inlinable @inline(__always)
    mutating func nextBucket(_ t: Int64) -> Bool? {
        let moved = bucketMoved
        bucketMoved = false
        advanceBucket(t)
        if lastFired != .min && t - lastFired < holdoff { return nil }
        return moved
    }

    /// The next bucket's end, for a sample at `t` at or past the current one's.
    @inlinable @inline(__always)
    mutating func advanceBucket(_ t: Int64) {
        bucketEnd &+= Tamper.bucketMicros
        if bucketEnd <= t { bucketEnd = t &+ Tamper.bucketMicros }   // after a gap
    }

    /// Whether a rest box can be had at all (the cheap part of `restBox`'s test).
    @inlinable public var mayRest: Bool { !armed || movement.resting }

    /// Narrows `box` to the readings for which `update` does only what `rest` does, with the
    /// gravity estimate held at `gravity` (it is: the rest path runs only within the estimate's
    /// still band). False while something is in flight. `renewing`: the estimate is the one the
    /// last box was made with (the rest path went on), so whether it is tilted is known.
    @inlinable @inline(__always)
    public mutating func restBox(_ box: inout RestBox, gravity g: Vec3, renewing: Bool = false) -> Bool {
        guard armed else { return true }
        guard bucketEnd != .min && movement.restBox(&box) else { return false }
        // The estimate does not change on the rest path: neither does whether it is tilted.
        if !renewing { restTilted = Tamper.tilted(g, from: reference, reference2: reference2, cos2Q30: cos2Q30) }
        restMayFire = restTilted || bucketMoved
        return true
    }

    /// What `update` does with a sample in its `restBox`: the baseline's sums, and the bucket
    /// closing on time — firing, past the holdoff, when the kiosk is tilted or moved in it.
    @inlinable @inline(__always)
    public mutating func rest(_ s: Sample) -> Bool {
        guard armed else { return false }
        movement.rest(s.accel)
        guard s.t >= bucketEnd else { return false }
        if !restMayFire {
            // At rest, upright, nothing moved: the bucket only moves on.
            advanceBucket(s.t)
            return false
        }
        guard let moved = nextBucket(s.t) else { return false }
        let fired = moved || restTilted
        if fired { lastFired = s.t }
        return fired
    }

    /// Moves the movement's baseline when it is due (a sample in the rest box once the box's
    /// time is up).
    @inlinable
    public mutating func moveBaseline(at t: Int64) {
        if armed { movement.moveBaseline(at: t) }
    }

    /// Whether `g` has turned from `reference` (whose squared length is `reference2`) by more than
    /// the angle whose squared cosine is `cos2Q30` (Q30), or past 90°: `dot² < cos²θ·|g|²·|r|²` or
    /// `dot < 0`, in integers.
    ///
    /// With every component within ±16383 mg (any chip's range up to ±16 g), dot² and |g|²·|r|²
    /// stay below 9·2^56 < 2^63; dropping 15 bits from each factor keeps |g|²·|r|²·cos²θ below 2^63
    /// too. Larger readings (a trace may hold up to 1000 g) are scaled down together first: the
    /// angle is the same, nothing can trap.
    @inlinable
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
        let rhs = ((gv.lengthSquared &* r2) >> 15) &* (cos2Q30 >> 15)
        return dot < 0 || dot &* dot < rhs
    }

    /// The largest absolute component, mg.
    @inlinable static func magnitude(_ v: Vec3) -> Int64 {
        Swift.max(Swift.max(abs(Int64(v.x)), abs(Int64(v.y))), abs(Int64(v.z)))
    }

    /// Forgets motion history (a gap in the data); stays armed with the same reference.
    public mutating func reset() {
        movement.restart()
        bucketEnd = .min
        bucketMoved = false
    }
}
