import JoltCore

/// Something that wants each detector set, whatever its algorithms, as a concrete type.
public protocol DetectorConsumer {
    associatedtype Result
    associatedtype Failure: Error
    func consume<D: SampleDetector>(_ detectors: inout D) throws(Failure) -> Result
}

/// Builds the detector set that `settings` names and hands it to `consumer` as a concrete
/// type. Inlined into the caller, so that the default set (Jolt's shake and flip detectors, what
/// a kiosk and nearly every board runs) is specialised in the caller's module, its consumer
/// and all: the daemon's loop and replay's then run straight code, not calls through the
/// detector protocols' witness tables. The other combinations, for comparing algorithms, are
/// built here and run as generic code.
@inlinable
public func withDetectors<C: DetectorConsumer>(_ settings: DetectionSettings, _ consumer: C) throws(C.Failure) -> C.Result {
    if settings.shakeAlgorithm == .jolt && settings.flipAlgorithm == .jolt {
        var d = DefaultDetectors(settings)
        return try consumer.consume(&d)
    }
    return try withOtherDetectors(settings, consumer)
}

/// The detector sets other than the default, for `withDetectors`.
@usableFromInline
func withOtherDetectors<C: DetectorConsumer>(_ settings: DetectionSettings, _ consumer: C) throws(C.Failure) -> C.Result {
    switch settings.shakeAlgorithm {
    case .jolt: return try withFlip(JoltShake.self, settings, consumer)
    case .threshold: return try withFlip(ThresholdShake.self, settings, consumer)
    case .lowpass: return try withFlip(LowPassShake.self, settings, consumer)
    case .planar: return try withFlip(PlanarShake.self, settings, consumer)
    case .window: return try withFlip(WindowShake.self, settings, consumer)
    }
}

private func withFlip<S: ShakeDetecting, C: DetectorConsumer>(_: S.Type, _ settings: DetectionSettings, _ consumer: C) throws(C.Failure) -> C.Result {
    switch settings.flipAlgorithm {
    case .jolt:
        var d = DetectorSet<S, JoltFlip>(settings)
        return try consumer.consume(&d)
    case .phone:
        var d = DetectorSet<S, PhoneFlip>(settings)
        return try consumer.consume(&d)
    case .android:
        var d = DetectorSet<S, AndroidFlip>(settings)
        return try consumer.consume(&d)
    }
}
