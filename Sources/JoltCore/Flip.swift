/// Jolt's flip detector: the device turned over and settled face down.
///
/// What it measures: *face down* means the reading is within `faceDownAngle` of -z; *settled*
/// means the device has lain there still for `hold`; *turned over* means that it was tilted past
/// the release angle no more than `flipWindow` before it came to rest. A hand or a wrist that
/// swings through face down never settles there, and a device slowly drifting there did not turn
/// over. `face_up` follows when the acceleration has stayed past the release angle for `release`
/// (a knock on the table is shorter than that).
///
/// *Still* is judged on the readings since the device came past the release angle or last
/// moved (the spell), two ways, so that a noisy chip's readings count as still and a slow turn
/// does not:
/// - **the band**: every axis has kept within a band `2 × still` wide (and, with a gyroscope, no
///   axis turns faster than `stillRate`). A window of ±`still` around the spell's first reading,
///   as it was, carries that one reading's noise: with a noisy chip (12 mg RMS and up) a window
///   centred on a noise peak was broken again and again, and a device lying face down was found
///   late or not at all.
/// - **the drift**: from half the hold on, the straight line fitted through each axis's readings
///   of the spell rises or falls no more than `still / 2` across them (more while there are fewer
///   than `fewestToJudge` readings, so that noise alone does not reach it). A slow turn tilts that
///   line; noise hardly does (12 mg RMS tilts it by 7 mg over 40 readings). A back bending over
///   at 6 °/s keeps within the band for half a second, and this is what stops it. A spell that
///   drifted starts again from the reading that found it, so a device still being lowered onto
///   the table is judged from when it stops.
///
/// Only readings past the release angle (toward face down) make a spell: a spell that began
/// face up could not reach face down without breaking its band, so face up the detector only
/// notes the time, and a kiosk at rest costs it nothing.
///
/// Works from the accelerometer alone; the gyroscope, when present, only tightens "settled".
public struct JoltFlip: Sendable {
    @usableFromInline let downZ: Int32
    @usableFromInline let releaseZ: Int32
    /// The band's widest, mg: twice `still`.
    @usableFromInline let span: Int32
    /// How far the line through a settled spell's readings may rise or fall, mg: `still / 2`.
    @usableFromInline let drift: Int32
    @usableFromInline let stillRate: Int32
    @usableFromInline let useGyro: Bool
    @usableFromInline let hold: Int64
    @usableFromInline let window: Int64
    @usableFromInline let release: Int64

    /// The longest spell, in readings (17 minutes at 1 kHz), before it starts again: the sums
    /// for the fitted line stay far inside an Int64.
    public static let longestSpell: Int64 = 1 << 20
    /// Below this many readings the drift allowed grows as 1/n: noise moves a line fitted
    /// through n readings by σ·√(12/n), 0.9 σ over 16 readings and 1.5 σ over 5.
    public static let fewestToJudge: Int64 = 16

    /// The spell: since when (`.min`: none under way), the band its readings have kept to, and
    /// for the fitted line, how many readings, their sum and their sum weighted by index (0, 1, …).
    @usableFromInline var stillSince: Int64 = .min
    @usableFromInline var low = Vec3.zero
    @usableFromInline var high = Vec3.zero
    @usableFromInline var count: Int64 = 0
    @usableFromInline var sum = Sum3()
    @usableFromInline var weighted = Sum3()
    @usableFromInline var lastNotDown: Int64 = .min
    @usableFromInline var releaseSince: Int64 = .min
    /// Whether the device is face down (as last reported).
    @inlinable public var isFaceDown: Bool { _isFaceDown }
    @usableFromInline var _isFaceDown: Bool = false

    /// A detector with `settings`; `gyro` says whether samples carry rotation rate.
    public init(settings s: FlipSettings, gyro: Bool) {
        downZ = -Trig.cosMilli(deciDegrees: s.faceDownAngleDeci)
        releaseZ = -Trig.cosMilli(deciDegrees: s.releaseAngleDeci)
        span = 2 &* s.stillMilliG
        drift = s.stillMilliG / 2
        stillRate = s.stillRateMdps
        useGyro = gyro
        hold = Int64(s.holdMillis) * Units.microsPerMilli
        window = Int64(s.flipWindowMillis) * Units.microsPerMilli
        release = Int64(s.releaseMillis) * Units.microsPerMilli
    }

