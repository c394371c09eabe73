/// The ADXL345 as a `Sensor`: accelerometer only, full resolution, read sample by sample or
/// through the 32-sample FIFO.
public struct ADXL345Sensor<Bus: I2CBus>: Sensor {
    public var driver: ADXL345<Bus>
    public let wanted: ADXL345<Bus>.Configuration
    public private(set) var identity: UInt8 = 0

    public static var info: ChipInfo {
        ChipInfo(name: "adxl345", part: "ADXL345", addresses: [ADXL345Spec.addressLow, ADXL345Spec.addressHigh],
                 addressPin: "ALT ADDRESS high makes it 0x1D", idRegister: ADXL345Register.DEVID.rawValue,
                 idRegisterName: ADXL345Register.DEVID.name, id: ADXL345Spec.deviceID,
                 accelRangesG: ADXL345Range.allCases.map(\.g), gyroRangesDps: [], rates: .list(ADXL345Rate.allCases.map(\.milliHz)),
                 fifoDepth: ADXL345Spec.fifoDepth, interrupts: [.dataReady, .fifoWatermark, .fifoOverflow, .motion],
                 interruptSetUp: [.motion, .fifoWatermark, .dataReady], selfTest: true)
    }

    public static func registerName(_ r: UInt8) -> String? { ADXL345Register(rawValue: r)?.name }

    public init(bus: Bus, address: UInt8, settings s: SensorSettings) {
        driver = ADXL345(bus: bus, address: address)
        wanted = .init(s)
    }

    public var address: UInt8 { driver.address }
    public var rateMilliHz: Int32 { wanted.rate.milliHz }
    public var usesFIFO: Bool { wanted.fifo }
    public var rangeMilliG: Int32 { wanted.range.g * 1000 }

    public mutating func start(delay: inout some Delay) throws(ChipError) {
        identity = try driver.identify()
        try driver.configure(wanted)
    }

    /// The self-test (DS "Self-Test"): at ±16 g without the FIFO, readings with the force off and
    /// on; the change must be within the datasheet's range on each axis (y's is negative).
    public mutating func selfTest(delay: inout some Delay) throws(ChipError) -> SelfTestResult {
        var c = wanted
        c.range = ADXL345Spec.selfTestRange
        c.fifo = false
        c.interrupt = nil   // INT stays quiet through the test
        try driver.configure(c)
        let ms = UInt32(max(1000 / max(rateMilliHz / 1000, 1), 1))
        // The datasheet: let 4 samples pass once the force is on (and before, once configured).
        let m = try SelfTest.measure(&driver, settleMillis: 4 * ms, periodMillis: ms, delay: &delay)
        return SelfTestResult(changeMilliG: m.change, limits: ADXL345Spec.selfTestLimits, magnitudeOnly: false, noiseMilliG: m.noise)
    }

    /// INT_SOURCE, read and so cleared: activity, the watermark, or (without the FIFO) a reading.
    public mutating func interruptCause() throws(ChipError) -> ChipInterrupts {
        let s = try driver.interruptSource()
        var c: ChipInterrupts = []
        if s.contains(.activity) { c.insert(.motion) }
        if wanted.fifo && s.contains(.watermark) { c.insert(.fifoWatermark) }
        if !wanted.fifo && s.contains(.dataReady) { c.insert(.dataReady) }
        return c
    }

    public var watermark: Int { wanted.fifo && wanted.interrupt != nil ? ADXL345Spec.watermark : 0 }

    public mutating func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus {
        guard wanted.fifo else {
            out.append(try driver.readSample())
            return .ok
        }
        if case .overflow = try driver.readFIFO(into: &out) { return .overflow }
        return .ok
    }
}
