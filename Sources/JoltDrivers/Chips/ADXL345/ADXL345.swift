/// Driver for the Analog Devices ADXL345 accelerometer, generic over the bus.
///
/// Always in full-resolution mode (3.9 mg/LSB at every range). It owns the bus and hands it
/// back with `release()`.
public struct ADXL345<Bus: I2CBus>: RegisterMapped {
    typealias Register = ADXL345Register

    /// The bus; owned by the driver.
    public internal(set) var bus: Bus
    /// The 7-bit address: 0x53 (ALT ADDRESS low) or 0x1D (high).
    public let address: UInt8
    /// The configuration last applied.
    public private(set) var configuration = Configuration()

    /// What to configure.
    public struct Configuration: Equatable, Sendable {
        public var rate: ADXL345Rate = .hz100
        public var range: ADXL345Range = .g4
        /// Whether samples go through the 32-sample FIFO (stream mode).
        public var fifo = true
        /// The INT1 pin, when a board wires it: activity, and the watermark (or, without the
        /// FIFO, each reading).
        public var interrupt: InterruptPlan?
        public init() {}

        /// FIFO_CTL: bypass, or stream mode with the watermark's Samples bits.
        public var fifoControl: UInt8 {
            guard fifo else { return ADXL345FIFOMode.bypass.rawValue }
            return ADXL345FIFOMode.stream.rawValue | (interrupt == nil ? ADXL345Spec.pollingSamples : UInt8(ADXL345Spec.watermark))
        }

        /// POWER_CTL once measuring: with INT wired, activity and inactivity linked.
        public var powerControl: UInt8 { ADXL345Power.measure.rawValue | (interrupt == nil ? 0 : ADXL345Power.link.rawValue) }

        /// INT_ENABLE with INT wired: activity, and the watermark or each reading.
        public var interruptsEnabled: ADXL345Interrupt {
            guard interrupt != nil else { return [] }
            return fifo ? [.activity, .watermark] : [.activity, .dataReady]
        }

        /// A board's settings, as near as the chip comes to them (its plug-in refuses what it
        /// cannot do before a driver is made).
        public init(_ s: SensorSettings) {
            rate = ADXL345Rate(milliHz: s.rateMilliHz) ?? .hz100
            range = ADXL345Range(g: s.accelRangeG) ?? .g4
            fifo = s.fifo
            interrupt = s.interrupt
        }
    }

    public init(bus: Bus, address: UInt8 = ADXL345Spec.addressLow) {
        self.bus = bus
        self.address = address
    }

    /// Gives the bus back.
    public consuming func release() -> Bus { bus }

    /// Reads DEVID and checks it is an ADXL345.
    @discardableResult
    public mutating func identify() throws(ChipError) -> UInt8 {
        let id = try read(.DEVID)
        guard id == ADXL345Spec.deviceID else { throw .wrongID(found: id) }
        return id
    }

    /// Applies `c`: standby, rate, full resolution and range, FIFO mode, then measure. Checks the
    /// registers read back what was written.
    public mutating func configure(_ c: Configuration) throws(ChipError) {
        try write(.POWER_CTL, 0)
        try write(.BW_RATE, c.rate.rawValue)
        let format = ADXL345DataFormat.fullResolution.rawValue | c.range.rawValue
        try write(.DATA_FORMAT, format)
        try write(.INT_ENABLE, 0)
        // Leaving bypass mode empties the FIFO; stream mode keeps the newest 32 samples.
        try write(.FIFO_CTL, ADXL345FIFOMode.bypass.rawValue)
        let fifo = c.fifoControl
        try write(.FIFO_CTL, fifo)
        if let plan = c.interrupt {
            let count = Self.thresholdCount(milliG: plan.motionMilliG)
            try write(.THRESH_ACT, count)
            try write(.THRESH_INACT, count)
            try write(.TIME_INACT, ADXL345Spec.inactivitySeconds)
            try write(.ACT_INACT_CTL, ADXL345Spec.activityControl)
            try write(.INT_MAP, 0)
            try write(.INT_ENABLE, c.interruptsEnabled.rawValue)
        }
        try write(.POWER_CTL, c.powerControl)
        for (r, w) in [(ADXL345Register.BW_RATE, c.rate.rawValue), (.DATA_FORMAT, format), (.FIFO_CTL, fifo), (.POWER_CTL, c.powerControl)] {
            let got = try read(r)
            if got != w { throw .notApplied(register: r.rawValue, wrote: w, read: got) }
        }
        configuration = c
    }