    /// Feeds one sample; `gravity` is the current gravity estimate in mg.
    @inlinable @inline(__always)
    public mutating func update(_ s: Sample, gravity: Vec3) -> FaceState? {
        let a = s.accel
        if _isFaceDown {
            if a.z > releaseZ {
                if releaseSince == .min { releaseSince = s.t }
                if s.t - releaseSince >= release {
                    _isFaceDown = false
                    // Past the release angle now: any spell after this starts afresh.
                    lastNotDown = s.t
                    stillSince = .min
                    return .faceUp
                }
            } else {
                releaseSince = .min
            }
            return nil
        }
        if a.z > releaseZ {
            lastNotDown = s.t
            stillSince = .min
            return nil
        }
        // The drift is judged from half the hold on.
        if stillSince == .min || !keeps(a, gyro: s.gyro) || (s.t - stillSince >= hold >> 1 && drifted()) {
            begin(a, at: s.t)
        }
        if a.z <= downZ && s.t - stillSince >= hold && lastNotDown != .min
            && stillSince - lastNotDown <= window
        {
            _isFaceDown = true
            releaseSince = .min
            return .faceDown
        }
        return nil
    }

    /// A new spell from reading `a` at `t`.
    @inlinable @inline(__always)
    mutating func begin(_ a: Vec3, at t: Int64) {
        stillSince = t
        low = a
        high = a
        count = 1
        sum = Sum3(a)
        weighted = Sum3()
    }

    /// Whether reading `a` keeps the spell within its band (and takes it in if so).
    @inlinable @inline(__always)
    mutating func keeps(_ a: Vec3, gyro: Vec3) -> Bool {
        if useGyro && !gyro.within(stillRate) { return false }
        let lo = Vec3(min(low.x, a.x), min(low.y, a.y), min(low.z, a.z))
        let hi = Vec3(max(high.x, a.x), max(high.y, a.y), max(high.z, a.z))
        let wide = hi - lo
        guard wide.x <= span && wide.y <= span && wide.z <= span && count < Self.longestSpell else { return false }
        low = lo
        high = hi
        weighted.add(a, times: count)
        sum.add(a, times: 1)
        count &+= 1
        return true
    }

    /// Whether the line fitted through the spell's readings rises or falls more than `drift` on
    /// some axis (`drift × fewestToJudge / n` while n is below `fewestToJudge`). Over n readings
    /// x₀…xₙ₋₁ the least-squares line changes by 6·Q / (n·(n + 1)) with
    /// Q = Σ (2i − (n − 1))·xᵢ = 2·Σ i·xᵢ − (n − 1)·Σ xᵢ; so the test is
    /// 6·|Q| > drift·(n + 1)·max(n, fewestToJudge), in whole numbers.
    @inlinable
    func drifted() -> Bool {
        let n = count
        let q6 = weighted.scaled(12, minus: sum, scaled: 6 &* (n &- 1))
        return !q6.within(Int64(drift) &* (n &+ 1) &* max(n, Self.fewestToJudge))
    }

    /// Narrows `box` to the readings for which `update` changes nothing but what `rest` does:
    /// face up with no spell under way, or face down (as reported) with no release under way.
    @inlinable @inline(__always)
    public func restBox(_ box: inout RestBox) -> Bool {
        if _isFaceDown {
            guard releaseSince == .min else { return false }
            box.limitZ(hi: releaseZ)
        } else {
            guard stillSince == .min else { return false }
            box.limitZ(lo: releaseZ &+ 1)
        }
        return true
    }

    /// What `update` does with a sample in its `restBox`: face up, it notes the time.
    @inlinable @inline(__always)
    public mutating func rest(at t: Int64) {
        if !_isFaceDown { lastNotDown = t }
    }

    /// Forgets motion history (a gap in the data); the reported orientation is kept.
    public mutating func reset() {
        stillSince = .min
    }
}

/// Sums of readings, per axis, plain or weighted.
public struct Sum3: Sendable {
    @usableFromInline var x: Int64 = 0
    @usableFromInline var y: Int64 = 0
    @usableFromInline var z: Int64 = 0

    @inlinable public init() {}

    @inlinable
    init(_ a: Vec3) {
        x = Int64(a.x)
        y = Int64(a.y)
        z = Int64(a.z)
    }

    @inlinable @inline(__always)
    mutating func add(_ a: Vec3, times k: Int64) {
        x &+= Int64(a.x) &* k
        y &+= Int64(a.y) &* k
        z &+= Int64(a.z) &* k
    }

    /// `self × k - other × m`, per axis.
    @inlinable @inline(__always)
    func scaled(_ k: Int64, minus other: Sum3, scaled m: Int64) -> Sum3 {
        var d = Sum3()
        d.x = x &* k &- other.x &* m
        d.y = y &* k &- other.y &* m
        d.z = z &* k &- other.z &* m
        return d
    }

    /// Whether every axis is within ±`limit`.
    @inlinable @inline(__always)
    func within(_ limit: Int64) -> Bool {
        x >= -limit && x <= limit && y >= -limit && y <= limit && z >= -limit && z <= limit
    }
}
