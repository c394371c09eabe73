/// The half of the tamper detector that tells a theft from a tap by what the kiosk does: it
/// moves. A tap's impulse leaves the kiosk where it was (its velocity integrates back to zero
/// within a few tens of milliseconds); a slam rings (its velocity reverses every half-cycle); a
/// slide or a lift pushes one way for a tenth of a second or more.
///
/// Around a baseline that follows the reading slowly (τ 20 s: the offsets drifting with
/// temperature), the acceleration past a dead zone (25 mg: noise, a customer's lean under a
/// degree) is integrated into a leaky velocity (τ 0.5 s), per axis, in mg·µs. A velocity past
/// `speed` that keeps its direction for `hold` is a kiosk that moved. A jolt past 0.45 g, or a
/// ring (two reversals within 250 ms), zeroes the velocity for 250 ms: a slam rings, a theft
/// pushes.
///
/// Integers only; every product stays far below 2^63 (velocities are kept within ±10 m/s,
/// 10^9 mg·µs, so a squared speed is at most 3·10^18).
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
    @usableFromInline static let limit: Int64 = 1_000_000_000

    @usableFromInline let period: Int64
    /// The speed that counts as moving, mg·µs (1 mm/s = 1/9.80665 mg·s).
    @usableFromInline let speed: Int64
    @usableFromInline let hold: Int64
    /// The velocity's leak per sample, Q16; the baseline's gain per sample, Q20.
    @usableFromInline let leakQ16: Int64
    @usableFromInline let baseQ20: Int64
    @usableFromInline var started = false
    /// The baseline, mg in Q16.
    @usableFromInline var bx: Int64 = 0, by: Int64 = 0, bz: Int64 = 0
    /// The velocity, and its direction when the episode began, mg·µs.
    @usableFromInline var vx: Int64 = 0, vy: Int64 = 0, vz: Int64 = 0
    @usableFromInline var dx: Int64 = 0, dy: Int64 = 0, dz: Int64 = 0
    @usableFromInline var since: Int64 = .min
    @usableFromInline var quietFrom: Int64 = .min
    @usableFromInline var lastReversal: Int64 = .min
    @usableFromInline var sx: Int8 = 0, sy: Int8 = 0, sz: Int8 = 0

    /// A detector for samples every `periodMicros` that calls `speedMMs` (mm/s) held for
    /// `holdMillis` a move.
    public init(periodMicros: Int64, speedMMs: Int32, holdMillis: Int32) {
        period = Swift.max(periodMicros, 1)
        speed = Int64(speedMMs) * 100_000_000_000 / 980_665
        hold = Int64(holdMillis) * 1000
        leakQ16 = (period << 16) / Self.leakMicros
        baseQ20 = (period << 20) / Self.baselineMicros
    }

    /// The velocity now, mm/s per axis.
    public var velocityMMs: (x: Int64, y: Int64, z: Int64) {
        (vx * 980_665 / 100_000_000_000, vy * 980_665 / 100_000_000_000, vz * 980_665 / 100_000_000_000)
    }

    /// Starts afresh: the next reading is the baseline.
    public mutating func restart() {
        started = false
        vx = 0; vy = 0; vz = 0
        since = .min
        quietFrom = .min
        lastReversal = .min
        sx = 0; sy = 0; sz = 0
    }

    /// Whether the kiosk is moving, after this reading.
    @inlinable
    public mutating func update(_ s: Sample) -> Bool {
        let a = s.accel
        let x = Int64(a.x), y = Int64(a.y), z = Int64(a.z)
        if !started {
            bx = x << 16; by = y << 16; bz = z << 16
            started = true
        }
        let ex = x - (bx >> 16), ey = y - (by >> 16), ez = z - (bz >> 16)
        bx += ((x << 16) - bx) * baseQ20 / (1 << 20)
        by += ((y << 16) - by) * baseQ20 / (1 << 20)
        bz += ((z << 16) - bz) * baseQ20 / (1 << 20)
        let d = Int64(Self.deadZoneMilliG)
        if abs(ex) <= d && abs(ey) <= d && abs(ez) <= d && vx == 0 && vy == 0 && vz == 0 {
            // At rest: nothing past the dead zone and no velocity left, so no sign, jolt or
            // velocity can change (the full path below would end the same way).
            since = .min
            return false
        }
        let shock = Int64(Self.shockMilliG)
        if abs(ex) > shock || abs(ey) > shock || abs(ez) > shock { quietFrom = s.t + Self.ringMicros }
        if reversed(ex, ey, ez) {
            if lastReversal != .min && s.t - lastReversal < Self.ringMicros { quietFrom = s.t + Self.ringMicros }
            lastReversal = s.t
        }
        if quietFrom != .min && s.t < quietFrom {
            vx = 0; vy = 0; vz = 0
            since = .min
            return false
        }
        vx = step(vx, ex); vy = step(vy, ey); vz = step(vz, ez)
        guard vx * vx + vy * vy + vz * vz > speed * speed else {
            since = .min
            return false
        }
        if since == .min || vx * dx + vy * dy + vz * dz <= 0 {
            since = s.t
            dx = vx; dy = vy; dz = vz
        }
        return s.t - since >= hold
    }

    /// One step of an axis's leaky velocity: the acceleration past the dead zone times the
    /// period, less the leak (rounded half away from zero, and at least 1 so that a velocity
    /// left alone reaches zero), kept within ±10 m/s.
    @inlinable
    func step(_ v: Int64, _ e: Int64) -> Int64 {
        let d = Int64(Self.deadZoneMilliG)
        let past = e > d ? e - d : (e < -d ? e + d : 0)
        let leak = v > 0 ? Swift.max((v * leakQ16 + (1 << 15)) >> 16, 1) : (v < 0 ? -Swift.max((-v * leakQ16 + (1 << 15)) >> 16, 1) : 0)
        return Swift.min(Swift.max(v + past * period - leak, -Self.limit), Self.limit)
    }

    /// Whether an axis's reading crossed from past the dead zone on one side to past it on the
    /// other.
    @inlinable
    mutating func reversed(_ ex: Int64, _ ey: Int64, _ ez: Int64) -> Bool {
        let d = Int64(Self.deadZoneMilliG)
        let nx: Int8 = ex > d ? 1 : (ex < -d ? -1 : 0)
        let ny: Int8 = ey > d ? 1 : (ey < -d ? -1 : 0)
        let nz: Int8 = ez > d ? 1 : (ez < -d ? -1 : 0)
        let flipped = (nx != 0 && sx == -nx) || (ny != 0 && sy == -ny) || (nz != 0 && sz == -nz)
        if nx != 0 { sx = nx }
        if ny != 0 { sy = ny }
        if nz != 0 { sz = nz }
        return flipped
    }
}
