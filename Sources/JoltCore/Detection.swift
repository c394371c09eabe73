/// The shake algorithms Jolt offers: its own and the ones phone apps use.
public enum ShakeAlgorithm: UInt8, CaseIterable, Sendable {
    /// Jolt's default: alternating lobes of dynamic acceleration.
    case jolt
    /// Any axis past 2.45 g.
    case threshold
    /// Any axis of acceleration minus a low-pass past 0.38 g.
    case lowpass
    /// x-y magnitude past 2.3 g.
    case planar
    /// Square's seismic: 3/4 of a 0.25-0.5 s window past 13 m/s².
    case window

    /// The algorithm's name in configuration files and on the command line.
    public var name: StaticString {
        switch self {
        case .jolt: return "jolt"
        case .threshold: return "threshold"
        case .lowpass: return "lowpass"
        case .planar: return "planar"
        case .window: return "window"
        }
    }
}

/// The flip algorithms Jolt offers: its own and two phone rules.
public enum FlipAlgorithm: UInt8, CaseIterable, Sendable {
    /// Jolt's default: turned over, then settled face down.
    case jolt
    /// Gravity z past 0.85 g with rotation past 3.5 rad/s.
    case phone
    /// AOSP's FaceDownDetector: z below -9.5 m/s², still, held 1 s.
    case android

    /// The algorithm's name in configuration files and on the command line.
    public var name: StaticString {
        switch self {
        case .jolt: return "jolt"
        case .phone: return "phone"
        case .android: return "android"
        }
    }
}

/// Everything the detectors need to know, in physical units, for one output data rate.
public struct DetectionSettings: Equatable, Sendable {
    /// Output data rate, milli-hertz (12,500 … 1,000,000).
    public var rateMilliHz: Int32
    /// Whether samples carry rotation rate.
    public var gyro: Bool
    /// The chip's accelerometer full scale, mg (0: unknown): readings there are clipped.
    public var rangeMilliG: Int32 = 0
    /// Time constant of the gravity estimate shared by the detectors, ms.
    public var gravityTauMillis: Int32
    public var shakeAlgorithm: ShakeAlgorithm
    public var flipAlgorithm: FlipAlgorithm
    public var shake: ShakeSettings
    public var flip: FlipSettings
    public var tamper: TamperSettings
    public var phoneShake: PhoneShakeSettings
    public var phoneFlip: PhoneFlipSettings

    /// The lowest and highest supported output data rates, milli-hertz.
    public static let rateRange: ClosedRange<Int32> = 12_500...1_000_000

    /// Settings from a sensitivity preset, at `rateMilliHz`.
    public init(sensitivity: Sensitivity = .medium, rateMilliHz: Int32, gyro: Bool) {
        self.rateMilliHz = rateMilliHz
        self.gyro = gyro
        gravityTauMillis = 500
        shakeAlgorithm = .jolt
        flipAlgorithm = .jolt
        shake = .preset(sensitivity)
        flip = .preset(sensitivity)
        tamper = .preset(sensitivity)
        phoneShake = PhoneShakeSettings()
        phoneFlip = PhoneFlipSettings()
    }

    /// The sample period, µs.
    public var periodMicros: Int64 { Units.periodMicros(rateMilliHz: rateMilliHz) }
}

/// A shake detector that the detector set can drive.
public protocol ShakeDetecting: Sendable {
    /// Which algorithm this is.
    static var algorithm: ShakeAlgorithm { get }
    /// The detector for `settings`.
    init(_ settings: DetectionSettings)
    /// Feeds one sample; `gravity` is the shared gravity estimate and `dynamic` the acceleration
    /// minus it, mg.
    mutating func update(_ s: Sample, gravity: Vec3, dynamic: Vec3) -> ShakePhase?
    /// Forgets motion history without an event.
    mutating func reset()
    /// Narrows `box` (which lies within the gravity estimate's still band around `gravity`) to
    /// the readings for which `update` would change nothing and return nil; false when there
    /// are none now (a gesture under way), or when the algorithm has no rest path.
    func restBox(_ box: inout RestBox, gravity: Vec3) -> Bool
    /// When the current (or last) shake began, µs.
    var shakeSince: Int64 { get }
    /// The largest dynamic acceleration of the current (or last) shake, squared, mg² (0 when the
    /// algorithm does not measure it).
    var shakePeak2: Int64 { get }
    /// How far a shake being recognised has got, in the algorithm's own steps (Jolt's: lobes in
    /// a row), for a live view; 0 for algorithms without steps.
    var progress: Int32 { get }
}

extension ShakeDetecting {
    public var progress: Int32 { 0 }
    /// No rest path: every sample takes the full one.
    public func restBox(_ box: inout RestBox, gravity: Vec3) -> Bool { false }
}

