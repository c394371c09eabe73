/// The LIS3DH as a `Sensor`: accelerometer only, high resolution, read sample by sample or
/// through the 32-level FIFO.
public struct LIS3DHSensor<Bus: I2CBus>: Sensor {
    public var driver: LIS3DH<Bus>
    public let wanted: LIS3DH<Bus>.Configuration
    public private(set) var identity: UInt8 = 0
    var scratch: [UInt8] = []

    public static var info: ChipInfo {
        ChipInfo(name: "lis3dh", part: "LIS3DH", addresses: [LIS3DHSpec.addressLow, LIS3DHSpec.addressHigh],
                 addressPin: "SA0 high makes it 0x19", idRegister: LIS3DHRegister.WHO_AM_I.rawValue,
                 idRegisterName: LIS3DHRegister.WHO_AM_I.name, id: LIS3DHSpec.whoAmI,
                 accelRangesG: LIS3DHRange.allCases.map(\.g), gyroRangesDps: [], rates: .list(LIS3DHRate.allCases.map(\.milliHz)),
                 fifoDepth: LIS3DHSpec.fifoDepth, interrupts: [.dataReady, .fifoWatermark, .fifoOverflow, .motion],
                 interruptSetUp: [.motion, .fifoWatermark, .dataReady], selfTest: true)
    }

    public static func registerName(_ r: UInt8) -> String? { LIS3DHRegister(rawValue: r & ~LIS3DHSpec.autoIncrement)?.name }

    public init(bus: Bus, address: UInt8, settings s: SensorSettings) {
        driver = LIS3DH(bus: bus, address: address)
        wanted = .init(s)
    }

    public var address: UInt8 { driver.address }
    public var rateMilliHz: Int32 { wanted.rate.milliHz }
    public var usesFIFO: Bool { wanted.fifo }
    public var rangeMilliG: Int32 { wanted.range.g * 1000 }

    public mutating func start(delay: inout some Delay) throws(ChipError) {
        identity = try driver.identify()
        try driver.reboot(delay: &delay)
        try driver.configure(wanted)
    }

    /// The self-test (DS 3.2.2, AN3308 §10): at ±2 g without the FIFO, readings with self-test
    /// 0's force off and on; each axis must move by the datasheet's amount.
    public mutating func selfTest(delay: inout some Delay) throws(ChipError) -> SelfTestResult {
        var c = wanted
        c.range = LIS3DHSpec.selfTestRange
        c.fifo = false
        c.interrupt = nil   // INT stays quiet through the test
        try driver.configure(c)
        let ms = UInt32(max(1000 / max(rateMilliHz / 1000, 1), 1))
        // AN3308: wait 90 ms for stable output after a change.
        let m = try SelfTest.measure(&driver, settleMillis: 90, periodMillis: ms, delay: &delay)
        return SelfTestResult(changeMilliG: m.change, limits: Array(repeating: LIS3DHSpec.selfTestLimits, count: 3), magnitudeOnly: true, noiseMilliG: m.noise)
    }

    /// FIFO_SRC_REG's WTM and INT1_SRC's IA; without the FIFO, a reading when neither (the only
    /// other source INT1 is set up for).
    public mutating func interruptCause() throws(ChipError) -> ChipInterrupts {
        let s = try driver.interruptSources()
        var c: ChipInterrupts = []
        if s.ia1 { c.insert(.motion) }
        if wanted.fifo && s.fifo.contains(.watermark) { c.insert(.fifoWatermark) }
        if !wanted.fifo && !s.ia1 { c.insert(.dataReady) }
        return c
    }

    public var watermark: Int { wanted.fifo && wanted.interrupt != nil ? Int(LIS3DHSpec.watermarkThreshold) + 1 : 0 }

    public mutating func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus {
        guard wanted.fifo else {
            out.append(try driver.readSample())
            return .ok
        }
        if case .overflow = try driver.readFIFO(into: &out, scratch: &scratch) { return .overflow }
        return .ok
    }
}
