// The benchmark's floating-point twin of the default set (Sources/jolt-bench/FloatDetectors.swift
// and FloatTamper.swift, built with `Real` = Float or Double by scripts/cortex-m-bench) behind
// the same entry point as scripts/firmware/Bench.swift.

import JoltCore

@_extern(c, "cos") func c_cos(_ x: Double) -> Double
func cos(_ x: Real) -> Real { Real(c_cos(Double(x))) }

extension FloatDefaultDetectors: BenchDetectors {}

@_cdecl("jolt_bench_run")
public func benchRun(_ p: UnsafeRawPointer, _ n: Int32, _ rateMilliHz: Int32, _ rangeMilliG: Int32) -> UInt32 {
    benchRun(FloatDefaultDetectors.self, p, n, rateMilliHz, rangeMilliG)
}
