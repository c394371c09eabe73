import JoltCore
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
    ///
    /// With `oversample`, below 50 Hz the chip is read faster than `settings` asks, through a
    /// low-pass filter chosen for the asked rate, and its readings are filtered down to one
    /// sample (`Oversampler`, docs/detection.md): 25 Hz is read at 100 Hz, four readings a
    /// sample. A chip that cannot make the faster rate is read at the asked one.
    public init(_ chip: Chip, bus: any I2CBus, busName: String, address: UInt8, settings: SensorSettings, oversample: Bool = false) throws(SettingsProblem) {
        if let why = chip.sensor.unsupported(settings) { throw SettingsProblem(message: why) }
        if settings.interrupt != nil && chip.info.interruptSetUp.isEmpty {
            throw SettingsProblem(message: "Jolt does not set up the \(chip.info.part)'s INT pin yet: remove \"int\" to poll it")
        }
        self.chip = chip
        self.busName = busName
        var k = oversample ? Oversampler.factor(rateMilliHz: settings.rateMilliHz) : 1
        var read = settings
        while k > 1 {
            read.rateMilliHz = settings.rateMilliHz * k
            // The chip's low-pass the widest below the output rate (not half of it): the
            // filter down takes out what would fold onto zero, and a shake at 8 Hz keeps more.
            read.lowPassForMilliHz = settings.rateMilliHz * 2
            if chip.sensor.unsupported(read) == nil { break }
            k >>= 1
        }
        if k == 1 { read = settings }
        sensor = chip.sensor.init(bus: SharedBus(bus), address: address, settings: read)
        oversampler = Oversampler(factor: k, rangeMilliG: sensor.rangeMilliG)
        readings.reserveCapacity(128)
    }

    /// Filters an oversampled chip's readings down; factor 1 otherwise.
    var oversampler: Oversampler
    var readings: [ChipSample] = []

    public var info: ChipInfo { chip.info }
    public var address: UInt8 { sensor.address }
    public var hasGyro: Bool { chip.info.hasGyro }
    /// The stream's output data rate, mHz: the chip's, or an oversampled chip's divided by the
    /// readings a sample.
    public var rateMilliHz: Int32 { (sensor.rateMilliHz + oversampling / 2) / oversampling }
    /// The stream's sample period, µs.
    public var periodMicros: Int64 { sensor.periodMicros * Int64(oversampling) }
    /// Readings a sample: 1, or 2–64 below 50 Hz when oversampling.
    public var oversampling: Int32 { oversampler.factor }
    /// The rate the chip itself runs at, mHz.
    public var chipRateMilliHz: Int32 { sensor.rateMilliHz }
    /// How often the chip makes a reading, µs: without a FIFO, how often it is read.
    public var readPeriodMicros: Int64 { sensor.periodMicros }
    public var rangeMilliG: Int32 { sensor.rangeMilliG }
    public var usesFIFO: Bool { sensor.usesFIFO }
    public var maxPollMicros: Int64 { sensor.maxPollMicros }
    /// The chip's readings in its FIFO at which the watermark raises INT; 0: none.
    public var watermark: Int { sensor.watermark }

    /// What raised INT since the last read (read from the chip, which clears it).
    public func interruptCause() throws(ChipError) -> ChipInterrupts { try sensor.interruptCause() }

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
        oversampler.clear()
        try sensor.start(delay: &delay)
    }

    /// Runs the chip's self-test, then starts it again as it was (identify, reset, configure):
    /// the test's readings are its own, never data.
    public func selfTest(delay: inout some Delay) throws(ChipError) -> SelfTestResult {
        let result: SelfTestResult
        do {
            result = try sensor.selfTest(delay: &delay)
        } catch {
            try? start(delay: &delay)
            throw error
        }
        try start(delay: &delay)
        return result
    }

    /// Appends the samples available now: the chip's readings, or, oversampled, one for each
    /// completed run of readings (after an overflow the filter starts again; readings of exact
    /// zeros, a chip not measuring, are no data and are left out of the runs).
    public func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus {
        guard oversampling > 1 else { return try sensor.poll(into: &out) }
        readings.removeAll(keepingCapacity: true)
        let status = try sensor.poll(into: &readings)
        if status == .overflow { oversampler.clear() }
        for r in readings where r != ChipSample(ax: 0, ay: 0, az: 0) {
            if let m = oversampler.add(accel: Vec3(r.ax, r.ay, r.az), gyro: Vec3(r.gx, r.gy, r.gz)) {
                out.append(ChipSample(ax: m.accel.x, ay: m.accel.y, az: m.accel.z, gx: m.gyro.x, gy: m.gyro.y, gz: m.gyro.z))
            }
        }
        return status
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
