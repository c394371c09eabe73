import JoltCore

/// Sample `i` of packed samples in memory (32 bytes each: t as Int64, then ax ay az gx gy gz as
/// Int32, µs, mg, m°/s), as scripts/firmware/m4/bench.c lays them out.
@inline(__always)
func packedSample(_ p: UnsafeRawPointer, _ i: Int) -> Sample {
    let b = p + i * 32
    return Sample(t: b.load(as: Int64.self),
                  accel: Vec3(b.load(fromByteOffset: 8, as: Int32.self), b.load(fromByteOffset: 12, as: Int32.self), b.load(fromByteOffset: 16, as: Int32.self)),
                  gyro: Vec3(b.load(fromByteOffset: 20, as: Int32.self), b.load(fromByteOffset: 24, as: Int32.self), b.load(fromByteOffset: 28, as: Int32.self)))
}

/// A detector set the benchmark can run: the core's, or a floating-point twin.
protocol BenchDetectors {
    init(_ settings: DetectionSettings)
    mutating func update(_ s: Sample) -> Events
    mutating func armTamper()
}

/// Runs a set over `n` packed samples at `rateMilliHz`, armed after the first sample as
/// jolt-bench's callgrind run does; returns a checksum of the events.
@inline(__always)
func benchRun<D: BenchDetectors>(_ type: D.Type, _ p: UnsafeRawPointer, _ n: Int32, _ rateMilliHz: Int32, _ rangeMilliG: Int32) -> UInt32 {
    var s = DetectionSettings(rateMilliHz: rateMilliHz, gyro: true)
    s.rangeMilliG = rangeMilliG
    var d = D(s)
    _ = d.update(packedSample(p, 0))
    d.armTamper()
    var sum: UInt32 = 0
    var i = 1
    while i < Int(n) {
        sum &+= UInt32(d.update(packedSample(p, i)).rawValue) &* UInt32(truncatingIfNeeded: i)
        i += 1
    }
    return sum
}
