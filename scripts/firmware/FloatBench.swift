// The benchmark's floating-point twin of the default set (Sources/jolt-bench/FloatDetectors.swift
// and FloatTamper.swift, built with `Real` = Float or Double by scripts/cortex-m-bench) behind
// the same entry point as scripts/firmware/Bench.swift.

import JoltCore

@_extern(c, "cos") func c_cos(_ x: Double) -> Double
func cos(_ x: Real) -> Real { Real(c_cos(Double(x))) }

@_cdecl("jolt_bench_run")
public func benchRun(_ p: UnsafeRawPointer, _ n: Int32, _ rateMilliHz: Int32, _ rangeMilliG: Int32) -> UInt32 {
    var s = DetectionSettings(rateMilliHz: rateMilliHz, gyro: true)
    s.rangeMilliG = rangeMilliG
    var d = FloatDefaultDetectors(s)
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
