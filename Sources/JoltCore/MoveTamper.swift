/// A draft of the tamper detector that tells a theft from a tap by what the kiosk does: it
/// moves. Scored by `jolt eval --tamper` beside Jolt's detector and the baselines; the alarm
/// does not run it yet.
///
/// Around a baseline that follows the reading slowly (τ 20 s: temperature drift), the
/// acceleration past a dead zone (25 mg: noise, a lean of a degree) is integrated into a leaky
/// velocity (τ 0.5 s), in mg·µs per axis. A velocity past 20 mm/s that keeps its direction for
/// 120 ms is a kiosk that moved: a tap's velocity comes back to zero within its few tens of
/// milliseconds, a ringing counter's reverses every half-cycle. A jolt past 0.45 g, or a ring (two
/// reversals within 250 ms), resets the velocity: a slam rings, a theft pushes.
public struct MoveTamper: Sendable {
    public static let deadZoneMilliG: Int32 = 25
    /// 20 mm/s in mg·µs (1 mg = 9.80665 mm/s²).
    public static let speed: Int64 = 2_039_400
    public static let holdMicros: Int64 = 120_000
    public static let shockMilliG: Int32 = 450
    public static let ringMicros: Int64 = 250_000
    static let limit: Int64 = 1_000_000_000

    @usableFromInline let period: Int64
    /// The velocity's leak per sample, Q16 (period / 0.5 s); the baseline's gain, Q20 (period / 20 s).
    @usableFromInline let leakQ16: Int64
    @usableFromInline let baseQ20: Int64
    @usableFromInline var armed = false
    @usableFromInline var started = false
    /// The baseline, mg in Q16.
    @usableFromInline var bx: Int64 = 0, by: Int64 = 0, bz: Int64 = 0
    /// The velocity and the direction it held when the episode began, mg·µs.
    @usableFromInline var vx: Int64 = 0, vy: Int64 = 0, vz: Int64 = 0
    @usableFromInline var dx: Int64 = 0, dy: Int64 = 0, dz: Int64 = 0
    @usableFromInline var since: Int64?
    @usableFromInline var shockUntil: Int64 = .min
    @usableFromInline var lastReversal: Int64 = -(1 << 50)
    @usableFromInline var sx: Int8 = 0, sy: Int8 = 0, sz: Int8 = 0

    public init(periodMicros: Int64) {
        period = periodMicros
        leakQ16 = (periodMicros << 16) / 500_000
        baseQ20 = (periodMicros << 20) / 20_000_000
    }

    /// Arms: the next reading is the baseline.
    public mutating func arm() {
        armed = true
        started = false
        vx = 0; vy = 0; vz = 0
        since = nil
    }

    /// Whether the kiosk has moved, after this reading.
    public mutating func update(_ s: Sample) -> Bool {
        guard armed else { return false }
        let a = s.accel
        if !started {
            bx = Int64(a.x) << 16; by = Int64(a.y) << 16; bz = Int64(a.z) << 16
            started = true
        }
        let ex = Int64(a.x) - (bx >> 16), ey = Int64(a.y) - (by >> 16), ez = Int64(a.z) - (bz >> 16)
        bx += ((Int64(a.x) << 16) - bx) * baseQ20 / (1 << 20)
        by += ((Int64(a.y) << 16) - by) * baseQ20 / (1 << 20)
        bz += ((Int64(a.z) << 16) - bz) * baseQ20 / (1 << 20)
        let shock = Int64(Self.shockMilliG)
        if abs(ex) > shock || abs(ey) > shock || abs(ez) > shock { shockUntil = s.t + Self.ringMicros }
        if reversed(ex, ey, ez) {
            if s.t - lastReversal < Self.ringMicros { shockUntil = s.t + Self.ringMicros }
            lastReversal = s.t
        }
        if s.t < shockUntil {
            vx = 0; vy = 0; vz = 0
            since = nil
            return false
        }
        vx = step(vx, ex); vy = step(vy, ey); vz = step(vz, ez)
        guard vx * vx + vy * vy + vz * vz > Self.speed * Self.speed else {
            since = nil
            return false
        }
        if since == nil || vx * dx + vy * dy + vz * dz <= 0 {
            since = s.t
            dx = vx; dy = vy; dz = vz
        }
        return s.t - since! >= Self.holdMicros
    }

    /// One step of an axis's leaky velocity: the acceleration past the dead zone times the
    /// period, less the leak (rounded symmetrically), kept within ±10 m/s.
    @usableFromInline
    func step(_ v: Int64, _ e: Int64) -> Int64 {
        let d = Int64(Self.deadZoneMilliG)
        let past = e > d ? e - d : (e < -d ? e + d : 0)
        let next = v + past * period - (v * leakQ16 + (v >= 0 ? 1 << 15 : -(1 << 15))) / (1 << 16)
        return Swift.min(Swift.max(next, -Self.limit), Self.limit)
    }

    /// Whether an axis's reading crossed from past the dead zone on one side to the other.
    @usableFromInline
    mutating func reversed(_ ex: Int64, _ ey: Int64, _ ez: Int64) -> Bool {
        let d = Int64(Self.deadZoneMilliG)
        func sign(_ e: Int64) -> Int8 { e > d ? 1 : (e < -d ? -1 : 0) }
        var flipped = false
        let nx = sign(ex), ny = sign(ey), nz = sign(ez)
        if nx != 0 { flipped = flipped || sx == -nx; sx = nx }
        if ny != 0 { flipped = flipped || sy == -ny; sy = ny }
        if nz != 0 { flipped = flipped || sz == -nz; sz = nz }
        return flipped
    }
}
