/// A chip's driver as the one `Sensor` plug-in, `ChipPlugin`, drives it. A chip's folder holds
/// its register map, its driver (decoding, and the chip's real quirks) and its conformance here:
/// its facts, how it is identified and reset, how its FIFO is drained, what its interrupt status
/// says, and its self-test's recipe and limits. Everything the four plug-ins used to repeat
/// (starting, polling, the self-test's procedure, the settings asked and made) is the plug-in's.
public protocol ChipDriver<Bus>: SelfTestForce {
    associatedtype Bus: I2CBus
    associatedtype Configuration: ChipConfiguration

    /// The chip's fixed facts.
    static var info: ChipInfo { get }
    /// The part an identity register value names ("MPU6500" for an MPU6050-compatible part).
    static func part(forID id: UInt8) -> String?
    /// A register's datasheet name, for messages.
    static func registerName(_ register: UInt8) -> String?
    /// How long the self-test lets the output settle after each change, for readings
    /// `periodMillis` apart (the datasheet's wait).
    static func selfTestSettleMillis(periodMillis: UInt32) -> UInt32

    init(bus: Bus, address: UInt8)
    /// The 7-bit address.
    var address: UInt8 { get }
    /// Reads the identity register: what it read (`.wrongID` for a part the driver does not drive).
    mutating func identify() throws(ChipError) -> UInt8
    /// Resets the chip as its datasheet asks, before it is configured.
    mutating func reset(delay: inout some Delay) throws(ChipError)
    /// Applies `c`, checking that the chip took it.
    mutating func configure(_ c: Configuration) throws(ChipError)
    /// Drains the FIFO into `out` (`scratch` for the raw bytes, where the chip needs any):
    /// `.overflow` when readings were lost before those appended.
    mutating func drainFIFO(into out: inout [ChipSample], scratch: inout [UInt8]) throws(ChipError) -> PollStatus
    /// Reads (and so clears) the interrupt status: what it says was raised since the last read
    /// (a reading, the watermark, motion, an overflow), whichever the configuration wires to INT.
    mutating func interruptsRaised() throws(ChipError) -> ChipInterrupts
    /// Each axis's self-test limits, mg, and whether they bound the change's magnitude only
    /// (a datasheet that gives one range for either sign).
    mutating func selfTestLimits() throws(ChipError) -> (limits: [ClosedRange<Int32>], magnitudeOnly: Bool)
    /// The readings the FIFO holds on this part (a compatible part's may be smaller).
    var fifoReadings: Int { get }
}

extension ChipDriver {
    public static func part(forID id: UInt8) -> String? { id == info.id ? info.part : nil }
    public var fifoReadings: Int { Self.info.fifoDepth }
}

/// A chip's configuration as the plug-in handles it: made from a board's settings, its FIFO and
/// INT switched, and the rate, range and watermark it makes read back.
public protocol ChipConfiguration: Equatable, Sendable {
    /// A board's settings, as near as the chip comes to them (the plug-in refuses what it cannot
    /// do before a driver is made).
    init(_ settings: SensorSettings)
    var fifo: Bool { get set }
    var interrupt: InterruptPlan? { get set }
    /// The output data rate it makes, mHz, and its sample period, µs.
    var madeMilliHz: Int32 { get }
    var periodMicros: Int64 { get }
    /// The accelerometer's full scale, mg.
    var rangeMilliG: Int32 { get }
    /// The readings in the FIFO at which its watermark raises INT; 0 when none is set up.
    var watermark: Int { get }
    /// The same at the range the chip's self-test is specified at.
    var atSelfTestRange: Self { get }
}

extension ChipConfiguration {
    public var periodMicros: Int64 { 1_000_000_000 / Int64(madeMilliHz) }
}

/// The `Sensor` plug-in of every chip: its driver, and what the board asked of it.
public struct ChipPlugin<Driver: ChipDriver>: Sensor {
    public typealias Bus = Driver.Bus
    public var driver: Driver
    public let wanted: Driver.Configuration
    public private(set) var identity: UInt8 = 0
    var scratch: [UInt8] = []

    public static var info: ChipInfo { Driver.info }
    public static func part(forID id: UInt8) -> String? { Driver.part(forID: id) }
    public static func registerName(_ r: UInt8) -> String? { Driver.registerName(r) }

    public init(bus: Bus, address: UInt8, settings s: SensorSettings) {
        driver = Driver(bus: bus, address: address)
        wanted = .init(s)
    }

    public var address: UInt8 { driver.address }
    public var rateMilliHz: Int32 { wanted.madeMilliHz }
    public var periodMicros: Int64 { wanted.periodMicros }
    public var usesFIFO: Bool { wanted.fifo }
    public var rangeMilliG: Int32 { wanted.rangeMilliG }
    public var maxPollMicros: Int64 { fifoPollMicros(depth: driver.fifoReadings) }
    public var watermark: Int { wanted.watermark }

    public mutating func start(delay: inout some Delay) throws(ChipError) {
        identity = try driver.identify()
        try driver.reset(delay: &delay)
        try driver.configure(wanted)
    }

    /// The self-test every datasheet gives: at the range it is specified at, without the FIFO
    /// and with INT quiet, readings with the test force off and on; each axis's change judged
    /// against the chip's limits. Leaves the chip to be started again.
    public mutating func selfTest(delay: inout some Delay) throws(ChipError) -> SelfTestResult {
        var c = wanted.atSelfTestRange
        c.fifo = false
        c.interrupt = nil
        try driver.configure(c)
        // A reading every sample period, at most a second apart.
        let ms = UInt32(min(max(c.periodMicros / 1000, 1), 1000))
        let m = try SelfTest.measure(&driver, settleMillis: Driver.selfTestSettleMillis(periodMillis: ms), periodMillis: ms, delay: &delay)
        let (limits, magnitudeOnly) = try driver.selfTestLimits()
        return SelfTestResult(changeMilliG: m.change, limits: limits, magnitudeOnly: magnitudeOnly, noiseMilliG: m.noise)
    }

    /// What raised INT: with the FIFO, its watermark rather than each reading.
    public mutating func interruptCause() throws(ChipError) -> ChipInterrupts {
        let raised = try driver.interruptsRaised()
        return raised.subtracting(wanted.fifo ? .dataReady : .fifoWatermark)
    }

    public mutating func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus {
        guard wanted.fifo else {
            out.append(try driver.readSample())
            return .ok
        }
        return try driver.drainFIFO(into: &out, scratch: &scratch)
    }
}
