// A microcontroller's use of the core, for measuring what it costs in flash: the default
// detector set and the alarm, fed one sample at a time. scripts/embedded-check compiles it with
// the core as Embedded Swift for a Cortex-M4 and keeps only what these entry points reach.

nonisolated(unsafe) var detectors = DefaultDetectors(DetectionSettings(rateMilliHz: 100_000, gyro: true))
nonisolated(unsafe) var alarm = Alarm(settings: AlarmSettings())

/// Sets the detectors up for an output data rate (mHz) and a sensitivity (0 low, 1 medium, 2 high).
@_cdecl("jolt_firmware_setup")
public func setup(rateMilliHz: Int32, sensitivity: UInt8, gyro: Bool) {
    let s = DetectionSettings(sensitivity: Sensitivity(rawValue: sensitivity) ?? .medium, rateMilliHz: rateMilliHz, gyro: gyro)
    detectors = DefaultDetectors(s)
    alarm = Alarm(settings: AlarmSettings())
}

/// Feeds one sample (µs, mg, mdps); returns the events it raised, and the alarm state in bits 8-9.
@_cdecl("jolt_firmware_sample")
public func sample(t: Int64, ax: Int32, ay: Int32, az: Int32, gx: Int32, gy: Int32, gz: Int32) -> UInt32 {
    let e = detectors.update(Sample(t: t, accel: Vec3(ax, ay, az), gyro: Vec3(gx, gy, gz)))
    _ = alarm.step(e, at: t, detectors: &detectors)
    return UInt32(e.rawValue) | UInt32(alarm.state.rawValue) << 8
}

/// Arms (true) or disarms (false) the alarm at `t`, µs.
@_cdecl("jolt_firmware_arm")
public func arm(_ on: Bool, t: Int64) {
    _ = alarm.command(arm: on, at: t, detectors: &detectors)
}
