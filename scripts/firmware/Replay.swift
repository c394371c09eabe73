// The core's replay on another machine: the default detector set fed the samples `jolt replay
// --samples` prints, reporting what it raises. scripts/arm-check compiles it with the core as
// Embedded Swift for 64-bit and 32-bit ARM (and for x86-64, the reference), links it with
// scripts/firmware/replay.c into a Linux program, and compares the events.

nonisolated(unsafe) var replayDetectors = DefaultDetectors(DetectionSettings(rateMilliHz: 100_000, gyro: true))
nonisolated(unsafe) var replayArm = false
nonisolated(unsafe) var replayStarted = false

/// Sets the default detectors up as `jolt replay` does for a trace: its rate (mHz), whether it
/// has a gyroscope, its full scale (mg, 0: unknown); `arm`: arm the tamper detector at the
/// first sample, as `jolt replay --arm`; `mayAlias`: taps may be folded into spikes
/// (`TamperSettings.mayAlias`).
@_cdecl("jolt_replay_setup")
public func replaySetup(rateMilliHz: Int32, gyro: Bool, rangeMilliG: Int32, arm: Bool, mayAlias: Bool) {
    var s = DetectionSettings(sensitivity: .medium, rateMilliHz: rateMilliHz, gyro: gyro)
    s.rangeMilliG = rangeMilliG
    s.tamper.mayAlias = mayAlias
    replayDetectors = DefaultDetectors(s)
    replayArm = arm
    replayStarted = false
}

/// Feeds one sample (µs, mg, m°/s); returns the events it raised (`Events.rawValue`).
@_cdecl("jolt_replay_sample")
public func replaySample(t: Int64, ax: Int32, ay: Int32, az: Int32, gx: Int32, gy: Int32, gz: Int32) -> UInt32 {
    let e = replayDetectors.update(Sample(t: t, accel: Vec3(ax, ay, az), gyro: Vec3(gx, gy, gz)))
    if !replayStarted {
        replayStarted = true
        if replayArm { replayDetectors.armTamper() }
    }
    return UInt32(e.rawValue)
}

/// The largest dynamic acceleration of the current (or last) shake, squared, mg².
@_cdecl("jolt_replay_shake_peak2")
public func replayShakePeak2() -> Int64 { replayDetectors.shake.shakePeak2 }
