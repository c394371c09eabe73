/// The LSM6DSO as a `Sensor`: accelerometer and gyroscope at one rate, read burst by burst or
/// through the FIFO of tagged words.
public struct LSM6DSOSensor<Bus: I2CBus>: Sensor {
    public var driver: LSM6DSO<Bus>
    public let wanted: LSM6DSO<Bus>.Configuration
    public private(set) var identity: UInt8 = 0
    var scratch: [UInt8] = []

    public static var info: ChipInfo {
        ChipInfo(name: "lsm6dso", part: "LSM6DSO", addresses: [LSM6DSOSpec.addressLow, LSM6DSOSpec.addressHigh],
                 addressPin: "SA0 high makes it 0x6B", idRegister: LSM6DSORegister.WHO_AM_I.rawValue,
                 idRegisterName: LSM6DSORegister.WHO_AM_I.name, id: LSM6DSOSpec.whoAmI,
                 accelRangesG: LSM6DSOAccelRange.allCases.map(\.g).sorted(), gyroRangesDps: LSM6DSOGyroRange.allCases.map(\.dps), rates: .list(LSM6DSORate.allCases.map(\.milliHz)),
                 fifoDepth: LSM6DSOSpec.fifoWords / 2, interrupts: [.dataReady, .fifoWatermark, .fifoOverflow, .motion],
                 interruptSetUp: [.motion, .fifoWatermark, .dataReady], selfTest: true)
    }

    public static func registerName(_ r: UInt8) -> String? { LSM6DSORegister(rawValue: r)?.name }

    public init(bus: Bus, address: UInt8, settings s: SensorSettings) {
        driver = LSM6DSO(bus: bus, address: address)
        wanted = .init(s)
    }

    public var address: UInt8 { driver.address }
    public var rateMilliHz: Int32 { wanted.rate.milliHz }
    public var usesFIFO: Bool { wanted.fifo }
    public var rangeMilliG: Int32 { wanted.accelRange.g * 1000 }

    public mutating func start(delay: inout some Delay) throws(ChipError) {
        identity = try driver.identify()
        try driver.reset(delay: &delay)
        try driver.configure(wanted)
    }

    /// The accelerometer's self-test (the datasheet's procedure): at ±4 g without the FIFO,
    /// readings with the positive test force off and on; each axis must move by LA_ST.
    public mutating func selfTest(delay: inout some Delay) throws(ChipError) -> SelfTestResult {
        var c = wanted
        c.accelRange = LSM6DSOSpec.selfTestRange
        c.fifo = false
        c.interrupt = nil   // INT stays quiet through the test
        try driver.configure(c)
        let ms = UInt32(max(1000 / max(rateMilliHz / 1000, 1), 1))
        // The procedure: wait 100 ms for stable output.
        let m = try SelfTest.measure(&driver, settleMillis: 100, periodMillis: ms, delay: &delay)
        return SelfTestResult(changeMilliG: m.change, limits: Array(repeating: LSM6DSOSpec.selfTestLimits, count: 3), magnitudeOnly: true, noiseMilliG: m.noise)
    }

    /// WAKE_UP_SRC's WU_IA and FIFO_STATUS2's FIFO_WTM_IA; without the FIFO, a reading when
    /// neither (the only other source INT1 is set up for).
    public mutating func interruptCause() throws(ChipError) -> ChipInterrupts {
        let s = try driver.interruptSources()
        var c: ChipInterrupts = []
        if s.wakeUp { c.insert(.motion) }
        if wanted.fifo && s.watermark { c.insert(.fifoWatermark) }
        if !wanted.fifo && !s.wakeUp { c.insert(.dataReady) }
        return c
    }

    public var watermark: Int { wanted.watermarkWords / 2 }

    public mutating func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus {
        guard wanted.fifo else {
            out.append(try driver.readSample())
            return .ok
        }
        if case .overflow = try driver.readFIFO(into: &out, scratch: &scratch) { return .overflow }
        return .ok
    }
}
