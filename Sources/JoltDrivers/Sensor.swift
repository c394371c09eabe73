/// What a board asks of a chip, in physical units; each chip maps it onto its own registers.
public struct SensorSettings: Equatable, Sendable {
    /// Output data rate, mHz.
    public var rateMilliHz: Int32 = 100_000
    /// Accelerometer full scale, g.
    public var accelRangeG: Int32 = 4
    /// Gyroscope full scale, °/s (chips with a gyro).
    public var gyroRangeDps: Int32 = 500
    /// Whether readings go through the chip's FIFO (batched reads, fewer wake-ups).
    public var fifo = true
    /// The rate the chip's low-pass filter is chosen for, mHz (the widest below half of it), when
    /// it is not the output data rate: an oversampled chip's is chosen for the rate its readings
    /// are averaged down to. A chip whose filter follows its output data rate (the ADXL345, the
    /// LIS3DH) ignores it.
    public var lowPassForMilliHz: Int32?

    public init(rateMilliHz: Int32 = 100_000, accelRangeG: Int32 = 4, gyroRangeDps: Int32 = 500, fifo: Bool = true, lowPassForMilliHz: Int32? = nil) {
        self.rateMilliHz = rateMilliHz
        self.accelRangeG = accelRangeG
        self.gyroRangeDps = gyroRangeDps
        self.fifo = fifo
        self.lowPassForMilliHz = lowPassForMilliHz
    }
}

/// What a poll found.
public enum PollStatus: Equatable, Sendable {
    case ok
    /// The FIFO overflowed: readings were lost before the ones returned.
    case overflow
}

/// A chip's fixed facts: how a board names it, where it answers, how it says what it is.
public struct ChipInfo: Sendable {
    /// The name board profiles use: "lis3dh".
    public let name: String
    /// The part as its maker writes it: "LIS3DH".
    public let part: String
    /// The addresses it can have, the default (address pin low) first.
    public let addresses: [UInt8]
    /// How the other address is chosen: "SA0 high makes it 0x19".
    public let addressPin: String
    /// The identity register and its datasheet name.
    public let idRegister: UInt8
    public let idRegisterName: String
    /// What the identity register reads on the genuine part.
    public let id: UInt8
    /// Whether it measures rotation as well.
    public let hasGyro: Bool

    public init(name: String, part: String, addresses: [UInt8], addressPin: String, idRegister: UInt8, idRegisterName: String, id: UInt8, hasGyro: Bool) {
        self.name = name
        self.part = part
        self.addresses = addresses
        self.addressPin = addressPin
        self.idRegister = idRegister
        self.idRegisterName = idRegisterName
        self.id = id
        self.hasGyro = hasGyro
    }
}

/// A configured chip that yields readings in the core's units (mg, mdps), in the chip's axes:
/// the one interface everything above the drivers uses, whichever chip and whichever bus. Each
/// chip's plug-in (its folder under `Chips/`) implements it over the chip's driver.
///
/// Modelled on Zephyr's sensor API (`sensor_sample_fetch` / `sensor_channel_get`) and Linux
/// IIO's buffered reads: settings in physical units in, converted samples out, FIFO or not.
public protocol Sensor<Bus> {
    associatedtype Bus: I2CBus

    /// The chip's fixed facts.
    static var info: ChipInfo { get }
    /// The part an identity register value names, when this plug-in drives it ("MPU6500" for
    /// an MPU6050-compatible part); nil for anything else.
    static func part(forID id: UInt8) -> String?
    /// Why the chip cannot do `settings` (its rates, its ranges), in words; nil when it can.
    static func unsupported(_ settings: SensorSettings) -> String?
    /// A register's datasheet name, for messages.
    static func registerName(_ register: UInt8) -> String?

    /// A sensor for the chip at `address` on `bus`, to be configured with `settings` (which
    /// `unsupported` has accepted).
    init(bus: Bus, address: UInt8, settings: SensorSettings)

    /// The 7-bit address.
    var address: UInt8 { get }
    /// What the identity register read at the last start.
    var identity: UInt8 { get }
    /// Identifies, resets and configures the chip.
    mutating func start(delay: inout some Delay) throws(ChipError)
    /// Appends the readings available now; `.overflow` when some were lost before them.
    mutating func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus

    /// The output data rate actually made, mHz.
    var rateMilliHz: Int32 { get }
    /// The sample period, µs.
    var periodMicros: Int64 { get }
    /// The accelerometer's full scale, mg.
    var rangeMilliG: Int32 { get }
    /// Whether readings come through the FIFO.
    var usesFIFO: Bool { get }
    /// The longest time between polls that loses nothing, µs (FIFO capacity, with margin).
    var maxPollMicros: Int64 { get }
}

extension Sensor {
    public static func part(forID id: UInt8) -> String? { id == info.id ? info.part : nil }

    /// A FIFO of `depth` samples drained with a quarter kept free.
    public func fifoPollMicros(depth: Int) -> Int64 { Int64(depth) * periodMicros * 3 / 4 }
}

/// Rates as text for messages, in integer arithmetic: 100, 12.5, 333.333 (Hz from mHz).
public enum Hz {
    /// Rates as a list for messages: "12.5, 25, 50 Hz" without the unit.
    public static func list(_ rates: [Int32]) -> String {
        var s = ""
        for r in rates { s += (s.isEmpty ? "" : ", ") + text(r) }
        return s
    }

    public static func text(_ milliHz: Int32) -> String {
        let whole = milliHz / 1000, frac = milliHz % 1000
        guard frac != 0 else { return "\(whole)" }
        var digits = "\(frac + 1000)".dropFirst()   // three digits, zero-padded
        while digits.last == "0" { digits = digits.dropLast() }
        return "\(whole).\(digits)"
    }
}
