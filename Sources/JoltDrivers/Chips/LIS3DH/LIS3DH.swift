/// Driver for the ST LIS3DH accelerometer, generic over the bus.
///
/// Always in high-resolution mode (12-bit output) with block data update. It owns the bus and
/// hands it back with `release()`.
public struct LIS3DH<Bus: I2CBus>: RegisterMapped {
    typealias Register = LIS3DHRegister

    /// The bus; owned by the driver.
    public internal(set) var bus: Bus
    /// The 7-bit address: 0x18 (SA0 low) or 0x19 (high).
    public let address: UInt8
    /// The configuration last applied.
    public private(set) var configuration = Configuration()

    /// What to configure.
    public struct Configuration: Equatable, Sendable {
        public var rate: LIS3DHRate = .hz100
        public var range: LIS3DHRange = .g4
        /// Whether samples go through the 32-level FIFO (stream mode).
        public var fifo = true
        /// INT1, when a board wires it: motion (interrupt 1 through the high-pass filter), and the
        /// FIFO's watermark (or, without the FIFO, each reading).
        public var interrupt: InterruptPlan?
        public init() {}

        /// FIFO_CTRL_REG: bypass, or stream mode with the watermark's FTH when INT is wired.
        public var fifoControl: UInt8 {
            guard fifo else { return LIS3DHFIFOMode.bypass.rawValue }
            return LIS3DHFIFOMode.stream.rawValue | (interrupt == nil ? 0 : LIS3DHSpec.watermarkThreshold)
        }

        /// CTRL_REG3 with INT wired: interrupt 1, and the watermark or each reading.
        public var interruptsEnabled: LIS3DHInterrupt1 {
            guard interrupt != nil else { return [] }
            return fifo ? [.ia1, .watermark] : [.ia1, .dataReady]
        }

        /// A board's settings, as near as the chip comes to them (its plug-in refuses what it
        /// cannot do before a driver is made).
        public init(_ s: SensorSettings) {
            rate = LIS3DHRate(milliHz: s.rateMilliHz) ?? .hz100
            range = LIS3DHRange(g: s.accelRangeG) ?? .g4
            fifo = s.fifo
            interrupt = s.interrupt
        }
    }

    public init(bus: Bus, address: UInt8 = LIS3DHSpec.addressLow) {
        self.bus = bus
        self.address = address
    }

    /// Gives the bus back.
    public consuming func release() -> Bus { bus }

    /// Reads WHO_AM_I and checks it is a LIS3DH.
    @discardableResult
    public mutating func identify() throws(ChipError) -> UInt8 {
        let id = try read(.WHO_AM_I)
        guard id == LIS3DHSpec.whoAmI else { throw .wrongID(found: id) }
        return id
    }

    /// Reboots the memory content (CTRL_REG5 BOOT): every register back to its power-on value.
    /// Waits for the bit to clear itself, for up to a second.
    public mutating func reboot<D: Delay>(delay: inout D) throws(ChipError) {
        try write(.CTRL_REG5, LIS3DHControl5.boot.rawValue)
        delay.delay(milliseconds: LIS3DHSpec.bootMillis)
        try waitForClear(LIS3DHControl5.boot.rawValue, in: LIS3DHRegister.CTRL_REG5.rawValue, delay: &delay) { () throws(ChipError) in
            try read(.CTRL_REG5)
        }
    }

    /// Applies `c`: power down, range and high resolution, FIFO (emptied by a pass through
    /// bypass mode), then the rate with all three axes. Checks the registers read back what was
    /// written.
    public mutating func configure(_ c: Configuration) throws(ChipError) {
        let axes = LIS3DHSpec.powerOnControl1   // Zen | Yen | Xen
        let control4 = LIS3DHControl4([.blockDataUpdate, .highResolution]).rawValue | c.range.rawValue
        let control5 = c.fifo ? LIS3DHControl5.fifoEnable.rawValue : 0
        let fifo = c.fifoControl
        let control1 = c.rate.rawValue | axes
        try write(.CTRL_REG1, axes)
        try write(.CTRL_REG4, control4)
        try write(.CTRL_REG5, control5)
        try write(.FIFO_CTRL_REG, LIS3DHFIFOMode.bypass.rawValue)
        try write(.FIFO_CTRL_REG, fifo)
        if let plan = c.interrupt {
            try write(.CTRL_REG2, LIS3DHSpec.interruptHighPass)
            try write(.CTRL_REG6, 0)   // active high
            try write(.INT1_THS, Self.thresholdCount(milliG: plan.motionMilliG, range: c.range))
            try write(.INT1_DURATION, 0)
            try write(.INT1_CFG, LIS3DHSpec.interruptAxes)
            try write(.CTRL_REG3, c.interruptsEnabled.rawValue)
        }
        try write(.CTRL_REG1, control1)
        // The high-pass filter starts from the reading of now (AN3308 §4.3).
        if c.interrupt != nil { _ = try read(.REFERENCE) }
        let expected: [(LIS3DHRegister, UInt8)] = [(.CTRL_REG1, control1), (.CTRL_REG4, control4), (.CTRL_REG5, control5), (.FIFO_CTRL_REG, fifo)]
        for (r, w) in expected {
            let got = try read(r)
            if got != w { throw .notApplied(register: r.rawValue, wrote: w, read: got) }
        }
        configuration = c
    }

