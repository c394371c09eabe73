// The default detector set over a workload in memory, as jolt-bench's callgrind run does it
// (armed after the first sample), for counting instructions per sample on a Cortex-M4
// (scripts/cortex-m-bench). The same entry points are built three ways: the fixed-point core
// (this file), and the benchmark's floating-point twins with Float and with Double
// (scripts/firmware/FloatBench.swift).

import JoltCore

/// Runs the default set over `n` packed samples (32 bytes each: t as Int64, then ax ay az gx gy
/// gz as Int32, µs, mg, m°/s) at `rateMilliHz`; returns a checksum of the events.
@_cdecl("jolt_bench_run")
public func benchRun(_ p: UnsafeRawPointer, _ n: Int32, _ rateMilliHz: Int32, _ rangeMilliG: Int32) -> UInt32 {
    var s = DetectionSettings(rateMilliHz: rateMilliHz, gyro: true)
    s.rangeMilliG = rangeMilliG
    var d = DefaultDetectors(s)
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
