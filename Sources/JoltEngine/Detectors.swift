import JoltCore

/// Something that wants each detector set, whatever its algorithms, as a concrete type: replay,
/// plot and evaluation take any set a configuration names (JoltBaselines' `withAnyDetectors`);
/// the service runs the default set alone (`DefaultDetectors`), concretely.
public protocol DetectorConsumer {
    associatedtype Result
    associatedtype Failure: Error
    func consume<D: SampleDetector>(_ detectors: inout D) throws(Failure) -> Result
}
