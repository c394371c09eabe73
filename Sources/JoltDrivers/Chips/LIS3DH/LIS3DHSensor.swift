/// The LIS3DH as `ChipPlugin` drives it: accelerometer only, high resolution, read sample by
/// sample or through the 32-level FIFO.
public typealias LIS3DHSensor<Bus: I2CBus> = ChipPlugin<LIS3DH<Bus>>

extension LIS3DH: ChipDriver {
    public static var info: ChipInfo {
        ChipInfo(name: "lis3dh", part: "LIS3DH", addresses: [LIS3DHSpec.addressLow, LIS3DHSpec.addressHigh],
                 addressPin: "SA0 high makes it 0x19", idRegister: LIS3DHRegister.WHO_AM_I.rawValue,
                 idRegisterName: LIS3DHRegister.WHO_AM_I.name, id: LIS3DHSpec.whoAmI,
                 accelRangesG: LIS3DHRange.allCases.map(\.g), gyroRangesDps: [], rates: .list(LIS3DHRate.allCases.map(\.milliHz)),
                 fifoDepth: LIS3DHSpec.fifoDepth, interrupts: [.dataReady, .fifoWatermark, .fifoOverflow, .motion],
                 interruptSetUp: [.motion, .fifoWatermark, .dataReady],
                 motionStep: ChipInfo.steps(LIS3DHRange.allCases.map { ($0.g, $0.thresholdMilliG) }), selfTest: true)
    }

    public static func registerName(_ r: UInt8) -> String? { LIS3DHRegister(rawValue: r & ~LIS3DHSpec.autoIncrement)?.name }

    /// The LIS3DH resets by rebooting its memory content (BOOT): every register at power-on.
    public mutating func reset(delay: inout some Delay) throws(ChipError) { try reboot(delay: &delay) }

    public mutating func drainFIFO(into out: inout [ChipSample], scratch: inout [UInt8]) throws(ChipError) -> PollStatus {
        if case .overflow = try readFIFO(into: &out, scratch: &scratch) { return .overflow }
        return .ok
    }

    /// INT1_SRC's IA and FIFO_SRC_REG's WTM; a reading when IA is not set (the only other
    /// source INT1 is set up for without the FIFO).
    public mutating func interruptsRaised() throws(ChipError) -> ChipInterrupts {
        let s = try interruptSources()
        var c: ChipInterrupts = s.ia1 ? .motion : .dataReady
        if s.fifo.contains(.watermark) { c.insert(.fifoWatermark) }
        return c
    }

    /// The self-test (DS 3.2.2, AN3308 §10) at ±2 g: AN3308 waits 90 ms for stable output after
    /// a change; each axis must move by the datasheet's amount, either way.
    public static func selfTestSettleMillis(periodMillis: UInt32) -> UInt32 { 90 }

    public mutating func selfTestLimits() throws(ChipError) -> (limits: [ClosedRange<Int32>], magnitudeOnly: Bool) {
        (Array(repeating: LIS3DHSpec.selfTestLimits, count: 3), true)
    }
}

extension LIS3DH.Configuration: ChipConfiguration {
    public var madeMilliHz: Int32 { rate.milliHz }
    public var rangeMilliG: Int32 { range.g * 1000 }
    public var watermark: Int { fifo && interrupt != nil ? Int(LIS3DHSpec.watermarkThreshold) + 1 : 0 }
    public var atSelfTestRange: Self {
        var c = self
        c.range = LIS3DHSpec.selfTestRange
        return c
    }
}
