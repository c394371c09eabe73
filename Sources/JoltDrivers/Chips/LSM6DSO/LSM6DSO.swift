/// Driver for the ST LSM6DSO accelerometer and gyroscope, generic over the bus.
///
/// Both sensors run at one output data rate in high-performance mode, with block data update.
/// Read reading by reading (the twelve output bytes in one burst) or through the FIFO of tagged
/// words, both sensors batched at that rate. It owns the bus and hands it back with `release()`.
public struct LSM6DSO<Bus: I2CBus>: RegisterMapped {
    typealias Register = LSM6DSORegister

    /// The bus; owned by the driver.
    public internal(set) var bus: Bus
    /// The 7-bit address: 0x6A (SA0 low) or 0x6B (high).
    public let address: UInt8
    /// The configuration last applied.
    public private(set) var configuration = Configuration()
    /// The FIFO's words of the time slot being read, kept across reads: a reading is both words
    /// of one slot (TAG_CNT), and a read may end between them.
    var slot = Slot()

    /// What to configure.
    public struct Configuration: Equatable, Sendable {
        public var rate: LSM6DSORate = .hz104
        public var accelRange: LSM6DSOAccelRange = .g4
        public var gyroRange: LSM6DSOGyroRange = .dps500
        /// Whether readings go through the FIFO (continuous mode).
        public var fifo = true
        /// INT1, when a board wires it: the wake-up (the slope filter past WK_THS), and the FIFO's
        /// watermark (or, without the FIFO, each accelerometer reading).
        public var interrupt: InterruptPlan?
        public init() {}

        /// The watermark in words (0 when INT is not wired).
        public var watermarkWords: Int { interrupt != nil && fifo ? 2 * LSM6DSOSpec.watermarkReadings(rateMilliHz: rate.milliHz) : 0 }

        /// A board's settings, as near as the chip comes to them (its plug-in refuses what it
        /// cannot do before a driver is made).
        public init(_ s: SensorSettings) {
            rate = LSM6DSORate(milliHz: s.rateMilliHz) ?? .hz104
            accelRange = LSM6DSOAccelRange(g: s.accelRangeG) ?? .g4
            gyroRange = LSM6DSOGyroRange(dps: s.gyroRangeDps) ?? .dps500
            fifo = s.fifo
            interrupt = s.interrupt
        }
    }

    /// The accelerometer's and the gyroscope's words of one FIFO time slot.
    struct Slot {
        var counter: UInt8?
        var accel: (Int32, Int32, Int32)?
        var gyro: (Int32, Int32, Int32)?
    }

    public init(bus: Bus, address: UInt8 = LSM6DSOSpec.addressLow) {
        self.bus = bus
        self.address = address
    }

    /// Gives the bus back.
    public consuming func release() -> Bus { bus }

    /// Reads WHO_AM_I and checks it is an LSM6DSO.
    @discardableResult
    public mutating func identify() throws(ChipError) -> UInt8 {
        let id = try read(.WHO_AM_I)
        guard id == LSM6DSOSpec.whoAmI else { throw .wrongID(found: id) }
        return id
    }

    /// A software reset (every register to its power-on value), then a reboot of the trimming
    /// (BOOT): each bit clears itself when done, waited for up to a second.
    public mutating func reset<D: Delay>(delay: inout D) throws(ChipError) {
        for (bit, millis) in [(LSM6DSOCTRL3.SW_RESET, LSM6DSOSpec.resetMillis), (.BOOT, LSM6DSOSpec.bootMillis)] {
            try write(.CTRL3_C, LSM6DSOSpec.powerOnCTRL3 | bit.rawValue)
            delay.delay(milliseconds: millis)
            try waitForClear(bit.rawValue, in: LSM6DSORegister.CTRL3_C.rawValue, delay: &delay) { () throws(ChipError) in
                try read(.CTRL3_C)
            }
        }
        slot = Slot()
    }

