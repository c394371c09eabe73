/// With a gyroscope, `Movement` tells a lean from a push by measuring the lean.
///
/// A customer leaning on the kiosk turns it by under a degree. To the accelerometer that is
/// gravity turning across the chip, 17 mg a degree: as much as the start of a gentle drag. The
/// gyroscope sees the turn itself. So the rotation since the baseline was set is integrated
/// (the rate less its bias, which the readings of the baseline's batches give: a kiosk is at rest
/// nearly all its life; the bias moves slowly, as a chip's drifts, so that a lean does not turn
/// it), and what it does to gravity, g × θ for a small angle θ, is taken off the
/// deviation before it reaches the velocity. A lean then moves nothing; a drag that tilts the
/// kiosk half a degree is a drag. The turn across gravity reads what the rotation leaves too (a
/// push the accelerometer feels and the gyroscope does not), and the rotation is a turn of its
/// own once it is past any lean's (`spun`): a thief's tilt counts, a customer's lean does
/// not.
///
/// The rotation fades with the baseline (the same gain every batch): as the baseline follows a
/// kiosk that stays leaned, the rotation it has absorbed stops being taken off. Putting the
/// baseline at a reading (`reseat`) zeroes it. Each reading only adds its rate to the batch's
/// sums, on the rest path (`rest`) as on the full one, and the rotation is worked out from them
/// when it is needed, so the two paths stay the same; the arithmetic wraps rather than trap.
extension Movement {
    /// With the lean taken off, what is left at rest is the chip's noise (an MPU6050's 400 µg/√Hz
    /// over its bandwidth, about 4 mg RMS): the quiet band is 3σ of it.
    public static let gyroBandMilliG: Int64 = 12
    /// The velocity takes the deviation low-passed (τ 20 ms, `smoothed`). A kiosk's own motion,
    /// pushed by a hand or carried, is slower than that; what is faster is a tap's press, a
    /// building's hum and a knock, each giving back what it pushed, unless the chip, read
    /// without its low-pass, caught the press on a sample and the give-back between two. A
    /// dead zone on single readings turns such a spike, or a hum whose peaks are not even,
    /// into a push one way. Low-passed, the noise left is the chip's over 12.5 Hz (a one-pole
    /// filter's noise bandwidth, 1/4τ): 400 µg/√Hz over it is 1.4 mg RMS, and the dead zone is
    /// 4σ of that.
    public static let gyroDeadZoneMilliG: Int64 = 6
    public static let smoothTauMicros: Int64 = 20_000
    /// With that dead zone, a customer's lean or tap wobbles the kiosk back and forth by a few
    /// millimetres, fast enough to pass the speed for a moment. A theft carries it centimetres:
    /// the velocity counts only once it has carried the kiosk this far, in units of 2^20 mg·µs²
    /// (10 mm: 0.01 m / 9.80665 m/s² is 1.0197 mg·s²).
    public static let travelUnits: Int64 = 972_480
    /// How far the bias may move in a batch, mdps in Q8: 5 mdps every 2 s. A batch's mean rate
    /// is the bias only at rest: a customer's lean turns the kiosk by a degree within a batch,
    /// 0.4 °/s over its 2 s, and followed by the baseline's gain a tenth of that stayed in the
    /// bias (40 mdps: about 7 mg of gravity turned across the chip after ten seconds, a push).
    /// Bounded, it leaves an eighth of that. The bound does not slow what the follow is for: the
    /// first, short batch leaves the bias up to about 50 mdps off (ten readings of a gyroscope's
    /// 50 mdps noise), which the gain mends by 5 mdps a batch at most, and a chip's zero drifts
    /// far slower (an MPU6050's by about 0.16 °/s a kelvin).
    public static let biasSlewQ8: Int64 = 5 << 8
    /// The distance's bound (about 10 m), which keeps it in 32 bits and its square in range. It
    /// leaks with τ 2 s, four times the velocity's `leakMicros` (`travel`).
    @usableFromInline static let travelLimit: Int64 = 1_000_000_000

