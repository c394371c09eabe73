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
