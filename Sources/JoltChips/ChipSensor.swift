import JoltDrivers

/// An opened chip, whichever it is: its plug-in's `Sensor` behind one reference type, with the
/// chip's facts for messages. What the sampling engine, `calibrate` and `probe` hold.
public final class ChipSensor {
    var sensor: any Sensor<SharedBus>
    public let chip: Chip
    /// The bus's name for messages: "/dev/i2c-1" or "the simulated bus".
    public let busName: String

    /// The chip at `address` on `bus`, to be configured with `settings`; throws the chip's own
    /// words when it cannot do them.
    public init(_ chip: Chip, bus: any I2CBus, busName: String, address: UInt8, settings: SensorSettings) throws(SettingsProblem) {
        if let why = chip.sensor.unsupported(settings) { throw SettingsProblem(message: why) }
        self.chip = chip
        self.busName = busName
        sensor = chip.sensor.init(bus: SharedBus(bus), address: address, settings: settings)
    }

    public var info: ChipInfo { chip.info }
    public var address: UInt8 { sensor.address }
    public var hasGyro: Bool { chip.info.hasGyro }
    public var rateMilliHz: Int32 { sensor.rateMilliHz }
    public var periodMicros: Int64 { sensor.periodMicros }
    public var rangeMilliG: Int32 { sensor.rangeMilliG }
    public var usesFIFO: Bool { sensor.usesFIFO }
    public var maxPollMicros: Int64 { sensor.maxPollMicros }

    /// What the identity register read at the last start (0 before).
    public var idRead: UInt8 { sensor.identity }

    /// What the chip is, as it said at the last start: "MPU6500 (WHO_AM_I 0x70)".
    public var identity: String {
        let id = sensor.identity == 0 ? chip.info.id : sensor.identity
        return "\(chip.sensor.part(forID: id) ?? chip.info.part) (\(chip.info.idRegisterName) 0x\(hex(id)))"
    }

    /// A compatible part rather than the genuine one, after a start: its name.
    public var compatiblePart: String? {
        let id = sensor.identity
        guard id != 0, id != chip.info.id else { return nil }
        return chip.sensor.part(forID: id)
    }

    /// Identifies, resets and configures the chip.
    public func start(delay: inout some Delay) throws(ChipError) {
        try sensor.start(delay: &delay)
    }

    /// Appends the readings available now.
    public func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus {
        try sensor.poll(into: &out)
    }

    /// A register's datasheet name with its address: "WHO_AM_I (0x75)".
    public func registerName(_ r: UInt8) -> String {
        "\(chip.sensor.registerName(r) ?? "register") (0x\(hex(r)))"
    }
}

/// Settings a chip cannot do, in the chip's words.
public struct SettingsProblem: Error, Sendable {
    public let message: String
}

/// Two hex digits, upper case.
public func hex(_ v: UInt8) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}
