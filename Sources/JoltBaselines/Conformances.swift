import JoltCore

// The comparison algorithms as the detector sets' shake and flip algorithms.

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