    /// Applies `c`: both sensors powered down, block data update, the FIFO emptied (a pass
    /// through bypass mode) and set to batch both sensors at the rate, then both sensors on at
    /// the rate and their ranges. Checks the registers read back what was written.
    public mutating func configure(_ c: Configuration) throws(ChipError) {
        let control3 = LSM6DSOCTRL3([.BDU, .IF_INC]).rawValue
        let batch = c.fifo ? c.rate.rawValue << 4 | c.rate.rawValue : 0
        let mode = c.fifo ? LSM6DSOFIFOMode.continuous.rawValue : LSM6DSOFIFOMode.bypass.rawValue
        let accel = c.rate.rawValue << 4 | c.accelRange.rawValue << 2
        let gyro = c.rate.rawValue << 4 | c.gyroRange.bits
        try write(.CTRL1_XL, 0)
        try write(.CTRL2_G, 0)
        try write(.CTRL3_C, control3)
        try write(.FIFO_CTRL4, LSM6DSOFIFOMode.bypass.rawValue)
        try write(.FIFO_CTRL3, batch)
        try write(.FIFO_CTRL4, mode)
        if let plan = c.interrupt { try setUpInterrupt(plan, c) }
        try write(.CTRL1_XL, accel)
        try write(.CTRL2_G, gyro)
        let expected: [(LSM6DSORegister, UInt8)] = [(.CTRL1_XL, accel), (.CTRL2_G, gyro), (.CTRL3_C, control3), (.FIFO_CTRL3, batch), (.FIFO_CTRL4, mode)]
        for (r, w) in expected {
            let got = try read(r)
            if got != w { throw .notApplied(register: r.rawValue, wrote: w, read: got) }
        }
        configuration = c
        slot = Slot()
    }

    /// INT1 (CTRL3_C leaves it active high and push-pull): the watermark in FIFO_CTRL1 and 2
    /// and INT1_FIFO_TH (or INT1_DRDY_XL without the FIFO); the wake-up on the high-pass filter
    /// (CTRL8_XL's cutoff, TAP_CFG0's SLOPE_FDS), its threshold in the finer weight when it fits (FS_XL / 2⁸ a count, else
    /// FS_XL / 2⁶), WAKE_DUR 0, routed to INT1, the basic interrupts enabled.
    mutating func setUpInterrupt(_ plan: InterruptPlan, _ c: Configuration) throws(ChipError) {
        let words = c.watermarkWords
        try write(.FIFO_CTRL1, UInt8(words & 0xFF))
        try write(.FIFO_CTRL2, UInt8(words >> 8))
        try write(.INT1_CTRL, c.fifo ? LSM6DSOSpec.INT1_FIFO_TH : LSM6DSOSpec.INT1_DRDY_XL)
        let (count, fine) = Self.wakeThreshold(milliG: plan.motionMilliG, range: c.accelRange)
        try write(.CTRL8_XL, LSM6DSOSpec.wakeUpHighPass)
        try write(.TAP_CFG0, LSM6DSOSpec.SLOPE_FDS)
        try write(.WAKE_UP_THS, count)
        try write(.WAKE_UP_DUR, fine ? LSM6DSOSpec.WAKE_THS_W : 0)
        try write(.MD1_CFG, LSM6DSOSpec.INT1_WU)
        try write(.TAP_CFG2, LSM6DSOSpec.INTERRUPTS_ENABLE)
    }

    /// WK_THS for a threshold in mg: a count of FS_XL / 2⁸ when 63 of them reach it, else of
    /// FS_XL / 2⁶; at least one count, at most 63.
    public static func wakeThreshold(milliG: Int32, range: LSM6DSOAccelRange) -> (count: UInt8, fine: Bool) {
        let fine = range.g * 1000 * 10 / 256, coarse = range.g * 1000 * 10 / 64   // mg ×10 a count
        let f = (milliG * 10 + fine / 2) / fine
        if f <= 63 { return (UInt8(max(1, f)), true) }
        return (UInt8(max(1, min(63, (milliG * 10 + coarse / 2) / coarse))), false)
    }

    /// What raised INT1: WAKE_UP_SRC's WU_IA (reading it clears a latched event) and FIFO_STATUS2's
    /// FIFO_WTM_IA.
    public mutating func interruptSources() throws(ChipError) -> (wakeUp: Bool, watermark: Bool) {
        let wake = try read(.WAKE_UP_SRC)
        let status = LSM6DSOFIFOStatus2(rawValue: try read(.FIFO_STATUS2))
        return (wake & LSM6DSOSpec.WU_IA != 0, status.contains(.FIFO_WTM_IA))
    }

    /// Turns the accelerometer's positive self-test on or off (CTRL5_C's ST_XL).
    public mutating func setSelfTest(_ on: Bool) throws(ChipError) {
        try write(.CTRL5_C, on ? LSM6DSOSpec.accelSelfTestPositive : 0)
    }

    /// The output data rate, mHz.
    public var rateMilliHz: Int32 { configuration.rate.milliHz }

    /// The sample period, µs.
    public var periodMicros: Int64 { 1_000_000_000 / Int64(configuration.rate.milliHz) }

    /// Three little-endian int16 at `o`.
    static func axes(_ b: UnsafeBufferPointer<UInt8>, at o: Int) -> (Int32, Int32, Int32) {
        (Convert.int16LE(b[o], b[o + 1]), Convert.int16LE(b[o + 2], b[o + 3]), Convert.int16LE(b[o + 4], b[o + 5]))
    }

