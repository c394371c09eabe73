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
    /// The chip's INT pin, when the board wires it to the host: what the plug-in sets it up to
    /// raise (`ChipInfo.interruptSetUp`); nil leaves every interrupt off, as a polled chip has.
    public var interrupt: InterruptPlan?

    public init(rateMilliHz: Int32 = 100_000, accelRangeG: Int32 = 4, gyroRangeDps: Int32 = 500, fifo: Bool = true, lowPassForMilliHz: Int32? = nil,
                interrupt: InterruptPlan? = nil) {
        self.rateMilliHz = rateMilliHz
        self.accelRangeG = accelRangeG
        self.gyroRangeDps = gyroRangeDps
        self.fifo = fifo
        self.lowPassForMilliHz = lowPassForMilliHz
        self.interrupt = interrupt
    }
}

/// What a board wiring the chip's INT pin asks of it. The pin is set up active high and
/// push-pull on every chip, so that one GPIO request (a rising edge, no bias) fits them all.
public struct InterruptPlan: Equatable, Sendable {
    /// Motion past this, mg (the chip's own high-passed or reference-relative acceleration, on
    /// any axis), raises INT at once. The chip rounds it to its own step.
    public var motionMilliG: Int32

    public init(motionMilliG: Int32 = InterruptPlan.defaultMotionMilliG) { self.motionMilliG = motionMilliG }

    /// Above a still chip's noise (a few mg) and a counter's hum, below a lift's first push.
    public static let defaultMotionMilliG: Int32 = 64
}

/// What a poll found.
public enum PollStatus: Equatable, Sendable {
    case ok
    /// The FIFO overflowed: readings were lost before the ones returned.
    case overflow
}

/// A chip's fixed facts, from its datasheet: how a board names it, where it answers, how it says
/// what it is, what it can measure and how, what it can raise on its interrupt pin. Declared once,
/// in the chip's plug-in; the configuration's checks, docs/config.md, the probe, the soak and the
/// tests read them from the registry.
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
    /// The accelerometer's full scales, g.
    public let accelRangesG: [Int32]
    /// The gyroscope's full scales, °/s; empty when it has none.
    public let gyroRangesDps: [Int32]
    /// The output data rates it makes.
    public let rates: ChipRates
    /// Readings its FIFO holds (whole readings, gyroscope included where there is one); 0: no FIFO.
    public let fifoDepth: Int
    /// The longest write the driver makes in one transaction, bytes, the register address
    /// included: a bus that cannot write as much cannot drive the chip.
    public let maxWriteLength: Int
    /// What it can raise on its interrupt pin.
    public let interrupts: ChipInterrupts
    /// What its plug-in sets the INT pin up to raise when a board wires it (`int`): empty when
    /// the plug-in sets up none, and such a board is refused.
    public let interruptSetUp: ChipInterrupts
    /// Whether it has a self-test (an electrostatic force on the proof mass, read back).
    public let selfTest: Bool
    /// The step its motion threshold (`int.motion_mg`) is set in, in words: "2 mg"; empty when
    /// its plug-in sets up no motion interrupt.
    public let motionStep: String

    /// Whether it measures rotation as well.
    public var hasGyro: Bool { !gyroRangesDps.isEmpty }

    public init(name: String, part: String, addresses: [UInt8], addressPin: String, idRegister: UInt8, idRegisterName: String, id: UInt8,
                accelRangesG: [Int32], gyroRangesDps: [Int32], rates: ChipRates, fifoDepth: Int, maxWriteLength: Int = 2,
                interrupts: ChipInterrupts, interruptSetUp: ChipInterrupts = [], motionStep: String = "", selfTest: Bool) {
        self.name = name
        self.part = part
        self.addresses = addresses
        self.addressPin = addressPin
        self.idRegister = idRegister
        self.idRegisterName = idRegisterName
        self.id = id
        self.accelRangesG = accelRangesG
        self.gyroRangesDps = gyroRangesDps
        self.rates = rates
        self.fifoDepth = fifoDepth
        self.maxWriteLength = maxWriteLength
        self.interrupts = interrupts
        self.interruptSetUp = interruptSetUp
        self.motionStep = motionStep
        self.selfTest = selfTest
    }
}

extension ChipInfo {
    /// A step in words from tenths of a mg: "62.5 mg", "2 mg".
    public static func milliG(deci: Int32) -> String {
        deci % 10 == 0 ? "\(deci / 10) mg" : "\(deci / 10).\(deci % 10) mg"
    }

    /// Steps that follow the range, in words: "16, 32, 62 or 186 mg at ±2 to ±16 g" from each
    /// range (g) and its step (mg), in order.
    public static func steps(_ byRange: [(g: Int32, milliG: Int32)]) -> String {
        guard let first = byRange.first, let last = byRange.last else { return "" }
        let each = byRange.map { String($0.milliG) }
        let values = each.count == 1 ? each[0] : each.dropLast().joined(separator: ", ") + " or " + each[each.count - 1]
        return values + " mg at ±\(first.g) to ±\(last.g) g"
    }
}

