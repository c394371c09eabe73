/// The half of the tamper detector that tells a theft from a tap by what the kiosk does: it
/// moves. A tap's impulse leaves the kiosk where it was (its velocity integrates back to zero
/// within a few tens of milliseconds); a slam rings (its velocity reverses every half-cycle); a
/// slide or a lift pushes one way for a tenth of a second or more.
///
/// Around a baseline that follows the reading slowly (τ 20 s: the offsets drifting with
/// temperature; every 2 s it moves toward the mean of the readings since; put at a single
/// reading, it becomes the mean of the next 100 ms), the acceleration
/// past a dead zone (25 mg: noise, a customer's lean under a degree) is integrated into a leaky
/// velocity (τ 0.5 s), per axis, in mg·µs. A velocity past `speed` that keeps its direction for
/// `hold` is a kiosk that moved. A jolt past 0.45 g, or a
/// ring (two reversals within 250 ms), zeroes the velocity for 250 ms: a slam rings, a theft
/// pushes.
///
/// A slow tilt moves nothing at first, and turns the kiosk by a degree in its first half second
/// — what a customer's lean does. So the reading's turn across gravity is followed too: past
/// 30 mg (about 1.7°), low-passed and held the same way for 60 ms, it is the start of a tilt.
/// With a gyroscope the turn reads what the measured rotation leaves of the reading, and the
/// rotation past the same 30 mg is a turn of its own (MovementGyro.swift).
///
/// Two rules keep the baseline where the kiosk is and let the detector come to rest. A reading
/// off the baseline (past the quiet band) that stays within 40 mg of one place for 1 s is a
/// kiosk standing somewhere the baseline is not — turned over, tipped, or the baseline left
/// behind by a ride in a pocket — and the baseline is put there: until then the detector is blind
/// (every reading a jolt away) or integrates a push that is not there. A theft is not still for
/// a second before it moves the velocity past `speed`: a steady push that has not done so within
/// the second is within 1 mg of the weakest the leak lets through at all (29.9 against 29.1 mg at
/// the medium settings), and a tilt away from the armed orientation is the tilt test's, which
/// this does not touch. And on a quiet reading, a velocity under 1.3 mm/s
/// and a turn under 1 mg are nothing in flight: they would take seconds more to leak away to
/// exactly zero, and until they do the kiosk never rests (the set's rest path waits for it).
///
/// At 50 Hz and below a tap's 10–30 ms press falls between samples or on one (on two at 50 Hz),
/// and a chip read without a low-pass folds it into a spike of up to 0.5 g; a theft pushes for
/// 100 ms or more, three samples at 25 Hz and five at 50 Hz. So for such readings (`despike`: a
/// trace another tool recorded; Jolt's own are filtered) the velocity and the turn take each
/// deviation late, and leave out a spike: at 25 Hz, a sample late, one past the dead zone that
/// neither neighbour passes the same way; at 50 Hz (`pairs`), two samples late, one in a run of
/// at most two past it the same way (40 ms either way). A longer push counts whole. A resting
/// reading, a jolt and a ring's hold forget the samples kept.
///
/// Integers only; every product stays below 2^63 for any reading a chip or a trace gives
/// (velocities are kept within ±10 m/s, 10^9 mg·µs, so a squared speed is at most 3·10^18), and
/// the arithmetic wraps rather than trap past that, as the core's per-sample arithmetic does:
/// a corrupt reading must not stop the detectors.
public struct Movement: Sendable {
    /// Acceleration within this of the baseline is noise or a lean, mg.
    public static let deadZoneMilliG: Int32 = 25
    /// A reading this far from the baseline is a jolt (a slam, a bag set down), mg.
    public static let shockMilliG: Int32 = 450
    /// How long a jolt or a ring keeps the velocity at zero, µs.
    public static let ringMicros: Int64 = 250_000
    /// The velocity's leak and the baseline's time constant, µs.
    public static let leakMicros: Int64 = 500_000
    public static let baselineMicros: Int64 = 20_000_000
    /// How often the baseline moves (a tenth of its time constant), µs.
    public static let batchMicros: Int64 = 2_000_000
    /// The first batch after the baseline is put at a single reading: its mean replaces that
    /// reading (one reading of an ADXL345 at 800 Hz can be 15 mg off its mean), µs.
    public static let firstBatchMicros: Int64 = 100_000
    @usableFromInline static let limit: Int64 = 1_000_000_000
    /// A turn across gravity past this (about 1.7°; a customer's lean is under 1°), held the
    /// same way for `turnMicros`, is the start of a tilt, mg.
    public static let turnMilliG: Int64 = 30
    public static let turnMicros: Int64 = 60_000
    /// The turn is low-passed (τ 40 ms); a reading within this of the baseline on every axis
    /// adds nothing to it (noise), mg.
    public static let turnTauMicros: Int64 = 40_000
    public static let turnBandMilliG: Int64 = 17

