// The default detector set over a workload in memory, for counting instructions per sample on a
// Cortex-M4 (scripts/cortex-m-bench). The same entry point is built three ways: the fixed-point
// core (this file), and the benchmark's floating-point twins with Float and with Double
// (scripts/firmware/FloatBench.swift); the loop is PackedSample.swift's.

import JoltCore

extension DefaultDetectors: BenchDetectors {}

/// Runs the default set over `n` packed samples at `rateMilliHz`; returns a checksum of the events.
@_cdecl("jolt_bench_run")
public func benchRun(_ p: UnsafeRawPointer, _ n: Int32, _ rateMilliHz: Int32, _ rangeMilliG: Int32) -> UInt32 {
    benchRun(DefaultDetectors.self, p, n, rateMilliHz, rangeMilliG)
}