/// A flip detector that the detector set can drive.
public protocol FlipDetecting: Sendable {
    /// Which algorithm this is.
    static var algorithm: FlipAlgorithm { get }
    /// The detector for `settings`.
    init(_ settings: DetectionSettings)
    /// Feeds one sample; `gravity` is the shared gravity estimate, mg.
    mutating func update(_ s: Sample, gravity: Vec3) -> FaceState?
    /// Forgets motion history without an event; the orientation is kept.
    mutating func reset()
    /// Whether the device is face down, as last reported.
    var isFaceDown: Bool { get }
    /// Narrows `box` to the readings for which `update` would change nothing but what
    /// `rest(at:)` does, and return nil; false when there are none now, or when the algorithm
    /// has no rest path.
    func restBox(_ box: inout RestBox) -> Bool
    /// What `update` does with a sample at `t` in its `restBox`.
    mutating func rest(at t: Int64)
}

extension FlipDetecting {
    /// No rest path: every sample takes the full one.
    public func restBox(_ box: inout RestBox) -> Bool { false }
    public mutating func rest(at t: Int64) {}
}

extension JoltShake: ShakeDetecting {
    public static var algorithm: ShakeAlgorithm { .jolt }
    public init(_ s: DetectionSettings) { self.init(settings: s.shake, range: s.rangeMilliG) }
    @inlinable @inline(__always)
    public mutating func update(_ s: Sample, gravity: Vec3, dynamic: Vec3) -> ShakePhase? { update(s, dynamic: dynamic) }
    public var shakeSince: Int64 { lifecycle.since }
    public var progress: Int32 { chainLength }
}

extension JoltFlip: FlipDetecting {
    public static var algorithm: FlipAlgorithm { .jolt }
    public init(_ s: DetectionSettings) { self.init(settings: s.flip, gyro: s.gyro) }
}

/// Anything that turns samples into events: the interface the application drives.
public protocol SampleDetector: Sendable {
    /// Feeds one sample and returns what it raised.
    mutating func update(_ s: Sample) -> Events
    /// Forgets motion history after a gap in the data, without raising anything.
    mutating func reset()
    /// Arms the tamper detector at the current orientation.
    mutating func armTamper()
    /// Arms the tamper detector at a given orientation (gravity, mg): a reference kept across a
    /// restart, so that a kiosk moved while Jolt was down is a moved kiosk.
    mutating func armTamper(reference: Vec3)
    /// The tamper detector's reference orientation, when armed.
    var tamperReference: Vec3? { get }
    /// Disarms the tamper detector.
    mutating func disarmTamper()
    /// The current gravity estimate, mg.
    var gravity: Vec3 { get }
    /// Whether the device is face down, as last reported.
    var isFaceDown: Bool { get }
    /// When the current (or last) shake began, µs.
    var shakeSince: Int64 { get }
    /// The largest dynamic acceleration of the current (or last) shake, squared, mg² (0: unknown).
    var shakePeak2: Int64 { get }
    /// The shake detector's progress towards a shake (see `ShakeDetecting.progress`).
    var shakeProgress: Int32 { get }
    /// Whether the tamper detector is armed.
    var tamperArmed: Bool { get }
    /// What the tamper detector read when it last fired, read right after the sample at `t`
    /// that did (nil: it has not fired since it was armed).
    func tamperReading(at t: Int64) -> TamperReading?
    /// The tamper detector's velocity now, mm/s per axis (zero when disarmed): a live view's.
    var tamperVelocityMMs: Vec3 { get }
    /// Whether the last sample left every detector at rest (nothing under way that the next
    /// samples could turn into an event): a host may then read the chip less often.
    var resting: Bool { get }
}

extension SampleDetector {
    /// A set without a rest path never says it rests.
    public var resting: Bool { false }
}

/// Shake, flip and tamper detection together, sharing one gravity estimate.
///
/// Generic over the shake and flip algorithms so that each combination is compiled to straight
/// code; `DetectorSet<JoltShake, JoltFlip>` is Jolt's default.
///
/// **The rest path.** A kiosk spends nearly all its life at rest, where a sample changes
/// nothing any detector will act on. After each full update the detectors say for which
/// readings that holds (`restBox`: within the gravity estimate's still band, quiet for the
/// tamper detector, still for the flip detector, no gesture under way) and until when (the
/// tamper baseline's next move); a sample inside takes the rest path: the few stores the full
/// path would make (the flip detector's time stamp, the baseline's sums, the tamper bucket's
/// clock, and a tilted kiosk's bucket firing) and nothing else. By construction the events are those of the full path, at
/// the same times; `restPath = false` turns it off, and jolt-bench and the tests check that
/// both give the same events.
public struct DetectorSet<Shake: ShakeDetecting, Flip: FlipDetecting>: SampleDetector {
    @usableFromInline var lowPass: GravityFilter
    @usableFromInline var _shake: Shake
    @usableFromInline var _flip: Flip
    @usableFromInline var _tamper: Tamper
    /// The shake detector.
    public var shake: Shake { _shake }
    /// The flip detector.
    public var flip: Flip { _flip }
    /// The tamper detector.
    public var tamper: Tamper { _tamper }
    @usableFromInline var gate = RestGate()
    /// Whether resting samples take the rest path (on by default).
    public var restPath = true { didSet { gate.close() } }