    /// THRESH_ACT for a threshold in mg: 62.5 mg a count, at least one.
    public static func thresholdCount(milliG: Int32) -> UInt8 {
        let k = ADXL345Spec.thresholdDeciMilliGPerCount
        return UInt8(clamping: max(1, (milliG * 10 + k / 2) / k))
    }

    /// Reads INT_SOURCE, which clears Activity and Inactivity: what raised INT1.
    public mutating func interruptSource() throws(ChipError) -> ADXL345Interrupt {
        ADXL345Interrupt(rawValue: try read(.INT_SOURCE))
    }

    /// Turns the self-test force on or off (DATA_FORMAT's SELF_TEST bit, DS "Register 0x31").
    public mutating func setSelfTest(_ on: Bool) throws(ChipError) {
        let format = ADXL345DataFormat.fullResolution.rawValue | configuration.range.rawValue
        try write(.DATA_FORMAT, format | (on ? ADXL345DataFormat.selfTest.rawValue : 0))
    }

    /// The output data rate, mHz.
    public var rateMilliHz: Int32 { configuration.rate.milliHz }

    /// The sample period, µs.
    public var periodMicros: Int64 { 1_000_000_000 / Int64(configuration.rate.milliHz) }

    /// Decodes the 6 data bytes (x, y, z; little-endian int16 each) at full resolution.
    public static func decode(_ b: UnsafeBufferPointer<UInt8>, at o: Int = 0) -> ChipSample {
        let k = ADXL345Spec.countsPerG
        return ChipSample(
            ax: Convert.scale(Convert.int16LE(b[o], b[o + 1]), 1000, k),
            ay: Convert.scale(Convert.int16LE(b[o + 2], b[o + 3]), 1000, k),
            az: Convert.scale(Convert.int16LE(b[o + 4], b[o + 5]), 1000, k))
    }

    /// The newest sample (6-byte burst at DATAX0; in FIFO mode this pops the oldest entry).
    public mutating func readSample() throws(ChipError) -> ChipSample {
        try withScratch16 { (p) throws(ChipError) in
            try read(.DATAX0, into: p, count: 6)
            return Self.decode(UnsafeBufferPointer(start: p, count: 6))
        }
    }

    /// What a FIFO read found.
    public enum FIFORead: Equatable, Sendable {
        /// `frames` samples were appended.
        case frames(Int)
        /// The FIFO was full (32 entries): samples may have been dropped before these.
        case overflow(frames: Int)
    }

    /// Drains the FIFO into `out`: FIFO_STATUS, then one 6-byte read per entry (the ADXL345 pops
    /// one entry per read of the data registers).
    public mutating func readFIFO(into out: inout [ChipSample]) throws(ChipError) -> FIFORead {
        // ENTRIES counts up to 33 (the FIFO's 32 and the output registers); a 6-bit field read
        // wrong could say 63: never more readings than the chip can hold.
        let entries = min(Int(try read(.FIFO_STATUS) & 0x3F), ADXL345Spec.fifoDepth + 1)
        for _ in 0..<entries { out.append(try readSample()) }
        return entries >= ADXL345Spec.fifoDepth ? .overflow(frames: entries) : .frames(entries)
    }

    /// Reads POWER_CTL: after a power cycle it reads 0x00 (standby, not measuring).
    public mutating func powerControl() throws(ChipError) -> UInt8 { try read(.POWER_CTL) }
}

extension ADXL345: SelfTestForce {
    public mutating func setSelfTestForce(_ on: Bool) throws(ChipError) { try setSelfTest(on) }
}