    @usableFromInline let period: Int64
    /// The speed that counts as moving, mg·µs (1 mm/s = 1/9.80665 mg·s).
    @usableFromInline let speed: Int64
    @usableFromInline let hold: Int64
    /// The velocity's leak per sample, Q16; the baseline's gain per sample, Q20.
    @usableFromInline let leakQ16: Int64
    @usableFromInline let baseQ20: Int64
    /// The baseline, mg in Q16.
    @usableFromInline var bx: Int64 = 0, by: Int64 = 0, bz: Int64 = 0
    /// The baseline as the turn uses it (mg, within ±`lim`) and its squared length (0 under
    /// 0.5 g), kept with it.
    @usableFromInline var gx: Int64 = 0, gy: Int64 = 0, gz: Int64 = 0, g2: Int64 = 0
    /// The velocity, mg·µs (its direction when the episode began is `dx`…).
    @usableFromInline var vx: Int64 = 0, vy: Int64 = 0, vz: Int64 = 0
    @usableFromInline var since: Int64 = .min
    @usableFromInline var quietFrom: Int64 = .min
    @usableFromInline var lastReversal: Int64 = .min
    /// The low-passed deviation across gravity, mg in Q8, and when it first passed the tilt
    /// threshold (which way: `tx`…).
    @usableFromInline var lx: Int64 = 0, ly: Int64 = 0, lz: Int64 = 0
    @usableFromInline var turnSince: Int64 = .min
    /// The readings since the baseline last moved: their sums (how many: `an`), and when it
    /// moves next.
    @usableFromInline var ax: Int64 = 0, ay: Int64 = 0, az: Int64 = 0
    @usableFromInline var due: Int64 = 0
    /// Since when a reading off the baseline has stayed within `settleBandMilliG` of `held`
    /// (.min: the last reading was quiet).
    @usableFromInline var heldSince: Int64 = .min
    /// With a gyroscope (`fine`, MovementGyro.swift): the rotation at the batch's start since
    /// the baseline was set, mdps·µs per axis, fading as the baseline follows the reading, and
    /// the rotation rates summed with the readings for the baseline's batch.
    @usableFromInline var rx: Int64 = 0, ry: Int64 = 0, rz: Int64 = 0
    @usableFromInline var wsx: Int64 = 0, wsy: Int64 = 0, wsz: Int64 = 0
    /// The 32-bit state follows the 64-bit, and the flags close it, so that the detector packs
    /// without padding (the default set's state stays under 1 KiB).
    ///
    /// The velocity's direction when the episode began and the turn's when it passed the tilt
    /// threshold (within ±10 m/s and ±`lim` in Q8: only their signs against the velocity and
    /// the turn are used).
    @usableFromInline var dx: Int32 = 0, dy: Int32 = 0, dz: Int32 = 0
    @usableFromInline var tx: Int32 = 0, ty: Int32 = 0, tz: Int32 = 0
    /// The four deviations before this reading, the last first, mg (0 after a rest, a jolt or
    /// a hold; within ±`shockMilliG`, as a larger one is a jolt and never kept), and whether the
    /// last two were quiet (`pquiet`, `pquiet2`). A chip read fine (with a gyroscope) is never
    /// despiked: `px1`, `py1` and `pz1` hold its velocity's low-passed deviation instead, mg in
    /// Q8 (`smoothed`), and are forgotten alike.
    @usableFromInline var px1: Int32 = 0, py1: Int32 = 0, pz1: Int32 = 0
    @usableFromInline var px2: Int32 = 0, py2: Int32 = 0, pz2: Int32 = 0
    @usableFromInline var px3: Int32 = 0, py3: Int32 = 0, pz3: Int32 = 0
    @usableFromInline var px4: Int32 = 0, py4: Int32 = 0, pz4: Int32 = 0
    /// Where a reading off the baseline stopped.
    @usableFromInline var held = Vec3.zero
    /// How many readings the baseline's sums hold.
    @usableFromInline var an: Int32 = 0
    /// The low-pass gains per sample, Q16 (each under 1): the turn's, and with a gyroscope the
    /// velocity's deviation's (`smoothed`).
    @usableFromInline let lpQ16: UInt16, smoothQ16: UInt16
    /// With a gyroscope, the gyroscope's bias, mdps in Q8, and the distance the velocity has
    /// carried the kiosk (leaky, τ 2 s, within ±`travelLimit`), in units of 2^20 mg·µs².
    @usableFromInline var wbx: Int32 = 0, wby: Int32 = 0, wbz: Int32 = 0
    @usableFromInline var xx: Int32 = 0, xy: Int32 = 0, xz: Int32 = 0
    /// At 50 Hz and below, for readings that may fold a tap into a spike (`TamperSettings.mayAlias`):
    /// spikes are left out (above), a sample late (two with `pairs`).
    public let despike: Bool
    /// Faster than 25 Hz (a period under 40 ms, so 50 Hz), a tap can fall on two samples: runs
    /// of up to two are spikes, and each deviation is taken two samples late.
    public let pairs: Bool
    /// Whether the velocity reads finely: with a gyroscope, on readings that fold no tap into a
    /// spike (not `despike`). Then the dead zone and the quiet band are the chip's noise
    /// (`gyroDeadZoneMilliG`, `gyroBandMilliG`) and the velocity counts once it has carried the
    /// kiosk `travelUnits`; otherwise they are `deadZoneMilliG` and `turnBandMilliG`, as without
    /// a gyroscope (a tap folded into a spike past the noise is not motion).
    public let fine: Bool
    @usableFromInline var pquiet = true, pquiet2 = true
    @usableFromInline var started = false
    /// Whether the last reading found the kiosk at rest: quiet, nothing in flight.
    @usableFromInline var resting = false
    /// Whether the baseline is a single reading (after a restart or a reseat) that the first,
    /// short batch replaces with its mean.
    @usableFromInline var fresh = false
    /// The side of `ringMilliG` each axis was last past (`reversed`).
    @usableFromInline var sx: Int8 = 0, sy: Int8 = 0, sz: Int8 = 0

