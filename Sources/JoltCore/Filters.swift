/// A first-order low-pass filter over a `Vec3`, in fixed point.
///
/// The state is kept in units of 1/4096 of the input unit (Q12) so that a slow filter at a fast
/// rate does not stall: the smallest step is 1/4096 unit, and with a coefficient of at least
/// 66/65536 (τ = 1 s at 1 kHz) the filter settles within 0.12 unit of its input.
///
/// The coefficient is the backward-Euler discretisation of a time constant τ sampled every Δt:
/// `α = Δt / (τ + Δt)`, held in Q16 (65536 = 1.0). It is computed once, at configuration time.
public struct LowPass3: Sendable {
    @usableFromInline var sx: Int64
    @usableFromInline var sy: Int64
    @usableFromInline var sz: Int64
    /// The smoothing coefficient α in Q16 (65536 = 1.0).
    public let alphaQ16: Int64
    @usableFromInline var primed: Bool

    /// A filter with coefficient `alphaQ16` (Q16); it takes its first input as its initial state.
    public init(alphaQ16: Int32) {
        self.alphaQ16 = Int64(min(max(alphaQ16, 1), 65536))
        sx = 0
        sy = 0
        sz = 0
        primed = false
    }

    /// A filter with time constant `tauMicros` for samples every `periodMicros`.
    public init(tauMicros: Int64, periodMicros: Int64) {
        self.init(alphaQ16: LowPass3.alphaQ16(tauMicros: tauMicros, periodMicros: periodMicros))
    }

    /// The Q16 coefficient `Δt / (τ + Δt)`, rounded to nearest.
    public static func alphaQ16(tauMicros: Int64, periodMicros: Int64) -> Int32 {
        let dt = max(periodMicros, 1)
        let den = max(tauMicros, 0) + dt
        return Int32((65536 * dt + den / 2) / den)
    }

    /// The current output, in the input's unit.
    @inlinable @inline(__always)
    public var value: Vec3 {
        Vec3(Int32(truncatingIfNeeded: (sx &+ 2048) >> 12),
             Int32(truncatingIfNeeded: (sy &+ 2048) >> 12),
             Int32(truncatingIfNeeded: (sz &+ 2048) >> 12))
    }

    /// Sets the state to `v`, as if the input had been `v` forever.
    @inlinable
    public mutating func reset(to v: Vec3) {
        sx = Int64(v.x) << 12
        sy = Int64(v.y) << 12
        sz = Int64(v.z) << 12
        primed = true
    }

    /// Forgets the state; the next input becomes the initial state.
    public mutating func clear() {
        primed = false
    }

    /// Feeds one input and returns the new output.
    @inlinable @inline(__always)
    public mutating func update(_ v: Vec3) -> Vec3 {
        if _slowPath(!primed) {
            reset(to: v)
            return v
        }
        let a = alphaQ16
        sx &+= (((Int64(v.x) << 12) &- sx) &* a &+ 32768) >> 16
        sy &+= (((Int64(v.y) << 12) &- sy) &* a &+ 32768) >> 16
        sz &+= (((Int64(v.z) << 12) &- sz) &* a &+ 32768) >> 16
        return value
    }
}

/// The gravity estimate the detectors share: a low-pass of the acceleration that, when the chip
/// has a gyroscope, also turns with the device.
///
/// Without a gyroscope, turning the device makes gravity look like acceleration until the
/// low-pass catches up (half a second): a wrist swinging through an arc reads as strong back-
/// and-forth motion. With one, each sample first rotates the estimate by the measured rotation
/// (a fixed vector seen from a device turning at ω changes as ġ = g × ω), then low-passes it
/// toward the accelerometer; what remains of `a − g` is the device's own acceleration.
public struct GravityFilter: Sendable {
    @usableFromInline var lowPass: LowPass3
    /// Δt·(π/180)/1000 in Q40: turns g (Q12) × ω (mdps) into a change of g (Q12) per sample.
    @usableFromInline let rotationQ40: Int64
    @usableFromInline let useGyro: Bool

