// Detection settings in physical units. They are what a board profile or a preset says; each
// detector turns them into fixed-point parameters once, for one output data rate.
//
// Units: milli-g (mg), milli-degrees per second (mdps) for rotation, degrees × 10 for angles,
// milliseconds for durations.

/// A sensitivity preset: `high` catches gentler motion at the price of more false triggers,
/// `low` the reverse.
public enum Sensitivity: UInt8, CaseIterable, Sendable {
    case low, medium, high
}

/// Settings of Jolt's own shake detector (`jolt`): alternating lobes of dynamic acceleration.
public struct ShakeSettings: Equatable, Sendable {
    /// A lobe of dynamic acceleration (gravity removed) counts when its peak reaches this, mg.
    public var thresholdMilliG: Int32
    /// Two opposite lobes that both reach this are a shake at once, without a third lobe, mg.
    public var strongMilliG: Int32
    /// A lobe starts when the dynamic acceleration rises past this and ends below it, mg.
    public var hysteresisMilliG: Int32
    /// Alternating lobes needed at `thresholdMilliG` (two suffice at `strongMilliG`).
    public var minLobes: Int32
    /// Shortest and longest time between the starts of consecutive lobes (half a shake cycle), ms.
    /// 40-320 ms covers shakes from about 1.6 Hz to 12 Hz.
    public var minHalfPeriodMillis: Int32
    public var maxHalfPeriodMillis: Int32
    /// Consecutive half-periods may differ by at most this factor, in percent (200 = 2×).
    public var maxHalfPeriodRatioPercent: Int32
    /// Consecutive lobes must point opposite ways: the cosine of the angle between their peaks at
    /// most minus this, in percent (75: more than 139° apart).
    public var oppositionPercent: Int32 = 75
    /// …or this, when either lobe has a reading at the chip's full scale (clipped), in percent.
    public var clippedOppositionPercent: Int32 = 40
    /// A lobe must stay above the hysteresis level for at least this share of its half-cycle, in
    /// percent: strokes fill their half-cycle, knocks are spikes.
    public var fillPercent: Int32 = 40
    /// A shake starts from a hand at rest: a chain of lobes only starts when no lobe reached the
    /// threshold for this long before it, ms.
    public var quietBeforeMillis: Int32 = 600
    /// A shake from a still hand is recognised at its second lobe when that lobe comes within
    /// 200 ms of the first and its peak reaches this share of the first's, in percent; 0: never
    /// (it waits for `minLobes`, or two strong lobes). Off but in the `high` preset: held out,
    /// it made false shakes of exercises that start from rest (docs/detection.md).
    public var calmPairPercent: Int32 = 0
    /// The shake has ended when no lobe has reached `thresholdMilliG` for this long, ms.
    public var quietMillis: Int32
    /// After a shake ends, another cannot begin for this long, ms.
    public var refractoryMillis: Int32
    /// A shake still going after this long is cancelled: not a gesture, ms.
    public var maxDurationMillis: Int32

    public init(
        thresholdMilliG: Int32, strongMilliG: Int32, hysteresisMilliG: Int32, minLobes: Int32,
        minHalfPeriodMillis: Int32, maxHalfPeriodMillis: Int32, maxHalfPeriodRatioPercent: Int32,
        quietMillis: Int32, refractoryMillis: Int32, maxDurationMillis: Int32
    ) {
        self.thresholdMilliG = thresholdMilliG
        self.strongMilliG = strongMilliG
        self.hysteresisMilliG = hysteresisMilliG
        self.minLobes = minLobes
        self.minHalfPeriodMillis = minHalfPeriodMillis
        self.maxHalfPeriodMillis = maxHalfPeriodMillis
        self.maxHalfPeriodRatioPercent = maxHalfPeriodRatioPercent
        self.quietMillis = quietMillis
        self.refractoryMillis = refractoryMillis
        self.maxDurationMillis = maxDurationMillis
    }

    /// The preset for a sensitivity.
    public static func preset(_ s: Sensitivity) -> ShakeSettings {
        var p = ShakeSettings(
            thresholdMilliG: 700, strongMilliG: 1200, hysteresisMilliG: 300, minLobes: 3,
            minHalfPeriodMillis: 40, maxHalfPeriodMillis: 320, maxHalfPeriodRatioPercent: 200,
            quietMillis: 400, refractoryMillis: 1000, maxDurationMillis: 4000)
        switch s {
        case .low:
            p.thresholdMilliG = 1000
            p.strongMilliG = 1600
        case .medium:
            break
        case .high:
            p.thresholdMilliG = 500
            p.strongMilliG = 900
            p.hysteresisMilliG = 250
            p.calmPairPercent = 83
        }
        return p
    }
}

/// Settings of Jolt's own flip detector (`jolt`): turned over, then settled face down.
public struct FlipSettings: Equatable, Sendable {
    /// Face down means gravity within this angle of the device's -z axis, degrees × 10.
    public var faceDownAngleDeci: Int32
    /// Face down ends when the device tilts more than this from -z, degrees × 10.
    public var releaseAngleDeci: Int32
    /// Settled means no axis moved more than this from where it settled, mg.
    public var stillMilliG: Int32
    /// …and, with a gyroscope, no axis turned faster than this, mdps.
    public var stillRateMdps: Int32
    /// …for at least this long, ms.
    public var holdMillis: Int32
    /// The device must have been clearly not face down (tilted past the release angle) within
    /// this long before settling face down: it turned over rather than drifted there, ms.
    public var flipWindowMillis: Int32
    /// Face up is reported when the device has been past the release angle this long, ms.
    public var releaseMillis: Int32