    /// A sample period this long or longer (50 Hz and below) despikes, µs.
    public static let despikePeriodMicros: Int64 = 20_000
    /// Readings past ±2000 g (no chip reads that; a trace may say anything) count as ±2000 g in
    /// the turn, so that its products stay in range.
    @usableFromInline static let lim: Int64 = 2_000_000
    /// A reading off the baseline that stays within this of one place (mg, every axis; past a
    /// chip's noise, under any theft's stroke) for `settleMicros` puts the baseline there.
    public static let settleBandMilliG: Int32 = 40
    public static let settleMicros: Int64 = 1_000_000
    /// On a quiet reading, a velocity within ±2^17 mg·µs (1.3 mm/s) and a turn within ±2^8 (1 mg
    /// in Q8) on every axis are nothing in flight (powers of two: one mask test each).
    public static let restVelocity: Int64 = 131_072
    public static let restTurn: Int64 = 256

    /// A detector for samples every `periodMicros` that calls `speedMMs` (mm/s) held for
    /// `holdMillis` a move.
    public init(periodMicros: Int64, speedMMs: Int32, holdMillis: Int32, despike: Bool = false, gyro: Bool = false) {
        period = Swift.max(periodMicros, 1)
        speed = Int64(speedMMs) * 100_000_000_000 / 980_665
        hold = Int64(holdMillis) * 1000
        leakQ16 = (period << 16) / Self.leakMicros
        baseQ20 = (period << 20) / Self.baselineMicros
        lpQ16 = UInt16(truncatingIfNeeded: (period << 16) / (Self.turnTauMicros + period))
        smoothQ16 = UInt16(truncatingIfNeeded: (period << 16) / (Self.smoothTauMicros + period))
        self.despike = despike && period >= Self.despikePeriodMicros
        pairs = self.despike && period < 2 * Self.despikePeriodMicros
        fine = gyro && !self.despike
    }

    /// The velocity now, mm/s per axis.
    public var velocityMMs: (x: Int64, y: Int64, z: Int64) {
        (vx * 980_665 / 100_000_000_000, vy * 980_665 / 100_000_000_000, vz * 980_665 / 100_000_000_000)
    }

    /// How long the velocity has been past the speed one way at `t`, µs (nil: it is not).
    public func pushMicros(at t: Int64) -> Int64? { since == .min ? nil : t &- since }

    /// The turn of the reading across gravity, mg per axis: low-passed, and with a gyroscope
    /// what the rotation leaves of it plus the rotation's own.
    public var turnMilliG: Vec3 {
        let k = fine ? rotated() : (0, 0, 0)
        return Vec3(Int32(clamping: lx / 256 &+ k.0), Int32(clamping: ly / 256 &+ k.1), Int32(clamping: lz / 256 &+ k.2))
    }

