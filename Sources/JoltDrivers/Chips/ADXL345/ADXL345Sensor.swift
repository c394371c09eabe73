/// The ADXL345 as `ChipPlugin` drives it: accelerometer only, full resolution, read sample by
/// sample or through the 32-sample FIFO.
public typealias ADXL345Sensor<Bus: I2CBus> = ChipPlugin<ADXL345<Bus>>

extension ADXL345: ChipDriver {
    public static var info: ChipInfo {
        ChipInfo(name: "adxl345", part: "ADXL345", addresses: [ADXL345Spec.addressLow, ADXL345Spec.addressHigh],
                 addressPin: "ALT ADDRESS high makes it 0x1D", idRegister: ADXL345Register.DEVID.rawValue,
                 idRegisterName: ADXL345Register.DEVID.name, id: ADXL345Spec.deviceID,
                 accelRangesG: ADXL345Range.allCases.map(\.g), gyroRangesDps: [], rates: .list(ADXL345Rate.allCases.map(\.milliHz)),
                 fifoDepth: ADXL345Spec.fifoDepth, interrupts: [.dataReady, .fifoWatermark, .fifoOverflow, .motion],
                 interruptSetUp: [.motion, .fifoWatermark, .dataReady],
                 motionStep: ChipInfo.milliG(deci: ADXL345Spec.thresholdDeciMilliGPerCount), selfTest: true)
    }

    public static func registerName(_ r: UInt8) -> String? { ADXL345Register(rawValue: r)?.name }

    /// The ADXL345 has no reset command: `configure` sets every register it uses.
    public mutating func reset(delay: inout some Delay) throws(ChipError) {}

    /// The ADXL345 pops one entry per read of its data registers: no raw bytes are kept.
    public mutating func drainFIFO(into out: inout [ChipSample], scratch: inout [UInt8]) throws(ChipError) -> PollStatus {
        if case .overflow = try readFIFO(into: &out) { return .overflow }
        return .ok
    }

    /// INT_SOURCE, read and so cleared: activity, the watermark, a reading.
    public mutating func interruptsRaised() throws(ChipError) -> ChipInterrupts {
        let s = try interruptSource()
        var c: ChipInterrupts = []
        if s.contains(.activity) { c.insert(.motion) }
        if s.contains(.watermark) { c.insert(.fifoWatermark) }
        if s.contains(.dataReady) { c.insert(.dataReady) }
        return c
    }

    /// The self-test (DS "Self-Test") at ±16 g: let 4 samples pass once the force is on (and
    /// before, once configured); the change must be within the datasheet's range on each axis
    /// (y's is negative).
    public static func selfTestSettleMillis(periodMillis: UInt32) -> UInt32 { 4 * periodMillis }

    public mutating func selfTestLimits() throws(ChipError) -> (limits: [ClosedRange<Int32>], magnitudeOnly: Bool) {
        (ADXL345Spec.selfTestLimits, false)
    }
}

extension ADXL345.Configuration: ChipConfiguration {
    public var madeMilliHz: Int32 { rate.milliHz }
    public var rangeMilliG: Int32 { range.g * 1000 }
    public var watermark: Int { fifo && interrupt != nil ? ADXL345Spec.watermark : 0 }
    public var atSelfTestRange: Self {
        var c = self
        c.range = ADXL345Spec.selfTestRange
        return c
    }
}
