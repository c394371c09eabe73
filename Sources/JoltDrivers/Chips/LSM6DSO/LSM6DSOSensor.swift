/// The LSM6DSO as `ChipPlugin` drives it: accelerometer and gyroscope at one rate, read burst by
/// burst or through the FIFO of tagged words.
public typealias LSM6DSOSensor<Bus: I2CBus> = ChipPlugin<LSM6DSO<Bus>>

extension LSM6DSO: ChipDriver {
    public static var info: ChipInfo {
        ChipInfo(name: "lsm6dso", part: "LSM6DSO", addresses: [LSM6DSOSpec.addressLow, LSM6DSOSpec.addressHigh],
                 addressPin: "SA0 high makes it 0x6B", idRegister: LSM6DSORegister.WHO_AM_I.rawValue,
                 idRegisterName: LSM6DSORegister.WHO_AM_I.name, id: LSM6DSOSpec.whoAmI,
                 accelRangesG: LSM6DSOAccelRange.allCases.map(\.g).sorted(), gyroRangesDps: LSM6DSOGyroRange.allCases.map(\.dps),
                 rates: .list(LSM6DSORate.allCases.map(\.milliHz)), fifoDepth: LSM6DSOSpec.fifoWords / 2,
                 interrupts: [.dataReady, .fifoWatermark, .fifoOverflow, .motion],
                 interruptSetUp: [.motion, .fifoWatermark, .dataReady],
                 motionStep: "a 256th of the range, \(ChipInfo.milliG(deci: LSM6DSOAccelRange.g4.g * 10_000 / 256)) at ±4 g", selfTest: true)
    }

    public static func registerName(_ r: UInt8) -> String? { LSM6DSORegister(rawValue: r)?.name }

    public mutating func drainFIFO(into out: inout [ChipSample], scratch: inout [UInt8]) throws(ChipError) -> PollStatus {
        if case .overflow = try readFIFO(into: &out, scratch: &scratch) { return .overflow }
        return .ok
    }

    /// WAKE_UP_SRC's WU_IA and FIFO_STATUS2's FIFO_WTM_IA; a reading when WU_IA is not set (the
    /// only other source INT1 is set up for without the FIFO).
    public mutating func interruptsRaised() throws(ChipError) -> ChipInterrupts {
        let s = try interruptSources()
        var c: ChipInterrupts = s.wakeUp ? .motion : .dataReady
        if s.watermark { c.insert(.fifoWatermark) }
        return c
    }

    /// The accelerometer's self-test (the datasheet's procedure) at ±4 g: wait 100 ms for stable
    /// output; each axis must move by LA_ST, either way.
    public static func selfTestSettleMillis(periodMillis: UInt32) -> UInt32 { 100 }

    public mutating func selfTestLimits() throws(ChipError) -> (limits: [ClosedRange<Int32>], magnitudeOnly: Bool) {
        (Array(repeating: LSM6DSOSpec.selfTestLimits, count: 3), true)
    }
}

extension LSM6DSO.Configuration: ChipConfiguration {
    public var madeMilliHz: Int32 { rate.milliHz }
    public var rangeMilliG: Int32 { accelRange.g * 1000 }
    public var watermark: Int { watermarkWords / 2 }
    public var atSelfTestRange: Self {
        var c = self
        c.accelRange = LSM6DSOSpec.selfTestRange
        return c
    }
}
