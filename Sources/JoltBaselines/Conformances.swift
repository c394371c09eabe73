import JoltCore

// The comparison algorithms as the detector sets' shake and flip algorithms.

/// A phone shake algorithm: one reading at a time, with no use for the shared gravity estimate,
/// and a refractory trigger whose start is the shake's.
public protocol PhoneShakeAlgorithm: ShakeDetecting {
    var trigger: RefractoryTrigger { get }
    mutating func update(_ s: Sample) -> ShakePhase?
}

extension PhoneShakeAlgorithm {
    public var shakeSince: Int64 { trigger.since }
    public var shakePeak2: Int64 { 0 }
    @inlinable public mutating func update(_ s: Sample, gravity: Vec3, dynamic: Vec3) -> ShakePhase? { update(s) }
}

extension ThresholdShake: PhoneShakeAlgorithm {
    public static var algorithm: ShakeAlgorithm { .threshold }
    public init(_ s: DetectionSettings) { self.init(settings: s.phoneShake) }
}

extension LowPassShake: PhoneShakeAlgorithm {
    public static var algorithm: ShakeAlgorithm { .lowpass }
    public init(_ s: DetectionSettings) { self.init(settings: s.phoneShake, periodMicros: s.periodMicros) }
}

extension PlanarShake: PhoneShakeAlgorithm {
    public static var algorithm: ShakeAlgorithm { .planar }
    public init(_ s: DetectionSettings) { self.init(settings: s.phoneShake) }
}

extension WindowShake: PhoneShakeAlgorithm {
    public static var algorithm: ShakeAlgorithm { .window }
    public init(_ s: DetectionSettings) { self.init(settings: s.phoneShake, periodMicros: s.periodMicros) }
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