    /// A reading from raw axes, in mg and mdps.
    static func sample(accel a: (Int32, Int32, Int32), gyro g: (Int32, Int32, Int32), _ c: Configuration) -> ChipSample {
        let ka = c.accelRange.microGPerLSB, kg = c.gyroRange.microDpsPerLSB
        return ChipSample(
            ax: Convert.scale(a.0, ka, 1000), ay: Convert.scale(a.1, ka, 1000), az: Convert.scale(a.2, ka, 1000),
            gx: Convert.scale(g.0, kg, 1000), gy: Convert.scale(g.1, kg, 1000), gz: Convert.scale(g.2, kg, 1000))
    }

    /// Decodes the twelve output bytes from OUTX_L_G: the gyroscope's axes, then the
    /// accelerometer's.
    public static func decodeBurst(_ b: UnsafeBufferPointer<UInt8>, _ c: Configuration) -> ChipSample {
        sample(accel: axes(b, at: 6), gyro: axes(b, at: 0), c)
    }

    /// The newest reading: twelve bytes from OUTX_L_G in one transaction.
    public mutating func readSample() throws(ChipError) -> ChipSample {
        let c = configuration
        return try withScratch16 { (p) throws(ChipError) in
            try read(.OUTX_L_G, into: p, count: LSM6DSOSpec.burstSize)
            return Self.decodeBurst(UnsafeBufferPointer(start: p, count: LSM6DSOSpec.burstSize), c)
        }
    }

    /// What a FIFO read found.
    public enum FIFORead: Equatable, Sendable {
        /// `words` words were read.
        case words(Int)
        /// The FIFO had overrun (FIFO_OVR_IA or FIFO_OVR_LATCHED): words were lost before these.
        case overflow(words: Int)
    }

    /// Drains the FIFO into `out`: FIFO_STATUS1 and 2 in one read, then the words from
    /// FIFO_DATA_OUT_TAG, as many a transaction as the bus reads (the address rolls back from
    /// the last data byte to the tag). A reading is appended when both words of its time slot
    /// are in; an overrun drops a half-read slot, whose partner is gone. A count past the FIFO's
    /// 512 words (a corrupted read) is taken as 512.
    public mutating func readFIFO(into out: inout [ChipSample], scratch: inout [UInt8]) throws(ChipError) -> FIFORead {
        let status = try withScratch16 { (p) throws(ChipError) -> (Int, Bool) in
            try read(.FIFO_STATUS1, into: p, count: 2)
            let s2 = LSM6DSOFIFOStatus2(rawValue: p[1])
            let words = Int(p[1] & LSM6DSOFIFOStatus2.diffHighMask) << 8 | Int(p[0])
            return (words, !s2.isDisjoint(with: [.FIFO_OVR_IA, .FIFO_OVR_LATCHED]))
        }
        let (reported, overrun) = status
        let words = min(reported, LSM6DSOSpec.fifoWords)   // more than the FIFO holds is no reading
        if overrun { slot = Slot() }
        if words == 0 { return overrun ? .overflow(words: 0) : .words(0) }
        let size = LSM6DSOSpec.fifoWordSize
        try readRecords(.FIFO_DATA_OUT_TAG, words, of: size, into: &scratch)
        let c = configuration
        scratch.withUnsafeBufferPointer { b in
            for i in 0..<words { take(b, at: i * size, c, into: &out) }
        }
        return overrun ? .overflow(words: words) : .words(words)
    }

    /// One FIFO word into the slot; a whole slot out as a reading. A word of a new slot while
    /// the last lacks its partner (a word lost, which a working chip never does) drops the last:
    /// a reading is both sensors at one time or nothing, and a poll never gives more readings
    /// than half its words.
    mutating func take(_ b: UnsafeBufferPointer<UInt8>, at o: Int, _ c: Configuration, into out: inout [ChipSample]) {
        let tag = b[o]
        let counter = LSM6DSOTag.counter(tag)
        let sensor = LSM6DSOTag(rawValue: LSM6DSOTag.sensor(tag))
        guard sensor == .accelerometerNC || sensor == .gyroscopeNC else { return }
        if slot.counter != counter { slot = Slot(counter: counter) }
        let v = Self.axes(b, at: o + 1)
        if sensor == .accelerometerNC { slot.accel = v } else { slot.gyro = v }
        if let a = slot.accel, let g = slot.gyro {
            out.append(Self.sample(accel: a, gyro: g, c))
            slot = Slot()
        }
    }
}

extension LSM6DSO: SelfTestForce {
    public mutating func setSelfTestForce(_ on: Bool) throws(ChipError) { try setSelfTest(on) }
}