    /// The velocity's dead zone and the quiet band, mg.
    @inlinable var dead: Int64 { fine ? Self.gyroDeadZoneMilliG : Int64(Self.deadZoneMilliG) }
    @inlinable var band: Int64 { fine ? Self.gyroBandMilliG : Self.turnBandMilliG }
    /// How far past the baseline a deviation must go, one way then the other, to be a ring's
    /// reversal, mg. With a gyroscope the ring is judged on the low-passed deviation the
    /// velocity takes, where the chip's noise is under 2 mg: past the quiet band. Without, on the
    /// reading, past the dead zone.
    @inlinable var ringMilliG: Int64 { fine ? Self.gyroBandMilliG : Int64(Self.deadZoneMilliG) }

    /// Takes the bias from the first reading (the first batch replaces it with its mean) and
    /// starts with no rotation.
    @inlinable @inline(never)
    mutating func startRotation(_ w: Vec3) {
        wbx = w.x &<< 8; wby = w.y &<< 8; wbz = w.z &<< 8
        wsx = 0; wsy = 0; wsz = 0
        rx = 0; ry = 0; rz = 0
    }

    /// Adds one sample's rate to the batch's sums. The rotation is `rx`… at the batch's start
    /// plus the sums less the bias over the batch's `an` periods (`turned`), so that a reading at
    /// rest costs three additions.
    @inlinable @inline(__always)
    mutating func rotate(_ w: Vec3) {
        wsx &+= Int64(w.x)
        wsy &+= Int64(w.y)
        wsz &+= Int64(w.z)
    }

    /// The rotation since the baseline was set, mdps·µs on each axis: what was there at the
    /// batch's start and what the rates less the bias add since. Within a batch (2 s, at most
    /// 2000 dps) the sums in Q8 times the period stay under 2^50.
    @inlinable @inline(__always)
    func turned() -> (Int64, Int64, Int64) {
        let n = Int64(an)
        let x = ((wsx << 8) &- n &* Int64(wbx)) &* period
        let y = ((wsy << 8) &- n &* Int64(wby)) &* period
        let z = ((wsz << 8) &- n &* Int64(wbz)) &* period
        return (rx &+ (x >> 8), ry &+ (y >> 8), rz &+ (z >> 8))
    }

    /// What the rotation does to gravity, g × θ, mg: the baseline (as the turn uses it) crossed
    /// with the rotation in radians. θ in mdps·µs is 1.745·10^-11 rad; taken in units of 2^16 of
    /// those (a millionth of a degree, far under any chip's noise), the cross product stays
    /// within 2^63 for any rotation a kiosk makes, and 1228/2^30 is 2^16·π/180·10^-9.
    @inlinable @inline(__always)
    func rotated() -> (Int64, Int64, Int64) {
        let (tx, ty, tz) = turned()
        let qx = tx >> 16, qy = ty >> 16, qz = tz >> 16
        let cx: Int64 = gy &* qz &- gz &* qy
        let cy: Int64 = gz &* qx &- gx &* qz
        let cz: Int64 = gx &* qy &- gy &* qx
        return ((cx &* 1228) >> 30, (cy &* 1228) >> 30, (cz &* 1228) >> 30)
    }

    /// Whether the rotation's turn of gravity, `k` (`rotated`, mg), is past `turnMilliG` (1.7°).
    /// A customer's lean turns the kiosk by under a degree (0.2–0.9° in Jolt's scenes and in
    /// family B's), and half again stays silent; the rotation's error is the bias's, a few mdps
    /// once the first batches have mended it, about 0.1° over the 20 s the rotation takes to
    /// fade. Measured rather than read from the accelerometer, the rotation needs neither the
    /// turn's low-pass nor its 60 ms hold.
    @inlinable @inline(__always)
    static func spun(_ k: (Int64, Int64, Int64)) -> Bool {
        k.0 &* k.0 &+ k.1 &* k.1 &+ k.2 &* k.2 > turnMilliG &* turnMilliG
    }