    /// INT1_THS for a threshold in mg at `range`: at least one count, at most 127.
    public static func thresholdCount(milliG: Int32, range: LIS3DHRange) -> UInt8 {
        let k = range.thresholdMilliG
        return UInt8(max(1, min(127, (milliG + k / 2) / k)))
    }

    /// What raised INT1: FIFO_SRC_REG and INT1_SRC in one read (INT1_CFG between them).
    public mutating func interruptSources() throws(ChipError) -> (fifo: LIS3DHFIFOSource, ia1: Bool) {
        try withScratch16 { (p) throws(ChipError) in
            try read(.FIFO_SRC_REG, sub: LIS3DHSpec.autoIncrement, into: p, count: 3)
            return (LIS3DHFIFOSource(rawValue: p[0]), p[2] & 0x40 != 0)
        }
    }

    /// Turns self-test 0's force on or off (CTRL_REG4's ST bits, DS 8.11).
    public mutating func setSelfTest(_ on: Bool) throws(ChipError) {
        var control4 = LIS3DHControl4([.blockDataUpdate, .highResolution])
        if on { control4.insert(.selfTest0) }
        try write(.CTRL_REG4, control4.rawValue | configuration.range.rawValue)
    }

    /// The output data rate, mHz.
    public var rateMilliHz: Int32 { configuration.rate.milliHz }

    /// The sample period, µs.
    public var periodMicros: Int64 { 1_000_000_000 / Int64(configuration.rate.milliHz) }

    /// Decodes 6 data bytes (x, y, z; left-justified little-endian int16, 12 significant bits).
    public static func decode(_ b: UnsafeBufferPointer<UInt8>, at o: Int = 0, range: LIS3DHRange) -> ChipSample {
        let k = range.milliGPerDigit
        return ChipSample(
            ax: (Convert.int16LE(b[o], b[o + 1]) >> 4) * k,
            ay: (Convert.int16LE(b[o + 2], b[o + 3]) >> 4) * k,
            az: (Convert.int16LE(b[o + 4], b[o + 5]) >> 4) * k)
    }

    /// The newest sample (in FIFO mode, the oldest level): 6 bytes from OUT_X_L with the
    /// auto-increment bit, in one transaction.
    public mutating func readSample() throws(ChipError) -> ChipSample {
        let range = configuration.range
        return try withScratch16 { (p) throws(ChipError) in
            try read(.OUT_X_L, sub: LIS3DHSpec.autoIncrement, into: p, count: 6)
            return Self.decode(UnsafeBufferPointer(start: p, count: 6), range: range)
        }
    }

    /// What a FIFO read found.
    public enum FIFORead: Equatable, Sendable {
        /// `frames` samples were appended.
        case frames(Int)
        /// The FIFO was full (OVRN_FIFO): samples were dropped before these.
        case overflow(frames: Int)
    }

    /// Drains the FIFO into `out`: FIFO_SRC_REG, then the levels from OUT_X_L in as few reads as
    /// the bus allows (in FIFO mode the address rolls back from OUT_Z_H to OUT_X_L, AN3308 §3.2,
    /// so one long read returns level after level).
    public mutating func readFIFO(into out: inout [ChipSample], scratch: inout [UInt8]) throws(ChipError) -> FIFORead {
        let src = LIS3DHFIFOSource(rawValue: try read(.FIFO_SRC_REG))
        let overrun = src.contains(.overrun)
        let levels = overrun ? LIS3DHSpec.fifoDepth : Int(src.rawValue & LIS3DHFIFOSource.levelMask)
        if levels == 0 { return .frames(0) }
        let size = LIS3DHSpec.sampleSize
        try readRecords(.OUT_X_L, sub: LIS3DHSpec.autoIncrement, levels, of: size, into: &scratch)
        let range = configuration.range
        scratch.withUnsafeBufferPointer { b in
            for i in 0..<levels { out.append(Self.decode(b, at: i * size, range: range)) }
        }
        return overrun ? .overflow(frames: levels) : .frames(levels)
    }
}

extension LIS3DH: SelfTestForce {
    public mutating func setSelfTestForce(_ on: Bool) throws(ChipError) { try setSelfTest(on) }
}