    /// The baseline, mg.
    public var baselineMilliG: Vec3 {
        Vec3(Int32(clamping: bx >> 16), Int32(clamping: by >> 16), Int32(clamping: bz >> 16))
    }

    /// Starts afresh: the next reading is the baseline, and the mean of the first 100 ms of
    /// readings replaces it.
    public mutating func restart() {
        started = false
        resting = false
        hush()
        quietFrom = .min
        lastReversal = .min
        heldSince = .min
        sx = 0; sy = 0; sz = 0
    }

    /// Whether the velocity is past the speed now: moving, rather than only turned across
    /// gravity (to an accelerometer, a push sideways turns the reading too).
    @inlinable
    public var pushing: Bool { since != .min }

    /// Whether the kiosk is moving, after this reading.
    @inlinable @inline(__always)
    public mutating func update(_ s: Sample) -> Bool {
        let a = s.accel
        let x = Int64(a.x), y = Int64(a.y), z = Int64(a.z)
        if !started {
            bx = x << 16; by = y << 16; bz = z << 16
            across()
            ax = 0; ay = 0; az = 0; an = 0
            due = s.t &+ Self.firstBatchMicros
            fresh = true
            started = true
            if fine { startRotation(s.gyro) }
        }
        let ex = x &- (bx >> 16), ey = y &- (by >> 16), ez = z &- (bz >> 16)
        ax &+= x; ay &+= y; az &+= z; an &+= 1
        if fine { rotate(s.gyro) }
        if s.t >= due { moveBaseline(at: s.t) }
        let quiet = Self.within(ex, ey, ez, band)
        if endsEarly(a, ex, ey, ez, quiet: quiet, at: s.t) { return false }
        resting = false
        // With a gyroscope, what the kiosk's rotation does to gravity is taken off: a lean turns
        // the reading and moves nothing.
        let k = fine ? rotated() : (0, 0, 0)
        let fx = ex &- k.0, fy = ey &- k.1, fz = ez &- k.2
        let (mx, my, mz, mquiet) = taken(fx, fy, fz, quiet)
        // A ring is judged on what the velocity takes: low-passed, a building's hum is gone from
        // it, and a slammed door's ring is not. (What a hold hushes, it forgets, so taking the
        // velocity's deviation first changes nothing else.)
        let ring = fine ? (mx, my, mz) : (ex, ey, ez)
        if reversed(ring.0, ring.1, ring.2) {
            if lastReversal != .min && s.t - lastReversal < Self.ringMicros { quietFrom = s.t + Self.ringMicros }
            lastReversal = s.t
        }
        if quietFrom != .min && s.t < quietFrom {
            hush()
            return false
        }
        // The turn reads what the rotation leaves of the reading, within the chip's noise band;
        // with a gyroscope, the rotation is a turn of its own once it is past a lean's.
        let (ux, uy, uz) = fine ? (fx, fy, fz) : (mx, my, mz)
        let still = mquiet || (fine && Self.within(ux, uy, uz, Self.turnBandMilliG))
        let turned = turning(s.t, still ? 0 : ux, still ? 0 : uy, still ? 0 : uz) || (fine && Self.spun(k))
        vx = Self.step(vx, mx, dead, period, leakQ16); vy = Self.step(vy, my, dead, period, leakQ16); vz = Self.step(vz, mz, dead, period, leakQ16)
        if fine { travel() }
        guard vx &* vx &+ vy &* vy &+ vz &* vz > speed &* speed else {
            since = .min
            return turned
        }
        if since == .min || vx &* Int64(dx) &+ vy &* Int64(dy) &+ vz &* Int64(dz) <= 0 {
            since = s.t
            dx = Int32(truncatingIfNeeded: vx); dy = Int32(truncatingIfNeeded: vy); dz = Int32(truncatingIfNeeded: vz)
        }
        return turned || (s.t - since >= hold && (!fine || far))
    }