    /// At a batch of `n` readings: the rotation takes in the batch's, then the bias moves toward
    /// their mean rate (all the way after a restart, the rotation then starting afresh), and the
    /// rotation fades by the baseline's gain.
    @inlinable @inline(never)
    mutating func moveBias(_ n: Int64) {
        guard n > 0 else { return }
        if fresh {
            wbx = Self.q8Mean(wsx, n)
            wby = Self.q8Mean(wsy, n)
            wbz = Self.q8Mean(wsz, n)
            rx = 0; ry = 0; rz = 0
        } else {
            (rx, ry, rz) = turned()
            wbx = follow(wbx, wsx, n)
            wby = follow(wby, wsy, n)
            wbz = follow(wbz, wsz, n)
            let k = n &* baseQ20
            rx &-= rx / (1 << 20) &* k
            ry &-= ry / (1 << 20) &* k
            rz &-= rz / (1 << 20) &* k
        }
        wsx = 0; wsy = 0; wsz = 0
    }

    /// The mean of `n` rates summing to `sum`, mdps in Q8 (a rate is within ±2^21 mdps, so the
    /// mean of rates within 32 bits).
    @inlinable
    static func q8Mean(_ sum: Int64, _ n: Int64) -> Int32 {
        Int32(truncatingIfNeeded: (sum << 8) / n)
    }

    /// A bias moved toward the mean of `n` rates summing to `sum` by the baseline's gain, and
    /// by no more than `biasSlewQ8` a batch.
    @inlinable
    func follow(_ bias: Int32, _ sum: Int64, _ n: Int64) -> Int32 {
        let b = Int64(bias)
        let step = ((sum << 8) &- n &* b) &* baseQ20 / (1 << 20)
        return Int32(truncatingIfNeeded: b &+ Swift.min(Swift.max(step, -Self.biasSlewQ8), Self.biasSlewQ8))
    }

    /// The deviation the velocity takes, low-passed: each axis eased toward `x`… by `smoothQ16`,
    /// kept in Q8 mg (in `px1`…, which a chip read fine does not despike) within ±`shockMilliG`
    /// (a reading past it is a jolt, and 0.45 g passes the speed within a few samples at any
    /// rate), and read back in whole mg toward zero, so that neither sign gains.
    @inlinable @inline(__always)
    mutating func smoothed(_ x: Int64, _ y: Int64, _ z: Int64) -> (Int64, Int64, Int64) {
        let g = Int64(smoothQ16)
        px1 = Self.smooth(px1, x, g)
        py1 = Self.smooth(py1, y, g)
        pz1 = Self.smooth(pz1, z, g)
        return (Int64(px1) / 256, Int64(py1) / 256, Int64(pz1) / 256)
    }

    /// One axis of `smoothed`: `f` (Q8) one step toward `e` (mg).
    @inlinable @inline(__always)
    static func smooth(_ f: Int32, _ e: Int64, _ gainQ16: Int64) -> Int32 {
        let lim = Int64(Self.shockMilliG)
        let target = Swift.min(Swift.max(e, -lim), lim) << 8
        return Int32(truncatingIfNeeded: Self.ease(Int64(f), target, gainQ16))
    }

    /// Whether every axis is within ±`band`.
    @inlinable @inline(__always)
    static func within(_ x: Int64, _ y: Int64, _ z: Int64, _ band: Int64) -> Bool {
        x.magnitude <= band.magnitude && y.magnitude <= band.magnitude && z.magnitude <= band.magnitude
    }

    /// Carries the kiosk by this sample's velocity, less the leak.
    @inlinable @inline(__always)
    mutating func travel() {
        let leak = leakQ16 >> 2
        xx = Self.carry(xx, vx, period, leak)
        xy = Self.carry(xy, vy, period, leak)
        xz = Self.carry(xz, vz, period, leak)
    }

    @inlinable
    static func carry(_ x: Int32, _ v: Int64, _ period: Int64, _ leakQ16: Int64) -> Int32 {
        let d = Int64(x)
        let next = d &+ ((v &* period) >> 20) &- ((d &* leakQ16) >> 16)
        return Int32(truncatingIfNeeded: Swift.min(Swift.max(next, -travelLimit), travelLimit))
    }

    /// Whether the velocity has carried the kiosk past `travelUnits`.
    @inlinable @inline(__always)
    var far: Bool {
        let x = Int64(xx), y = Int64(xy), z = Int64(xz)
        return x &* x &+ y &* y &+ z &* z > Self.travelUnits &* Self.travelUnits
    }
}
