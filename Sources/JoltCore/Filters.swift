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
    @inlinable
    public var value: Vec3 {
        Vec3(Int32(truncatingIfNeeded: (sx + 2048) >> 12),
             Int32(truncatingIfNeeded: (sy + 2048) >> 12),
             Int32(truncatingIfNeeded: (sz + 2048) >> 12))
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
    @inlinable
    public mutating func update(_ v: Vec3) -> Vec3 {
        if !primed {
            reset(to: v)
            return v
        }
        let a = alphaQ16
        sx += (((Int64(v.x) << 12) - sx) * a + 32768) >> 16
        sy += (((Int64(v.y) << 12) - sy) * a + 32768) >> 16
        sz += (((Int64(v.z) << 12) - sz) * a + 32768) >> 16
        return value
    }
}
