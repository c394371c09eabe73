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

    /// What made the detector fire.
    public enum Cause: UInt8, Sendable {
        /// The kiosk moved past the speed (a slide, a lift, a carry): it kept going one way for the
        /// hold, or its reading turned across gravity as it did.
        case moved
        /// Its reading turned across gravity and stayed turned, nothing moving: the start of a
        /// tilt.
        case tilting
        /// It stands tilted past the angle from where it was armed.
        case tilted
    }

    @usableFromInline let cos2Q30: Int64
    @usableFromInline let holdoff: Int64
    @usableFromInline var movement: Movement

    @usableFromInline var armed = false
    @usableFromInline var reference = Vec3.zero
    @usableFromInline var reference2: Int64 = 0
    @usableFromInline var bucketEnd: Int64 = .min
    @usableFromInline var lastFired: Int64 = .min
    /// Why the detector last fired (nil: not since it was armed). The flags follow the 64-bit
    /// state, so that they pack.
    @usableFromInline var lastCause: Cause?
    @usableFromInline var bucketMoved = false
    /// Whether the gravity estimate was tilted when the rest box was made (it does not change on
    /// the rest path).
    @usableFromInline var restTilted = false
    /// Whether a bucket closing on the rest path can fire: tilted, or moved before it began.
    @usableFromInline var restMayFire = false

    /// A detector with `settings`, for samples every `periodMicros`; `gyro`: whether they carry a
    /// gyroscope's rates for the movement test to read. Every caller says which: a detector made
    /// without a gyroscope judges a gyroscope's chip by its accelerometer alone.
    public init(settings s: TamperSettings, periodMicros: Int64, gyro: Bool) {
        let c = Int64(Trig.cosQ15(deciDegrees: s.tiltDeci))
        cos2Q30 = c * c
        holdoff = Int64(s.holdoffMillis) * Units.microsPerMilli
        movement = Movement(periodMicros: periodMicros, speedMMs: s.moveSpeedMMs, holdMillis: s.moveMillis, despike: s.mayAlias, gyro: gyro)
    }

    /// Whether the detector is armed.
    public var isArmed: Bool { armed }

    /// The orientation it was armed at (gravity, mg), when armed.
    public var armedReference: Vec3? { armed ? reference : nil }

    /// Arms the detector: `gravity` (mg) becomes the reference orientation, and the next reading
    /// the baseline of the movement (the mean of the readings of its first 100 ms, once they
    /// have come).
    public mutating func arm(gravity: Vec3) {
        armed = true
        reference = gravity
        reference2 = gravity.lengthSquared
        movement.restart()
        bucketEnd = .min
        bucketMoved = false
        lastFired = .min
        lastCause = nil
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
        if fired { fire(t, moved) }
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
        movement.rest(s)
        guard s.t >= bucketEnd else { return false }
        if !restMayFire {
            // At rest, upright, nothing moved: the bucket only moves on.
            advanceBucket(s.t)
            return false
        }
        guard let moved = nextBucket(s.t) else { return false }
        let fired = moved || restTilted
        if fired { fire(s.t, moved) }
        return fired
    }

    /// Notes a firing at `t`, and why: the bucket's movement (moving past the speed as the bucket
    /// closes, or only turned), or the tilt. Nothing of it on the sample path.
    @inlinable @inline(never)
    mutating func fire(_ t: Int64, _ moved: Bool) {
        lastFired = t
        lastCause = moved ? (movement.pushing ? .moved : .tilting) : .tilted
    }

    /// What the detector reads now, to say why it fired (read right after the sample that did):
    /// the cause, and the movement's velocity, push and turn. `gravity`: the estimate of the moment.
    public func reading(gravity: Vec3, at t: Int64) -> TamperReading? {
        guard armed, let cause = lastCause else { return nil }
        let v = movement.velocityMMs
        return TamperReading(
            cause: cause, velocityMMs: Vec3(Int32(clamping: v.x), Int32(clamping: v.y), Int32(clamping: v.z)),
            pushMicros: movement.pushMicros(at: t), turnMilliG: movement.turnMilliG, baselineMilliG: movement.baselineMilliG,
            gravity: gravity, reference: reference)
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

/// What the tamper detector read when it fired: the figures behind its reason (`Tamper.reading`).
public struct TamperReading: Equatable, Sendable {
    /// Why it fired.
    public var cause: Tamper.Cause
    /// The kiosk's velocity, mm/s per axis (what the movement integrated).
    public var velocityMMs: Vec3
    /// How long the velocity has been past the speed in one direction, µs (nil: it is not).
    public var pushMicros: Int64?
    /// The low-passed turn of the reading across gravity, mg per axis, and the baseline it is
    /// measured from, mg.
    public var turnMilliG: Vec3
    public var baselineMilliG: Vec3
    /// The gravity estimate, and the orientation the detector was armed at, mg.
    public var gravity: Vec3
    public var reference: Vec3

    public init(cause: Tamper.Cause, velocityMMs: Vec3, pushMicros: Int64?, turnMilliG: Vec3, baselineMilliG: Vec3, gravity: Vec3, reference: Vec3) {
        self.cause = cause
        self.velocityMMs = velocityMMs
        self.pushMicros = pushMicros
        self.turnMilliG = turnMilliG
        self.baselineMilliG = baselineMilliG
        self.gravity = gravity
        self.reference = reference
    }
}