/// The output data rates a chip makes.
public enum ChipRates: Sendable, Equatable {
    /// These, mHz.
    case list([Int32])
    /// A base rate divided by 1 + n, for n from 0 to `maxDivider` (the MPU6050's 1 kHz / (1 + n)).
    case divided(baseMilliHz: Int32, maxDivider: Int32)

    /// The rates from `low` to `high`, mHz (for messages and docs; a divided clock's are many).
    public func within(_ low: Int32, _ high: Int32) -> [Int32] {
        switch self {
        case .list(let r): return r.filter { $0 >= low && $0 <= high }
        case .divided(let base, let maxDivider):
            var rates: [Int32] = []
            for n in 1...Int64(maxDivider) + 1 {
                let r = Int32((Int64(base) + n / 2) / n)
                if r >= low && r <= high { rates.append(r) }
            }
            return rates
        }
    }

    /// Whether the chip makes `milliHz`: one of the list, or a division of the base within 0.1 %.
    public func makes(_ milliHz: Int32) -> Bool {
        switch self {
        case .list(let r): return r.contains(milliHz)
        case .divided: return divisor(for: milliHz) != nil
        }
    }

    /// For a divided clock, the divisor (1 + n) that makes `milliHz` within 0.1 %; nil when
    /// none does, or for a list.
    public func divisor(for milliHz: Int32) -> Int64? {
        guard case .divided(let base, let maxDivider) = self, milliHz > 0 else { return nil }
        let n = (Int64(base) + Int64(milliHz) / 2) / Int64(milliHz)
        guard n >= 1 && n <= Int64(maxDivider) + 1 else { return nil }
        return abs(Int64(base) / n - Int64(milliHz)) * 1000 <= Int64(milliHz) ? n : nil
    }

    /// The rate a divisor makes, mHz (rounded).
    public func rate(divisor n: Int64) -> Int32 {
        guard case .divided(let base, _) = self else { return 0 }
        return Int32((Int64(base) + n / 2) / n)
    }

    /// What a chip that does not make `milliHz` says of its rates: the list, or for a divided
    /// clock the two rates on either side.
    public func refusal(_ milliHz: Int32) -> String {
        switch self {
        case .list: return "its rates: \(text)"
        case .divided(let base, let maxDivider):
            let n = max(1, min(Int64(maxDivider) + 1, Int64(base) / Int64(max(milliHz, 1))))
            return "its rates are \(Hz.text(base))/(1+n) Hz; nearest: \(Hz.text(rate(divisor: n))) or \(Hz.text(rate(divisor: min(n + 1, Int64(maxDivider) + 1)))) Hz"
        }
    }

    /// The rate nearest `milliHz` (a test or a tool asking for "about 100 Hz").
    public func nearest(to milliHz: Int32) -> Int32 {
        within(1_000, 10_000_000).min { abs($0 - milliHz) < abs($1 - milliHz) } ?? milliHz
    }

    /// The rates in words: "12.5, 25, 50 Hz", or "1000/(1+n) Hz, n from 0 to 255".
    public var text: String {
        switch self {
        case .list(let r): return Hz.list(r) + " Hz"
        case .divided(let base, let maxDivider): return "\(Hz.text(base))/(1+n) Hz, n from 0 to \(maxDivider)"
        }
    }
}

/// What a chip can raise on its interrupt pin.
public struct ChipInterrupts: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A new reading is ready.
    public static let dataReady = ChipInterrupts(rawValue: 1 << 0)
    /// The FIFO holds as many readings as asked (a watermark).
    public static let fifoWatermark = ChipInterrupts(rawValue: 1 << 1)
    /// The FIFO overflowed.
    public static let fifoOverflow = ChipInterrupts(rawValue: 1 << 2)
    /// Motion past a threshold (activity, wake-up).
    public static let motion = ChipInterrupts(rawValue: 1 << 3)

    /// The names, for messages: "data ready, FIFO watermark, motion".
    public var names: [String] {
        var n: [String] = []
        if contains(.dataReady) { n.append("data ready") }
        if contains(.fifoWatermark) { n.append("FIFO watermark") }
        if contains(.fifoOverflow) { n.append("FIFO overflow") }
        if contains(.motion) { n.append("motion") }
        return n
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
    /// Runs the chip's built-in self-test (its datasheet's procedure and limits), leaving the
    /// chip set up for it: `start` sets it up again to measure.
    mutating func selfTest(delay: inout some Delay) throws(ChipError) -> SelfTestResult

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
    /// Reads (and so clears) what raised the INT pin since the last read, when the settings wire
    /// it; a plug-in that sets up no interrupt returns none.
    mutating func interruptCause() throws(ChipError) -> ChipInterrupts
    /// The readings in the FIFO at which its watermark raises INT; 0 when none is set up.
    var watermark: Int { get }
}

