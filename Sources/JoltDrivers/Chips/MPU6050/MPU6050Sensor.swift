/// The MPU6050 (and compatible parts) as `ChipPlugin` drives it: accelerometer and gyroscope,
/// read burst by burst or through the 1024-byte FIFO.
public typealias MPU6050Sensor<Bus: I2CBus> = ChipPlugin<MPU6050<Bus>>

extension MPU6050: ChipDriver {
    public static var info: ChipInfo {
        ChipInfo(name: "mpu6050", part: "MPU6050", addresses: [MPU6050Spec.addressLow, MPU6050Spec.addressHigh],
                 addressPin: "AD0 high makes it 0x69", idRegister: MPU6050Register.WHO_AM_I.rawValue,
                 idRegisterName: MPU6050Register.WHO_AM_I.name, id: MPU6050Spec.whoAmI,
                 accelRangesG: MPU6050AccelRange.allCases.map(\.g), gyroRangesDps: MPU6050GyroRange.allCases.map(\.dps),
                 rates: MPU6050Spec.rates, fifoDepth: MPU6050Spec.fifoSize / MPU6050Spec.fifoFrameSize,
                 interrupts: [.dataReady, .fifoOverflow, .motion], interruptSetUp: [.motion, .dataReady],
                 motionStep: "\(MPU6050Spec.motionThresholdMilliGPerCount) mg", selfTest: true)
    }

    public static func part(forID id: UInt8) -> String? {
        if id == MPU6050Spec.whoAmI { return "MPU6050" }
        for c in MPU6050Spec.compatibleIDs where c.id == id { return c.part }
        return nil
    }

    public static func registerName(_ r: UInt8) -> String? { MPU6050Register(rawValue: r)?.name }

    /// A compatible part's FIFO may be half the MPU6050's.
    public var fifoReadings: Int { fifoCapacity / MPU6050Spec.fifoFrameSize }

    public mutating func drainFIFO(into out: inout [ChipSample], scratch: inout [UInt8]) throws(ChipError) -> PollStatus {
        if case .overflow = try readFIFO(into: &out, scratch: &scratch) { return .overflow }
        return .ok
    }

    /// INT_STATUS, read and so cleared: motion, a reading, the FIFO's overflow.
    public mutating func interruptsRaised() throws(ChipError) -> ChipInterrupts {
        let s = try interruptStatus()
        var c: ChipInterrupts = []
        if s.contains(.motion) { c.insert(.motion) }
        if s.contains(.dataReady) { c.insert(.dataReady) }
        if s.contains(.fifoOverflow) { c.insert(.fifoOverflow) }
        return c
    }

    /// The accelerometer's self-test (RM §4.1) at ±8 g: InvenSense's own lets the output settle
    /// for a while after each change.
    public static func selfTestSettleMillis(periodMillis: UInt32) -> UInt32 { 100 }

    /// Each axis's change must be within 14 % of its factory trim (read from the chip).
    public mutating func selfTestLimits() throws(ChipError) -> (limits: [ClosedRange<Int32>], magnitudeOnly: Bool) {
        let tol = MPU6050Spec.selfTestTolerancePercent
        let limits = try factoryTrim().map { t in
            t == 0 ? MPU6050Spec.selfTestUntrimmed : (t * (100 - tol) / 100)...(t * (100 + tol) / 100)
        }
        return (limits, false)
    }
}

extension MPU6050.Configuration: ChipConfiguration {
    /// The sample rate divider the asked rate takes (the plug-in refuses a rate it cannot make).
    var divider: UInt8 { MPU6050.divider(forMilliHz: rateMilliHz) ?? 9 }
    public var madeMilliHz: Int32 { MPU6050.rate(divider: divider) }
    public var periodMicros: Int64 { MPU6050.periodMicros(divider: divider) }
    public var rangeMilliG: Int32 { accelRange.g * 1000 }
    /// The MPU6050's FIFO has no watermark.
    public var watermark: Int { 0 }
    public var atSelfTestRange: Self {
        var c = self
        c.accelRange = MPU6050Spec.selfTestRange
        return c
    }
}
