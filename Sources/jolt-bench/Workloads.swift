#if canImport(Glibc)
import Glibc
#endif
import CAllocCount
import JoltBaselines
import JoltCore
import JoltJSON
import JoltMotion
import JoltTrace

/// The rate every workload is made at, Hz.
let benchRate = 100.0

func now() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Mixed motion: rest, shakes, flips, walking in a pocket, knocks, a carry — five minutes made by
/// the physical scene, then laid end to end (shifted in time) up to `count` samples.
func mixedMotion(count: Int) -> [Sample] {
    var sc = Scene(rate: benchRate, seed: 42)
    for i in 0..<12 {
        sc.rest(3)
        sc.shake(freq: 3 + Double(i % 5), amp: 1.5 + Double(i % 3) * 0.7, axis: V3(1, Double(i % 2), 0), seconds: 1.5)
        sc.hold(2)
        sc.turn(axis: V3(1, 0, 0), degrees: 180, seconds: 0.7)
        sc.setDown()
        sc.rest(3)
        sc.turn(axis: V3(1, 0, 0), degrees: -180, seconds: 0.7)
        sc.rest(1)
        sc.knocks(count: 2, peak: 2, spacing: 0.25)
        sc.gait(run: i % 2 == 1, carry: .pocket, seconds: 6, cadence: 1.9)
        sc.orientation = Mat3.identity
        sc.rest(2)
    }
    let base = sc.samples
    let span = base.last!.t + 10_000
    var out: [Sample] = []
    out.reserveCapacity(count)
    var k: Int64 = 0
    while out.count < count {
        for s in base where out.count < count {
            out.append(Sample(t: s.t + k * span, accel: s.accel, gyro: s.gyro))
        }
        k += 1
    }
    return out
}

/// The measured loop for callgrind: a fixed symbol name so that --toggle-collect can find it.
@inline(never) @_silgen_name("jolt_bench_default_workload")
func benchDefaultWorkload(_ d: inout DefaultDetectors, _ samples: UnsafeBufferPointer<Sample>) -> Int {
    var n = 0
    for s in samples { n &+= Int(d.update(s).rawValue) }
    return n
}

@inline(never)
func runSet<D: SampleDetector>(_ d: inout D, _ samples: UnsafeBufferPointer<Sample>) -> Int {
    var n = 0
    for s in samples { n &+= Int(d.update(s).rawValue) }
    return n
}

@inline(never)
func runFloatDefault(_ d: inout FloatDefaultDetectors, _ samples: UnsafeBufferPointer<Sample>) -> Int {
    var n = 0
    for s in samples { n &+= Int(d.update(s).rawValue) }
    return n
}

/// One detector alone, with the gravity filter it needs.
@inline(never)
func runShakeAlone<S: ShakeDetecting>(_ d: inout S, _ g: inout GravityFilter, _ samples: UnsafeBufferPointer<Sample>) -> Int {
    var n = 0
    for s in samples {
        let grav = g.update(s)
        if d.update(s, gravity: grav, dynamic: s.accel - grav) != nil { n &+= 1 }
    }
    return n
}

@inline(never)
func runFlipAlone<F: FlipDetecting>(_ d: inout F, _ g: inout GravityFilter, _ samples: UnsafeBufferPointer<Sample>) -> Int {
    var n = 0
    for s in samples {
        let grav = g.update(s)
        if d.update(s, gravity: grav) != nil { n &+= 1 }
    }
    return n
}

@inline(never)
func runTamperAlone(_ d: inout Tamper, _ g: inout GravityFilter, _ samples: UnsafeBufferPointer<Sample>) -> Int {
    var n = 0
    for s in samples {
        let grav = g.update(s)
        if d.update(s, gravity: grav) { n &+= 1 }
    }
    return n
}

@inline(never)
func runFloat<T>(_ d: inout T, _ samples: UnsafeBufferPointer<Sample>, _ step: (inout T, Sample) -> Bool) -> Int {
    var n = 0
    for s in samples { if step(&d, s) { n &+= 1 } }
    return n
}

/// A device lying still (a kiosk, most of its life).
func rest(count: Int) -> [Sample] {
    var sc = Scene(rate: benchRate, seed: 43)
    sc.rest(Double(count) / benchRate + 0.1)
    return Array(sc.samples.prefix(count))
}

/// Prints `count` samples of the `rest` or mixed-motion workload as `jolt replay --samples` does,
/// for another build of the core (scripts/cortex-m-bench).
func printWorkload(_ name: String, count: Int, settings: DetectionSettings) {
    let samples = name == "rest" ? rest(count: count) : mixedMotion(count: count)
    var text = "# jolt samples: rate_mhz=\(settings.rateMilliHz) gyro=1 range_mg=\(settings.rangeMilliG)\n"
    for s in samples { text += "\(s.t) \(s.accel.x) \(s.accel.y) \(s.accel.z) \(s.gyro.x) \(s.gyro.y) \(s.gyro.z)\n" }
    text.withCString { p in
        var done = 0, left = strlen(p)
        while left > 0 {
            let n = write(1, p + done, left)
            if n <= 0 { exit(74) }
            done += n; left -= n
        }
    }
}
