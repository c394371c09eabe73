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
                 fifoDepth: LSM6DSOSpec.fifoWords / 2, interrupts: [.dataReady, .fifoWatermark, .fifoOverflow, .motion], selfTest: true)
    }

    public static func unsupported(_ s: SensorSettings) -> String? {
        if LSM6DSORate(milliHz: s.rateMilliHz) == nil {
            return "the LSM6DSO cannot sample at \(Hz.text(s.rateMilliHz)) Hz (its rates: \(Hz.list(LSM6DSORate.allCases.map(\.milliHz))) Hz)"
        }
        if LSM6DSOAccelRange(g: s.accelRangeG) == nil { return "the LSM6DSO has no ±\(s.accelRangeG) g range (2, 4, 8 or 16)" }
        if LSM6DSOGyroRange(dps: s.gyroRangeDps) == nil { return "the LSM6DSO has no ±\(s.gyroRangeDps) °/s range (125, 250, 500, 1000 or 2000)" }
        return nil
    }

    public static func registerName(_ r: UInt8) -> String? { LSM6DSORegister(rawValue: r)?.name }

    public init(bus: Bus, address: UInt8, settings s: SensorSettings) {
        driver = LSM6DSO(bus: bus, address: address)
        var c = LSM6DSO<Bus>.Configuration()
        c.rate = LSM6DSORate(milliHz: s.rateMilliHz) ?? .hz104
        c.accelRange = LSM6DSOAccelRange(g: s.accelRangeG) ?? .g4
        c.gyroRange = LSM6DSOGyroRange(dps: s.gyroRangeDps) ?? .dps500
        c.fifo = s.fifo
        wanted = c
    }

    public var address: UInt8 { driver.address }
    public var rateMilliHz: Int32 { wanted.rate.milliHz }
    public var periodMicros: Int64 { 1_000_000_000 / Int64(wanted.rate.milliHz) }
    public var usesFIFO: Bool { wanted.fifo }
    public var rangeMilliG: Int32 { wanted.accelRange.g * 1000 }
    public var maxPollMicros: Int64 { fifoPollMicros(depth: Self.info.fifoDepth) }

    public mutating func start(delay: inout some Delay) throws(ChipError) {
        identity = try driver.identify()
        try driver.reset(delay: &delay)
        try driver.configure(wanted)
    }

    public mutating func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus {
        if !wanted.fifo {
            out.append(try driver.readSample())
            return .ok
        }
        switch try driver.readFIFO(into: &out, scratch: &scratch) {
        case .words: return .ok
        case .overflow: return .overflow
        }
    }
}