    /// The detectors for `settings`.
    @inline(never)
    public init(_ settings: DetectionSettings) {
        lowPass = GravityFilter(
            tauMicros: Int64(settings.gravityTauMillis) * Units.microsPerMilli,
            periodMicros: settings.periodMicros, gyro: settings.gyro)
        _shake = Shake(settings)
        _flip = Flip(settings)
        _tamper = Tamper(settings: settings.tamper, periodMicros: settings.periodMicros, gyro: settings.gyro)
    }

    @inlinable @inline(__always)
    public mutating func update(_ s: Sample) -> Events {
        if gate.holds(s) {
            if s.t < gate.until {
                _flip.rest(at: s.t)
                return _tamper.rest(s) ? .tamper : Events()
            }
            if gate.isOpen { return renew(s) }
        }
        return fullUpdate(s)
    }

    /// A sample in the rest box on or after its time is up (the tamper baseline is due to move):
    /// the rest path's stores, what the full update would do besides (move the baseline), and a
    /// new gate.
    @inlinable @inline(never)
    mutating func renew(_ s: Sample) -> Events {
        _flip.rest(at: s.t)
        let fired = _tamper.rest(s)
        _tamper.moveBaseline(at: s.t)
        gate = RestGate(restBox(gravity: lowPass.value, renewing: true))
        return fired ? .tamper : Events()
    }

    @inlinable @inline(never)
    mutating func fullUpdate(_ s: Sample) -> Events {
        let g = lowPass.update(s)
        let d = s.accel - g
        var e = Events()
        if let p = _shake.update(s, gravity: g, dynamic: d) { e.formUnion(.shake(p)) }
        if let f = _flip.update(s, gravity: g) { e.formUnion(.flip(f)) }
        if _tamper.update(s, gravity: g) { e.formUnion(.tamper) }
        // A gate is worth making only when this sample rests (a moving one never does).
        let still = (s.accel - g).within(GravityFilter.stillBandMilliG)
        gate = restPath && still && _tamper.mayRest ? RestGate(restBox(gravity: g)) : RestGate()
        return e
    }

    /// The readings that may take the rest path next (empty when none may).
    @inlinable
    mutating func restBox(gravity g: Vec3, renewing: Bool = false) -> RestBox {
        var box = RestBox()
        // The tamper detector first: after a motion it is the last to come to rest.
        guard lowPass.primed && _tamper.restBox(&box, gravity: g, renewing: renewing) && _flip.restBox(&box) else { return .none }
        box.limit(around: g, within: GravityFilter.stillBandMilliG)
        if lowPass.turnsWithGyro { box.limitRotation(GravityFilter.turnFloor) }
        // The shake detector's test holds for any box within the estimate's still band.
        guard _shake.restBox(&box, gravity: g) else { return .none }
        return box
    }

    public mutating func reset() {
        gate.close()
        lowPass.clear()
        _shake.reset()
        _flip.reset()
        _tamper.reset()
    }

    public mutating func armTamper() {
        gate.close()
        _tamper.arm(gravity: lowPass.value)
    }
    public mutating func armTamper(reference: Vec3) {
        gate.close()
        _tamper.arm(gravity: reference)
    }
    public var tamperReference: Vec3? { _tamper.armedReference }
    /// The rest path is open: the last sample was still and no detector had anything under way.
    public var resting: Bool { gate.isOpen }
    public mutating func disarmTamper() {
        gate.close()
        _tamper.disarm()
    }
    /// Whether `s`, coming next, would take the rest path.
    public func takesRestPath(_ s: Sample) -> Bool { gate.holds(s) && s.t < gate.until }
    public var gravity: Vec3 { lowPass.value }
    public var isFaceDown: Bool { _flip.isFaceDown }
    public var shakeSince: Int64 { _shake.shakeSince }
    public var shakePeak2: Int64 { _shake.shakePeak2 }
    public var shakeProgress: Int32 { _shake.progress }
    public var tamperArmed: Bool { _tamper.isArmed }
    public func tamperReading(at t: Int64) -> TamperReading? { _tamper.reading(gravity: lowPass.value, at: t) }
    public var tamperVelocityMMs: Vec3 {
        guard _tamper.isArmed else { return .zero }
        let v = _tamper.movement.velocityMMs
        return Vec3(Int32(clamping: v.x), Int32(clamping: v.y), Int32(clamping: v.z))
    }
}

/// Jolt's default detector set.
public typealias DefaultDetectors = DetectorSet<JoltShake, JoltFlip>
