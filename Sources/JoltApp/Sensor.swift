import JoltCore
import JoltDrivers
import JoltTrace

/// A configured chip that yields readings: the one interface `jolt run`, `record` and
/// `calibrate` use, whichever chip and whichever bus.
protocol Sensor: AnyObject {
    var chip: ChipKind { get }
    var address: UInt8 { get }
    /// A short description: "MPU6050 (WHO_AM_I 0x68)".
    var identity: String { get }
    var hasGyro: Bool { get }
    /// The output data rate actually made, mHz.
    var rateMilliHz: Int32 { get }
    /// The sample period, µs.
    var periodMicros: Int64 { get }
    /// Whether readings come through the FIFO.
    var usesFIFO: Bool { get }
    /// The chip's full scale, mg (for the trace's `# range_g:`).
    var rangeMilliG: Int32 { get }
    /// Identifies, resets and configures the chip.
    func start(delay: inout some Delay) throws(ChipError)
    /// Appends the readings available now; `.overflow` when some were lost before them.
    func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus
    /// The longest time between polls that loses nothing, µs (FIFO capacity, with margin).
    var maxPollMicros: Int64 { get }
}

/// What a poll found.
enum PollStatus: Equatable {
    case ok
    /// The FIFO overflowed: readings were lost before the ones returned.
    case overflow
}

/// An MPU6050 (or compatible) on any bus.
final class MPU6050Sensor<Bus: I2CBus>: Sensor {
    var driver: MPU6050<Bus>
    let wanted: MPU6050<Bus>.Configuration
    var scratch: [UInt8] = []
    var warnedClone = false

    init(bus: Bus, address: UInt8, board: BoardProfile) throws(JoltError) {
        driver = MPU6050(bus: bus, address: address)
        var c = MPU6050<Bus>.Configuration()
        c.rateMilliHz = board.rateMilliHz
        c.accelRange = MPU6050AccelRange(g: board.accelRangeG) ?? .g4
        c.gyroRange = MPU6050GyroRange(dps: board.gyroRangeDps) ?? .dps500
        c.fifo = board.fifo
        wanted = c
        guard MPU6050<Bus>.divider(forMilliHz: board.rateMilliHz) != nil else {
            let (a, b) = MPU6050<Bus>.nearestRates(board.rateMilliHz)
            throw JoltError(.config, "\(board.file.isEmpty ? "board" : board.file): rate_hz: the MPU6050 cannot sample at \(hz(board.rateMilliHz)) Hz (its rates are 1000/(1+n) Hz; nearest: \(hz(a)) or \(hz(b)) Hz)")
        }
    }

    var chip: ChipKind { .mpu6050 }
    var address: UInt8 { driver.address }
    var identity: String {
        let id = driver.identity
        if let c = MPU6050Spec.compatibleIDs.first(where: { $0.id == id }) { return "\(c.part) (WHO_AM_I 0x\(hex(id)))" }
        return "MPU6050 (WHO_AM_I 0x\(hex(id)))"
    }
    var hasGyro: Bool { true }
    var rateMilliHz: Int32 { MPU6050<Bus>.rate(divider: MPU6050<Bus>.divider(forMilliHz: wanted.rateMilliHz)!) }
    var periodMicros: Int64 { MPU6050<Bus>.periodMicros(divider: MPU6050<Bus>.divider(forMilliHz: wanted.rateMilliHz)!) }
    var usesFIFO: Bool { wanted.fifo }
    var rangeMilliG: Int32 { wanted.accelRange.g * 1000 }
    var maxPollMicros: Int64 {
        // Frames the FIFO holds, with a quarter kept free.
        Int64(driver.fifoCapacity / MPU6050Spec.fifoFrameSize) * periodMicros * 3 / 4
    }

    func start(delay: inout some Delay) throws(ChipError) {
        let id = try driver.identify()
        if id != MPU6050Spec.whoAmI, !warnedClone, let c = MPU6050Spec.compatibleIDs.first(where: { $0.id == id }) {
            warnedClone = true
            Log.warning("the chip at 0x\(hex(address)) reads WHO_AM_I 0x\(hex(id)), not 0x68: \(c.part); using it as an MPU6050")
        }
        try driver.reset(delay: &delay)
        try driver.configure(wanted)
    }

    func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus {
        if !wanted.fifo {
            out.append(try driver.readSample())
            return .ok
        }
        switch try driver.readFIFO(into: &out, scratch: &scratch) {
        case .frames: return .ok
        case .overflow: return .overflow
        }
    }
}

/// An ADXL345 on any bus.
final class ADXL345Sensor<Bus: I2CBus>: Sensor {
    var driver: ADXL345<Bus>
    let wanted: ADXL345<Bus>.Configuration

    init(bus: Bus, address: UInt8, board: BoardProfile) throws(JoltError) {
        driver = ADXL345(bus: bus, address: address)
        guard let rate = ADXL345Rate(milliHz: board.rateMilliHz) else {
            throw JoltError(.config, "\(board.file.isEmpty ? "board" : board.file): rate_hz: the ADXL345 cannot sample at \(hz(board.rateMilliHz)) Hz (its rates: \(ADXL345Rate.allCases.map { hz($0.milliHz) }.joined(separator: ", ")) Hz)")
        }
        var c = ADXL345<Bus>.Configuration()
        c.rate = rate
        c.range = ADXL345Range(g: board.accelRangeG) ?? .g4
        c.fifo = board.fifo
        wanted = c
    }

    var chip: ChipKind { .adxl345 }
    var address: UInt8 { driver.address }
    var identity: String { "ADXL345 (DEVID 0xE5)" }
    var hasGyro: Bool { false }
    var rateMilliHz: Int32 { wanted.rate.milliHz }
    var periodMicros: Int64 { 1_000_000_000 / Int64(wanted.rate.milliHz) }
    var usesFIFO: Bool { wanted.fifo }
    var rangeMilliG: Int32 { wanted.range.g * 1000 }
    var maxPollMicros: Int64 { Int64(ADXL345Spec.fifoDepth) * periodMicros * 3 / 4 }

    func start(delay: inout some Delay) throws(ChipError) {
        try driver.identify()
        try driver.configure(wanted)
    }

    func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus {
        if !wanted.fifo {
            out.append(try driver.readSample())
            return .ok
        }
        switch try driver.readFIFO(into: &out) {
        case .frames: return .ok
        case .overflow: return .overflow
        }
    }
}

/// Two hex digits.
func hex(_ v: UInt8) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}

/// A rate in mHz as Hz text: 100, 12.5, 333.333.
func hz(_ milliHz: Int32) -> String {
    ObjectReader.clean(TraceWriter.decimal(Int64(milliHz), places: 3, trim: true))
}
