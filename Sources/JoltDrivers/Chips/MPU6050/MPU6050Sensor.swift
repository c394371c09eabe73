/// The MPU6050 (and compatible parts) as a `Sensor`: accelerometer and gyroscope, read burst by
/// burst or through the 1024-byte FIFO.
public struct MPU6050Sensor<Bus: I2CBus>: Sensor {
    public var driver: MPU6050<Bus>
    public let wanted: MPU6050<Bus>.Configuration
    var scratch: [UInt8] = []

    public static var info: ChipInfo {
        ChipInfo(name: "mpu6050", part: "MPU6050", addresses: [MPU6050Spec.addressLow, MPU6050Spec.addressHigh],
                 addressPin: "AD0 high makes it 0x69", idRegister: MPU6050Register.WHO_AM_I.rawValue,
                 idRegisterName: MPU6050Register.WHO_AM_I.name, id: MPU6050Spec.whoAmI,
                 accelRangesG: MPU6050AccelRange.allCases.map(\.g), gyroRangesDps: MPU6050GyroRange.allCases.map(\.dps),
                 rates: MPU6050Spec.rates, fifoDepth: MPU6050Spec.fifoSize / MPU6050Spec.fifoFrameSize,
                 interrupts: [.dataReady, .fifoOverflow, .motion], interruptSetUp: [.motion, .dataReady], selfTest: true)
    }

    public static func part(forID id: UInt8) -> String? {
        if id == MPU6050Spec.whoAmI { return "MPU6050" }
        for c in MPU6050Spec.compatibleIDs where c.id == id { return c.part }
        return nil
    }

    public static func registerName(_ r: UInt8) -> String? { MPU6050Register(rawValue: r)?.name }

    public init(bus: Bus, address: UInt8, settings s: SensorSettings) {
        driver = MPU6050(bus: bus, address: address)
        wanted = .init(s)
    }

    public var address: UInt8 { driver.address }
    public var identity: UInt8 { driver.identity }
    var divider: UInt8 { MPU6050<Bus>.divider(forMilliHz: wanted.rateMilliHz) ?? 9 }
    public var rateMilliHz: Int32 { MPU6050<Bus>.rate(divider: divider) }
    public var periodMicros: Int64 { MPU6050<Bus>.periodMicros(divider: divider) }
    public var usesFIFO: Bool { wanted.fifo }
    public var rangeMilliG: Int32 { wanted.accelRange.g * 1000 }
    public var maxPollMicros: Int64 { fifoPollMicros(depth: driver.fifoCapacity / MPU6050Spec.fifoFrameSize) }

    public mutating func start(delay: inout some Delay) throws(ChipError) {
        try driver.identify()
        try driver.reset(delay: &delay)
        try driver.configure(wanted)
    }

    /// The accelerometer's self-test (RM §4.1): at ±8 g without the FIFO, readings with the test
    /// force off and on; each axis's change must be within 14 % of its factory trim. Leaves the
    /// chip to be started again.
    public mutating func selfTest(delay: inout some Delay) throws(ChipError) -> SelfTestResult {
        var c = wanted
        c.accelRange = MPU6050Spec.selfTestRange
        c.fifo = false
        c.interrupt = nil   // INT stays quiet through the test
        try driver.configure(c)
        let ms = UInt32(max(periodMicros / 1000, 1))
        // InvenSense's own self-test lets the output settle for a while after each change.
        let m = try SelfTest.measure(&driver, settleMillis: 100, periodMillis: ms, delay: &delay)
        let tol = MPU6050Spec.selfTestTolerancePercent
        let limits = try driver.factoryTrim().map { t in
            t == 0 ? MPU6050Spec.selfTestUntrimmed : (t * (100 - tol) / 100)...(t * (100 + tol) / 100)
        }
        return SelfTestResult(changeMilliG: m.change, limits: limits, magnitudeOnly: false, noiseMilliG: m.noise)
    }

    /// INT_STATUS, read and so cleared: motion, or (without the FIFO) a reading ready.
    public mutating func interruptCause() throws(ChipError) -> ChipInterrupts {
        let s = try driver.interruptStatus()
        var c: ChipInterrupts = []
        if s.contains(.motion) { c.insert(.motion) }
        if s.contains(.dataReady) && !wanted.fifo { c.insert(.dataReady) }
        if s.contains(.fifoOverflow) { c.insert(.fifoOverflow) }
        return c
    }

    public mutating func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus {
        guard wanted.fifo else {
            out.append(try driver.readSample())
            return .ok
        }
        if case .overflow = try driver.readFIFO(into: &out, scratch: &scratch) { return .overflow }
        return .ok
    }
}