    public init(
        faceDownAngleDeci: Int32, releaseAngleDeci: Int32, stillMilliG: Int32, stillRateMdps: Int32,
        holdMillis: Int32, flipWindowMillis: Int32, releaseMillis: Int32
    ) {
        self.faceDownAngleDeci = faceDownAngleDeci
        self.releaseAngleDeci = releaseAngleDeci
        self.stillMilliG = stillMilliG
        self.stillRateMdps = stillRateMdps
        self.holdMillis = holdMillis
        self.flipWindowMillis = flipWindowMillis
        self.releaseMillis = releaseMillis
    }

    /// The preset for a sensitivity.
    public static func preset(_ s: Sensitivity) -> FlipSettings {
        var p = FlipSettings(
            faceDownAngleDeci: 350, releaseAngleDeci: 600, stillMilliG: 60, stillRateMdps: 20_000,
            holdMillis: 400, flipWindowMillis: 3000, releaseMillis: 100)
        switch s {
        case .low:
            p.faceDownAngleDeci = 250
            p.stillMilliG = 40
            p.holdMillis = 500
        case .medium:
            break
        case .high:
            p.faceDownAngleDeci = 450
            p.stillMilliG = 90
            p.flipWindowMillis = 5000
        }
        return p
    }
}

/// Settings of the tamper detector: for the alarm, moved or tilted from where it was armed.
public struct TamperSettings: Equatable, Sendable {
    /// Tilt from the orientation captured when armed that counts as tamper, degrees × 10.
    public var tiltDeci: Int32
    /// The speed that counts as the kiosk moving, mm/s.
    public var moveSpeedMMs: Int32
    /// How long the kiosk must keep moving one way, ms.
    public var moveMillis: Int32
    /// After a tamper event, the next one is held off this long, ms.
    public var holdoffMillis: Int32
    /// Whether the readings may fold a tap into a one-sample spike: a trace another tool
    /// recorded, at 50 Hz or below, from a chip whose low-pass is unknown. The movement test then
    /// leaves lone spikes out (`Movement.despike`). Jolt's own readings are filtered (the chip's
    /// low-pass below half the rate, or oversampled), and keep every sample.
    public var mayAlias = false

    public init(tiltDeci: Int32, moveSpeedMMs: Int32, moveMillis: Int32, holdoffMillis: Int32) {
        self.tiltDeci = tiltDeci
        self.moveSpeedMMs = moveSpeedMMs
        self.moveMillis = moveMillis
        self.holdoffMillis = holdoffMillis
    }

    /// The preset for a sensitivity.
    public static func preset(_ s: Sensitivity) -> TamperSettings {
        switch s {
        case .low: return TamperSettings(tiltDeci: 200, moveSpeedMMs: 30, moveMillis: 200, holdoffMillis: 2000)
        case .medium: return TamperSettings(tiltDeci: 100, moveSpeedMMs: 20, moveMillis: 120, holdoffMillis: 2000)
        case .high: return TamperSettings(tiltDeci: 50, moveSpeedMMs: 15, moveMillis: 100, holdoffMillis: 2000)
        }
    }
}

/// Settings of the shake algorithms that phone apps use, kept for comparison.
public struct PhoneShakeSettings: Equatable, Sendable {
    /// `threshold`: any axis past this, mg (2.45 g).
    public var axisThresholdMilliG: Int32 = 2450
    /// `lowpass`: the per-sample filter factor of the gravity low-pass, per mille (0.1 = 100),
    /// as apps apply it at `lowpassReferenceRateHz`; converted to a time constant so that it
    /// behaves the same at any rate.
    public var lowpassFactorPerMille: Int32 = 100
    /// The rate the `lowpass` factor was tuned at, Hz (iOS's accelerometer sample code: 60 Hz).
    public var lowpassReferenceRateHz: Int32 = 60
    /// `lowpass`: any axis of acceleration minus its low-pass past this, mg (0.38 g).
    public var lowpassDeltaMilliG: Int32 = 380
    /// `planar`: the x-y magnitude past this, mg (2.3 g).
    public var planarMilliG: Int32 = 2300
    /// `window` (seismic): a sample "accelerates" when its magnitude is past this, mg
    /// (13 m/s² = 1325.6 mg).
    public var windowMilliG: Int32 = 1326
    /// `window`: the window spans at least this and at most twice this, ms.
    public var windowMinMillis: Int32 = 250
    /// Each algorithm ignores new triggers for this long after one, ms.
    public var refractoryMillis: Int32 = 1000

    public init() {}
}

/// Settings of the flip rules that phones use, kept for comparison.
public struct PhoneFlipSettings: Equatable, Sendable {
    /// `phone`: the accelerometer z past this (toward face down), mg (0.85 g).
    public var gravityZMilliG: Int32 = 850
    /// `phone`: …together with a rotation rate past this, mdps (3.5 rad/s = 200.5 °/s).
    public var rateMdps: Int32 = 200_535
    /// `phone`: the rotation must have happened within this long before, ms.
    public var rateWindowMillis: Int32 = 500
    /// `android`: the moving average of z below this, mg (-9.5 m/s² = -968.7 mg).
    public var androidZMilliG: Int32 = -969
    /// `android`: once face down, it stays so while z is below this, mg (-8.5 m/s²).
    public var androidLenientZMilliG: Int32 = -867
    /// `android`: a change of the moving average of x²+y² past this counts as moving, mg²
    /// (0.2 m²/s⁴ = 0.2 × 101.97² mg²).
    public var androidMoveMilliG2: Int32 = 2080
    /// `android`: face down and not moving for longer than this, ms.
    public var androidHoldMillis: Int32 = 1000

    public init() {}
}