    /// The ways a reading ends `update` before the velocity (which then says not moving): at rest
    /// (quiet, nothing in flight), the baseline put where the kiosk has stood still off it, or a
    /// jolt's hold. `e` is the reading less the baseline; `quiet`, all of it within the band.
    @inlinable @inline(__always)
    mutating func endsEarly(_ a: Vec3, _ ex: Int64, _ ey: Int64, _ ez: Int64, quiet: Bool, at t: Int64) -> Bool {
        if quiet {
            heldSince = .min
            let none = vx | vy | vz | lx | ly | lz == 0
            if none || (Self.tiny(vx, vy, vz, Self.restVelocity) && Self.tiny(lx, ly, lz, Self.restTurn)) {
                // At rest: nothing past the noise band and nothing in flight (what is left
                // would only leak away), so no sign, jolt, velocity or turn can change — the
                // full path below would end the same way.
                if !none {
                    vx = 0; vy = 0; vz = 0
                    lx = 0; ly = 0; lz = 0
                }
                xx = 0; xy = 0; xz = 0
                since = .min
                turnSince = .min
                resting = true
                forgetDeviations()
                return true
            }
        } else {
            if settled(a, t) {
                // Still off the baseline for a second (a jolt away, or not): the baseline goes
                // there.
                reseat(Int64(a.x), Int64(a.y), Int64(a.z), at: t)
                resting = false
                return true
            }
            let shock = Int64(Self.shockMilliG)
            if ex.magnitude > shock.magnitude || ey.magnitude > shock.magnitude || ez.magnitude > shock.magnitude {
                // A jolt: nothing moves for `ringMicros` from now, whatever else this reading
                // says (a reversal in it only dates the next).
                resting = false
                quietFrom = t + Self.ringMicros
                if reversed(ex, ey, ez) { lastReversal = t }
                hush()
                return true
            }
        }
        return false
    }

    /// Puts the baseline at a reading where the kiosk has stood still off it: nothing in flight,
    /// no hold, the baseline's sums started afresh.
    @inlinable @inline(never)
    mutating func reseat(_ x: Int64, _ y: Int64, _ z: Int64, at t: Int64) {
        bx = x << 16; by = y << 16; bz = z << 16
        across()
        ax = 0; ay = 0; az = 0; an = 0
        due = t &+ Self.firstBatchMicros
        fresh = true
        quietFrom = .min
        heldSince = .min
        // The rotation starts from here; the rates summed so far belong to no batch.
        rx = 0; ry = 0; rz = 0
        wsx = 0; wsy = 0; wsz = 0
        hush()
    }

    /// In a jolt's or a ring's hold: no velocity, no turn.
    @inlinable @inline(__always)
    mutating func hush() {
        vx = 0; vy = 0; vz = 0
        xx = 0; xy = 0; xz = 0
        since = .min
        lx = 0; ly = 0; lz = 0
        turnSince = .min
        forgetDeviations()
    }

    /// Narrows `box` to the readings for which `update` would only add the reading to the
    /// baseline's sums (`rest`): quiet, nothing in flight, before the baseline moves. False when
    /// there is something in flight.
    @inlinable @inline(__always)
    public mutating func restBox(_ box: inout RestBox) -> Bool {
        // At rest, the last reading took update's early way out, which leaves the velocity and
        // the turn at zero and no episode open.
        guard resting else { return false }
        // The baseline is within the range of the readings it follows, so within Int32's.
        let center = Vec3(Int32(truncatingIfNeeded: bx >> 16), Int32(truncatingIfNeeded: by >> 16), Int32(truncatingIfNeeded: bz >> 16))
        box.limit(around: center, within: Int32(band))
        box.limitTime(due)
        return true
    }

    /// Moves the baseline at `t`, when it is due: the gain of `an` samples toward their mean, or
    /// (`fresh`) all the way to it. With readings within ±2000 g (a trace's are within ±1000 g,
    /// a chip's ±16 g) and 2 s of samples, `an`·`baseQ20` is about 2^20/10 at any rate and every
    /// product stays below 2^54; past that (a reading no source gives, a clock that stands still
    /// for hours) the arithmetic wraps rather than trap.
    @inlinable
    public mutating func moveBaseline(at t: Int64) {
        guard t >= due else { return }
        let n = Int64(an)
        if fine { moveBias(n) }
        if fresh && n > 0 {
            bx = (ax &<< 16) / n; by = (ay &<< 16) / n; bz = (az &<< 16) / n
            fresh = false
        } else {
            bx &+= ((ax &<< 16) &- n &* bx) &* baseQ20 / (1 << 20)
            by &+= ((ay &<< 16) &- n &* by) &* baseQ20 / (1 << 20)
            bz &+= ((az &<< 16) &- n &* bz) &* baseQ20 / (1 << 20)
        }
        across()
        ax = 0; ay = 0; az = 0; an = 0
        due = t &+ Self.batchMicros
    }

    /// What `update` does with a reading in its `restBox`: adds it to the baseline's sums, and
    /// its rotation (then, once the box's time is up, `moveBaseline`).
    @inlinable @inline(__always)
    public mutating func rest(_ s: Sample) {
        let a = s.accel
        ax &+= Int64(a.x); ay &+= Int64(a.y); az &+= Int64(a.z)
        an &+= 1
        if fine { rotate(s.gyro) }
    }
}