    /// A filter with time constant `tauMicros` for samples every `periodMicros`; `gyro` says
    /// whether samples carry rotation rate.
    public init(tauMicros: Int64, periodMicros: Int64, gyro: Bool) {
        lowPass = LowPass3(tauMicros: tauMicros, periodMicros: periodMicros)
        // Δt (s) × π/180 (rad per degree) / 1000 (mdps) × 2^40 = Δt (µs) × 2^40·π/1.8e11, and
        // 2^40·π/1.8e11 = 19.190098…: 1 kHz → 19,190; 12.5 Hz → 1,535,208.
        rotationQ40 = Int64(max(periodMicros, 1)) * 19_190_098 / 1_000_000
        useGyro = gyro
    }

    /// The current estimate, mg.
    @inlinable public var value: Vec3 { lowPass.value }

    /// Rotation below this (mdps on every axis) is left to the low-pass: at 30 °/s a device turns
    /// 0.3° between samples at 100 Hz, and the low-pass follows that on its own.
    public static let turnFloor: Int32 = 30_000

    /// A reading within this of the estimate on every axis is noise (a chip at rest reads within
    /// 4σ of its mean: 4 mg RMS for an MPU6050, 6 mg for an ADXL345), and the estimate holds
    /// still: a device at rest leaves it unchanged, which is what lets the detectors skip a
    /// resting sample outright (`DetectorSet`'s rest path). The estimate may then sit up to this
    /// far from the mean reading on an axis (about 0.9°), far inside any threshold that reads it.
    public static let stillBandMilliG: Int32 = 16

    /// Feeds one sample and returns the new estimate, mg.
    @inlinable @inline(__always)
    public mutating func update(_ s: Sample) -> Vec3 {
        if useGyro && !s.gyro.within(Self.turnFloor) && lowPass.primed {
            // g' = g + A·g + ½·A²·g with A·g = (g × ω)·Δt: second order, so that the estimate
            // keeps its length while the device turns fast between samples (first order alone
            // grows it by √(1 + (ωΔt)²) per sample: 6% at 1000 °/s and 50 Hz).
            let w = s.gyro
            let (ax, ay, az) = turn(lowPass.sx, lowPass.sy, lowPass.sz, w)
            let (bx, by, bz) = turn(ax, ay, az, w)
            lowPass.sx &+= ax &+ bx >> 1
            lowPass.sy &+= ay &+ by >> 1
            lowPass.sz &+= az &+ bz >> 1
        } else if lowPass.primed {
            let g = lowPass.value
            if (s.accel - g).within(Self.stillBandMilliG) { return g }
        }
        return lowPass.update(s.accel)
    }

    /// Whether the filter has an estimate (it takes its first sample as one).
    @inlinable public var primed: Bool { lowPass.primed }

    /// Whether it turns the estimate with the gyroscope's readings.
    @inlinable public var turnsWithGyro: Bool { useGyro }

    /// (v × ω)·Δt for v in Q12 mg and ω in mdps, in Q12 mg.
    @inlinable
    func turn(_ x: Int64, _ y: Int64, _ z: Int64, _ w: Vec3) -> (Int64, Int64, Int64) {
        let wx = Int64(w.x), wy = Int64(w.y), wz = Int64(w.z)
        // The cross product is brought back to mg·mdps (>> 12) before scaling, so that it stays
        // within Int64 at 16 g and 2000 °/s.
        let cx = (y &* wz &- z &* wy) >> 12
        let cy = (z &* wx &- x &* wz) >> 12
        let cz = (x &* wy &- y &* wx) >> 12
        let k = rotationQ40
        return ((cx &* k) >> 28, (cy &* k) >> 28, (cz &* k) >> 28)
    }

    /// Forgets the state; the next sample becomes the estimate.
    public mutating func clear() { lowPass.clear() }
}
