import JoltCore
import JoltEngine

/// Builds the detector set that `settings` names — Jolt's, or one with a comparison algorithm —
/// and hands it to `consumer` as a concrete type. Inlined into the caller, so that the default
/// set (Jolt's shake and flip detectors, what a kiosk runs) is specialised in the caller's
/// module, its consumer and all: replay then runs straight code, not calls through the detector
/// protocols' witness tables. The other combinations, for comparing algorithms, are built here and
/// run as generic code.
@inlinable
public func withAnyDetectors<C: DetectorConsumer>(_ settings: DetectionSettings, _ consumer: C) throws(C.Failure) -> C.Result {
    if settings.shakeAlgorithm == .jolt && settings.flipAlgorithm == .jolt {
        var d = DefaultDetectors(settings)
        return try consumer.consume(&d)
    }
    return try withOtherDetectors(settings, consumer)
}

/// The detector sets other than the default, for `withAnyDetectors`.
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
