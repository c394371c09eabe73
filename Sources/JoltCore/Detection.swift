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
}

extension JoltShake: ShakeDetecting {
    public static var algorithm: ShakeAlgorithm { .jolt }
    public init(_ s: DetectionSettings) { self.init(settings: s.shake, range: s.rangeMilliG) }
    @inlinable
    public mutating func update(_ s: Sample, gravity: Vec3, dynamic: Vec3) -> ShakePhase? { update(s, dynamic: dynamic) }
    public var shakeSince: Int64 { lifecycle.since }
    public var progress: Int32 { chainLength }
}

extension ThresholdShake: ShakeDetecting {
    public var shakeSince: Int64 { trigger.since }
    public var shakePeak2: Int64 { 0 }
    public static var algorithm: ShakeAlgorithm { .threshold }
    public init(_ s: DetectionSettings) { self.init(settings: s.phoneShake) }
    @inlinable public mutating func update(_ s: Sample, gravity: Vec3, dynamic: Vec3) -> ShakePhase? { update(s) }
}

extension LowPassShake: ShakeDetecting {
    public var shakeSince: Int64 { trigger.since }
    public var shakePeak2: Int64 { 0 }
    public static var algorithm: ShakeAlgorithm { .lowpass }
    public init(_ s: DetectionSettings) { self.init(settings: s.phoneShake, periodMicros: s.periodMicros) }
    @inlinable public mutating func update(_ s: Sample, gravity: Vec3, dynamic: Vec3) -> ShakePhase? { update(s) }
}

extension PlanarShake: ShakeDetecting {
    public var shakeSince: Int64 { trigger.since }
    public var shakePeak2: Int64 { 0 }
    public static var algorithm: ShakeAlgorithm { .planar }
    public init(_ s: DetectionSettings) { self.init(settings: s.phoneShake) }
    @inlinable public mutating func update(_ s: Sample, gravity: Vec3, dynamic: Vec3) -> ShakePhase? { update(s) }
}

extension WindowShake: ShakeDetecting {
    public var shakeSince: Int64 { trigger.since }
    public var shakePeak2: Int64 { 0 }
    public static var algorithm: ShakeAlgorithm { .window }
    public init(_ s: DetectionSettings) { self.init(settings: s.phoneShake, periodMicros: s.periodMicros) }
    @inlinable public mutating func update(_ s: Sample, gravity: Vec3, dynamic: Vec3) -> ShakePhase? { update(s) }
}

extension JoltFlip: FlipDetecting {
    public static var algorithm: FlipAlgorithm { .jolt }
    public init(_ s: DetectionSettings) { self.init(settings: s.flip, gyro: s.gyro) }
}

extension PhoneFlip: FlipDetecting {
    public static var algorithm: FlipAlgorithm { .phone }
    public init(_ s: DetectionSettings) { self.init(settings: s.phoneFlip) }
    @inlinable public mutating func update(_ s: Sample, gravity: Vec3) -> FaceState? { update(s) }
}

extension AndroidFlip: FlipDetecting {
    public static var algorithm: FlipAlgorithm { .android }
    public init(_ s: DetectionSettings) { self.init(settings: s.phoneFlip) }
    @inlinable public mutating func update(_ s: Sample, gravity: Vec3) -> FaceState? { update(s) }
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
}

/// Shake, flip and tamper detection together, sharing one gravity estimate.
///
/// Generic over the shake and flip algorithms so that each combination is compiled to straight
/// code; `DetectorSet<JoltShake, JoltFlip>` is Jolt's default.
public struct DetectorSet<Shake: ShakeDetecting, Flip: FlipDetecting>: SampleDetector {
    @usableFromInline var lowPass: GravityFilter
    /// The shake detector.
    public var shake: Shake
    /// The flip detector.
    public var flip: Flip
    /// The tamper detector.
    public var tamper: Tamper

    /// The detectors for `settings`.
    public init(_ settings: DetectionSettings) {
        lowPass = GravityFilter(
            tauMicros: Int64(settings.gravityTauMillis) * Units.microsPerMilli,
            periodMicros: settings.periodMicros, gyro: settings.gyro)
        shake = Shake(settings)
        flip = Flip(settings)
        tamper = Tamper(settings: settings.tamper, periodMicros: settings.periodMicros)
    }

    @inlinable
    public mutating func update(_ s: Sample) -> Events {
        let g = lowPass.update(s)
        let d = s.accel - g
        var e = Events()
        if let p = shake.update(s, gravity: g, dynamic: d) { e.formUnion(.shake(p)) }
        if let f = flip.update(s, gravity: g) { e.formUnion(.flip(f)) }
        if tamper.update(s, gravity: g) { e.formUnion(.tamper) }
        return e
    }

    public mutating func reset() {
        lowPass.clear()
        shake.reset()
        flip.reset()
        tamper.reset()
    }

    public mutating func armTamper() { tamper.arm(gravity: lowPass.value) }
    public mutating func armTamper(reference: Vec3) { tamper.arm(gravity: reference) }
    public var tamperReference: Vec3? { tamper.armedReference }
    public mutating func disarmTamper() { tamper.disarm() }
    public var gravity: Vec3 { lowPass.value }
    public var isFaceDown: Bool { flip.isFaceDown }
    public var shakeSince: Int64 { shake.shakeSince }
    public var shakePeak2: Int64 { shake.shakePeak2 }
    public var shakeProgress: Int32 { shake.progress }
    public var tamperArmed: Bool { tamper.isArmed }
}

/// Jolt's default detector set.
public typealias DefaultDetectors = DetectorSet<JoltShake, JoltFlip>

extension Alarm {
    /// One step of the alarm after a sample at `t` raised `events`: time passes, the events are
    /// offered, and the tamper detector is armed or disarmed to follow the state.
    public mutating func step<D: SampleDetector>(_ events: Events, at t: Int64, detectors: inout D) -> AlarmTransition? {
        let tr = tick(at: t) ?? observe(events, at: t)
        if let tr { follow(tr, detectors: &detectors) }
        return tr
    }

    /// Applies a command (arm or disarm) at `t`, keeping the tamper detector in step.
    public mutating func command<D: SampleDetector>(arm: Bool, at t: Int64, detectors: inout D) -> AlarmTransition? {
        command(arm ? .armCommand : .disarmCommand, at: t, detectors: &detectors)
    }

    /// Applies a command — `.armCommand`, `.disarmCommand` or `.panic` — at `t`, keeping the
    /// tamper detector in step.
    public mutating func command<D: SampleDetector>(_ c: AlarmTransition.Cause, at t: Int64, detectors: inout D) -> AlarmTransition? {
        let tr: AlarmTransition?
        switch c {
        case .armCommand: tr = arm(at: t)
        case .disarmCommand: tr = disarm(at: t)
        case .panic: tr = panic(at: t)
        default: tr = nil
        }
        if let tr { follow(tr, detectors: &detectors) }
        return tr
    }

    func follow<D: SampleDetector>(_ tr: AlarmTransition, detectors: inout D) {
        switch tr.to {
        case .armed:
            // Watching starts now (again, after a timeout): the reference is where it is now.
            detectors.armTamper()
        case .disarmed, .arming:
            detectors.disarmTamper()
        case .triggered:
            break
        }
    }
}
