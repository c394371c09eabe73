import JoltCore

// The shake algorithms phone apps use today, in the same fixed-point core as Jolt's own, so they
// can be compared on the same data. Each fires through a 1 s refractory trigger, as the apps do.

/// `threshold`: any axis of raw acceleration (gravity included) past 2.45 g.
public struct ThresholdShake: Sendable {
    @usableFromInline let limit: Int32
    /// The refractory trigger that turns threshold crossings into shakes.
    public var trigger: RefractoryTrigger { _trigger }
    @usableFromInline var _trigger: RefractoryTrigger

    /// A detector with the phone settings.
    public init(settings s: PhoneShakeSettings) {
        limit = s.axisThresholdMilliG
        _trigger = RefractoryTrigger(refractoryMicros: Int64(s.refractoryMillis) * Units.microsPerMilli)
    }

    /// Feeds one sample.
    @inlinable
    public mutating func update(_ s: Sample) -> ShakePhase? {
        _trigger.update(t: s.t, trigger: s.accel.maxAbs > limit)
    }

    /// Forgets history.
    public mutating func reset() { _trigger.reset() }
}

/// `lowpass`: iOS sample-code style. Gravity is a low-pass of each axis with filter factor 0.1
/// (per sample at 60 Hz; here as the equivalent time constant at any rate); a shake is any axis
/// of acceleration minus gravity past 0.38 g.
public struct LowPassShake: Sendable {
    @usableFromInline var filter: LowPass3
    @usableFromInline let limit: Int32
    /// The refractory trigger that turns crossings into shakes.
    public var trigger: RefractoryTrigger { _trigger }
    @usableFromInline var _trigger: RefractoryTrigger

    /// A detector with the phone settings for samples every `periodMicros`.
    public init(settings s: PhoneShakeSettings, periodMicros: Int64) {
        // factor k per sample at rate R is the backward-Euler α = Δt/(τ+Δt) with Δt = 1/R,
        // so τ = Δt·(1−k)/k.
        let k = Int64(max(min(s.lowpassFactorPerMille, 1000), 1))
        let refPeriod = Units.microsPerSecond / Int64(max(s.lowpassReferenceRateHz, 1))
        let tau = refPeriod * (1000 - k) / k
        filter = LowPass3(tauMicros: tau, periodMicros: periodMicros)
        limit = s.lowpassDeltaMilliG
        _trigger = RefractoryTrigger(refractoryMicros: Int64(s.refractoryMillis) * Units.microsPerMilli)
    }

    /// Feeds one sample.
    @inlinable
    public mutating func update(_ s: Sample) -> ShakePhase? {
        let g = filter.update(s.accel)
        return _trigger.update(t: s.t, trigger: (s.accel - g).maxAbs > limit)
    }

    /// Forgets history.
    public mutating func reset() {
        filter.clear()
        _trigger.reset()
    }
}

/// `planar`: the magnitude of the x-y acceleration past 2.3 g.
public struct PlanarShake: Sendable {
    @usableFromInline let limit2: Int64
    /// The refractory trigger that turns crossings into shakes.
    public var trigger: RefractoryTrigger { _trigger }
    @usableFromInline var _trigger: RefractoryTrigger

    /// A detector with the phone settings.
    public init(settings s: PhoneShakeSettings) {
        limit2 = Int64(s.planarMilliG) * Int64(s.planarMilliG)
        _trigger = RefractoryTrigger(refractoryMicros: Int64(s.refractoryMillis) * Units.microsPerMilli)
    }

    /// Feeds one sample.
    @inlinable
    public mutating func update(_ s: Sample) -> ShakePhase? {
        let x = Int64(s.accel.x), y = Int64(s.accel.y)
        return _trigger.update(t: s.t, trigger: x * x + y * y > limit2)
    }

    /// Forgets history.
    public mutating func reset() { _trigger.reset() }
}

/// `window`: Square's seismic ShakeDetector, as Android apps use it. A sample "accelerates" when
/// its magnitude is past 13 m/s²; the window holds the last 0.5 s of samples; it is shaking when the
/// window spans at least 0.25 s and at least 3/4 of its samples accelerate. After a shake the window
/// is cleared, as seismic does.
public struct WindowShake: Sendable {
    @usableFromInline var window: BitWindow
    @usableFromInline let limit2: Int64
    @usableFromInline let minCount: Int32
    /// The refractory trigger that turns shaking windows into shakes.
    public var trigger: RefractoryTrigger { _trigger }
    @usableFromInline var _trigger: RefractoryTrigger

    /// A detector with the phone settings for samples every `periodMicros`.
    public init(settings s: PhoneShakeSettings, periodMicros: Int64) {
        limit2 = Int64(s.windowMilliG) * Int64(s.windowMilliG)
        let period = max(periodMicros, 1)
        let minSpan = Int64(s.windowMinMillis) * Units.microsPerMilli
        // At a steady rate a window of n samples spans (n-1) periods: it holds at most
        // 0.5 s / period + 1 samples and spans 0.25 s from ceil(0.25 s / period) + 1 samples on.
        let maxCount = 2 * minSpan / period + 1
        window = BitWindow(length: Int32(min(maxCount, Int64(BitWindow.maxLength))))
        minCount = Int32(min((minSpan + period - 1) / period + 1, Int64(BitWindow.maxLength)))
        _trigger = RefractoryTrigger(refractoryMicros: Int64(s.refractoryMillis) * Units.microsPerMilli)
    }

    /// Feeds one sample.
    @inlinable
    public mutating func update(_ s: Sample) -> ShakePhase? {
        window.push(s.accel.lengthSquared > limit2)
        let n = window.count
        let shaking = n >= minCount && window.ones >= (n >> 1) + (n >> 2)
        if shaking { window.removeAll() }
        return _trigger.update(t: s.t, trigger: shaking)
    }

    /// Forgets history.
    public mutating func reset() {
        window.removeAll()
        _trigger.reset()
    }
}
