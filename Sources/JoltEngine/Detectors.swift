import JoltCore

/// Something that wants each detector set, whatever its algorithms, as a concrete type.
public protocol DetectorConsumer {
    associatedtype Result
    associatedtype Failure: Error
    func consume<D: SampleDetector>(_ detectors: inout D) throws(Failure) -> Result
}

/// Builds the detector set that `settings` names and hands it to `consumer`, so that every
/// combination of algorithms runs as specialised code.
public func withDetectors<C: DetectorConsumer>(_ settings: DetectionSettings, _ consumer: C) throws(C.Failure) -> C.Result {
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