extension Sensor {
    public static func part(forID id: UInt8) -> String? { id == info.id ? info.part : nil }

    public mutating func interruptCause() throws(ChipError) -> ChipInterrupts { [] }
    public var watermark: Int { 0 }

    /// From the chip's facts: the rate it does not make, or the range it does not have.
    public static func unsupported(_ s: SensorSettings) -> String? {
        let i = info
        if !i.rates.makes(s.rateMilliHz) { return "the \(i.part) cannot sample at \(Hz.text(s.rateMilliHz)) Hz (\(i.rates.refusal(s.rateMilliHz)))" }
        if !i.accelRangesG.contains(s.accelRangeG) { return "the \(i.part) has no ±\(s.accelRangeG) g range (\(Self.either(i.accelRangesG)))" }
        if i.hasGyro && !i.gyroRangesDps.contains(s.gyroRangeDps) { return "the \(i.part) has no ±\(s.gyroRangeDps) °/s range (\(Self.either(i.gyroRangesDps)))" }
        return nil
    }

    /// "2, 4, 8 or 16".
    static func either(_ values: [Int32]) -> String {
        var s = ""
        for (k, v) in values.enumerated() { s += (k == 0 ? "" : k == values.count - 1 ? " or " : ", ") + "\(v)" }
        return s
    }

    /// The sample period of the rate made, µs.
    public var periodMicros: Int64 { 1_000_000_000 / Int64(rateMilliHz) }

    /// The FIFO of the chip's facts drained with a quarter kept free.
    public var maxPollMicros: Int64 { fifoPollMicros(depth: Self.info.fifoDepth) }

    /// A FIFO of `depth` samples drained with a quarter kept free.
    public func fifoPollMicros(depth: Int) -> Int64 { Int64(depth) * periodMicros * 3 / 4 }
}

/// A chip's register map, its cases named as the datasheet names the registers.
public protocol DatasheetRegister: RawRepresentable where RawValue == UInt8 {}

extension DatasheetRegister {
    /// The datasheet name: the case's own (not kept in an Embedded build, which has no
    /// reflection and no messages to put it in).
    public var name: String {
        #if hasFeature(Embedded)
        return ""
        #else
        return String(describing: self)
        #endif
    }
}

/// A driver over a chip's register map: a register read or written by its datasheet name, a bus
/// error naming the register.
protocol RegisterMapped {
    associatedtype Bus: I2CBus
    associatedtype Register: DatasheetRegister
    var bus: Bus { get set }
    var address: UInt8 { get }
}

extension RegisterMapped {
    mutating func read(_ r: Register) throws(ChipError) -> UInt8 {
        do { return try bus.readRegister(address: address, r.rawValue) } catch { throw .bus(error, register: r.rawValue) }
    }

    mutating func write(_ r: Register, _ v: UInt8) throws(ChipError) {
        do { try bus.writeRegister(address: address, r.rawValue, v) } catch { throw .bus(error, register: r.rawValue) }
    }

    /// `count` bytes from `r` on, in one transaction (`sub` is or-ed into the register address:
    /// a chip's auto-increment bit).
    mutating func read(_ r: Register, sub: UInt8 = 0, into p: UnsafeMutablePointer<UInt8>, count: Int) throws(ChipError) {
        do { try bus.readRegisters(address: address, r.rawValue | sub, into: p, count: count) } catch { throw .bus(error, register: r.rawValue) }
    }

    /// `records` records of `size` bytes from `r` (a FIFO's data register, whose address the
    /// chip holds or rolls back) into `scratch`, grown as needed, in as few reads as the bus
    /// allows, whole records to a read.
    mutating func readRecords(_ r: Register, sub: UInt8 = 0, _ records: Int, of size: Int, into scratch: inout [UInt8]) throws(ChipError) {
        let perRead = max(1, min(bus.maxReadLength, 1 << 16) / size)
        if scratch.count < records * size { scratch = [UInt8](repeating: 0, count: records * size) }
        var done = 0
        while done < records {
            let n = min(perRead, records - done)
            let base = done * size
            let result: Result<Void, I2CError> = scratch.withUnsafeMutableBufferPointer { b in
                do throws(I2CError) {
                    try bus.readRegisters(address: address, r.rawValue | sub, into: b.baseAddress! + base, count: n * size)
                    return .success(())
                } catch { return .failure(error) }
            }
            if case .failure(let e) = result { throw .bus(e, register: r.rawValue) }
            done += n
        }
    }
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
