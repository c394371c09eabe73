/// Driver for the InvenSense MPU6050 (accelerometer and gyroscope), generic over the bus.
///
/// It owns the bus (`init(bus:address:)`), and hands it back with `release()`.
public struct MPU6050<Bus: I2CBus>: RegisterMapped {
    typealias Register = MPU6050Register

    /// The bus; owned by the driver.
    public internal(set) var bus: Bus
    /// The 7-bit address: 0x68 (AD0 low) or 0x69 (AD0 high).
    public let address: UInt8
    /// The configuration last applied.
    public private(set) var configuration = Configuration()
    /// The WHO_AM_I value read by `identify()`.
    public private(set) var identity: UInt8 = 0

    /// What to configure.
    public struct Configuration: Equatable, Sendable {
        /// Output data rate, mHz; must be 1 kHz / (1 + n) for n in 0…255.
        public var rateMilliHz: Int32 = 100_000
        public var accelRange: MPU6050AccelRange = .g4
        public var gyroRange: MPU6050GyroRange = .dps500
        /// The digital low-pass filter; nil picks the widest below half the output rate.
        public var lowPass: MPU6050LowPass?
        /// Whether samples go through the FIFO.
        public var fifo = true
        /// The INT pin, when a board wires it: motion (and, without the FIFO, each reading).
        public var interrupt: InterruptPlan?
        public init() {}

        /// ACCEL_CONFIG: the range, and the motion detector's high-pass filter when INT is wired.
        public var accelConfig: UInt8 { accelRange.register | (interrupt == nil ? 0 : MPU6050Spec.motionHighPass.rawValue) }

        /// What INT_ENABLE raises: FIFO overflow (the status the FIFO read checks) or, without the
        /// FIFO, each reading when INT is wired; and motion when it is.
        public var interruptsEnabled: MPU6050Interrupt {
            var e: MPU6050Interrupt = fifo ? .fifoOverflow : []
            if interrupt != nil { e.formUnion(fifo ? .motion : [.motion, .dataReady]) }
            return e
        }

        /// A board's settings, as near as the chip comes to them (its plug-in refuses what it
        /// cannot do before a driver is made).
        public init(_ s: SensorSettings) {
            rateMilliHz = s.rateMilliHz
            accelRange = MPU6050AccelRange(g: s.accelRangeG) ?? .g4
            gyroRange = MPU6050GyroRange(dps: s.gyroRangeDps) ?? .dps500
            fifo = s.fifo
            interrupt = s.interrupt
            lowPass = s.lowPassForMilliHz.map { MPU6050LowPass.forRate(milliHz: $0) }
        }
    }

    public init(bus: Bus, address: UInt8 = MPU6050Spec.addressLow) {
        self.bus = bus
        self.address = address
    }

    /// Gives the bus back.
    public consuming func release() -> Bus { bus }

    /// The sample rate divider for a rate, if the chip can make that rate: 1 kHz / (1 + n),
    /// accepted within 0.1 %.
    public static func divider(forMilliHz rate: Int32) -> UInt8? {
        MPU6050Spec.rates.divisor(for: rate).map { UInt8($0 - 1) }
    }

    /// The rate the chip makes for a divider, mHz (rounded).
    public static func rate(divider: UInt8) -> Int32 { MPU6050Spec.rates.rate(divisor: Int64(divider) + 1) }

    /// The sample period for a divider, µs (exact: (1 + n) ms).
    public static func periodMicros(divider: UInt8) -> Int64 { (Int64(divider) + 1) * 1000 }

    /// Reads WHO_AM_I and checks it is an MPU6050 or a compatible part.
    @discardableResult
    public mutating func identify() throws(ChipError) -> UInt8 {
        let id = try read(.WHO_AM_I)
        identity = id
        guard id == MPU6050Spec.whoAmI || MPU6050Spec.compatibleIDs.contains(where: { $0.id == id }) else {
            throw .wrongID(found: id)
        }
        return id
    }

    /// Resets every register to its power-on value (DEVICE_RESET), waits for the reset to finish,
    /// and leaves the chip asleep, as after power-on.
    public mutating func reset<D: Delay>(delay: inout D) throws(ChipError) {
        try write(.PWR_MGMT_1, MPU6050Power.deviceReset.rawValue)
        delay.delay(milliseconds: MPU6050Spec.resetMillis)
        // DEVICE_RESET clears itself when the reset is done.
        try waitForClear(MPU6050Power.deviceReset.rawValue, in: MPU6050Register.PWR_MGMT_1.rawValue, delay: &delay) { () throws(ChipError) in
            try read(.PWR_MGMT_1)
        }
    }

    /// Wakes the chip and applies `c`: clock, low-pass filter, rate, ranges, FIFO. Checks the
    /// configuration registers read back what was written.
    public mutating func configure(_ c: Configuration) throws(ChipError) {
        guard let div = Self.divider(forMilliHz: c.rateMilliHz) else { throw .unsupportedRate(milliHz: c.rateMilliHz) }
        let lp = c.lowPass ?? MPU6050LowPass.forRate(milliHz: Self.rate(divider: div))
        let power = MPU6050Power.clockPLLGyroX.rawValue
        try write(.PWR_MGMT_1, power)
        try write(.CONFIG, lp.rawValue)
        try write(.SMPLRT_DIV, div)
        try write(.GYRO_CONFIG, c.gyroRange.register)
        try write(.ACCEL_CONFIG, c.accelConfig)
        try write(.FIFO_EN, 0)
        try write(.USER_CTRL, MPU6050UserControl.fifoReset.rawValue)
        if let plan = c.interrupt {
            try write(.INT_PIN_CFG, MPU6050Spec.interruptPinConfig)
            try write(.MOT_THR, Self.motionThreshold(milliG: plan.motionMilliG))
            try write(.MOT_DUR, MPU6050Spec.motionDurationMillis)
        }
        if c.fifo {
            try write(.FIFO_EN, ([.accel, .gyroX, .gyroY, .gyroZ] as MPU6050FIFOEnable).rawValue)
            try write(.INT_ENABLE, c.interruptsEnabled.rawValue)
            try write(.USER_CTRL, MPU6050UserControl.fifoEnable.rawValue)
        } else {
            try write(.INT_ENABLE, c.interruptsEnabled.rawValue)
        }
        // Read back rate divider … ACCEL_CONFIG in one burst, and PWR_MGMT_1.
        let back = try withScratch16 { (p) throws(ChipError) in
            try read(.SMPLRT_DIV, into: p, count: 4)
            return (p[0], p[1], p[2], p[3])
        }
        let expected = [(MPU6050Register.SMPLRT_DIV, div, back.0), (.CONFIG, lp.rawValue, back.1),
                        (.GYRO_CONFIG, c.gyroRange.register, back.2), (.ACCEL_CONFIG, c.accelConfig, back.3)]
        for (r, w, got) in expected where w != got & (r == .CONFIG ? 0x3F : 0xFF) {
            throw .notApplied(register: r.rawValue, wrote: w, read: got)
        }
        let p = try read(.PWR_MGMT_1)
        guard p == power else { throw .notApplied(register: MPU6050Register.PWR_MGMT_1.rawValue, wrote: power, read: p) }
        configuration = c
    }

    /// MOT_THR for a threshold in mg: 2 mg a count, at least one count.
    public static func motionThreshold(milliG: Int32) -> UInt8 {
        UInt8(clamping: max(1, (milliG + MPU6050Spec.motionThresholdMilliGPerCount / 2) / MPU6050Spec.motionThresholdMilliGPerCount))
    }

    /// Reads INT_STATUS, which clears it: what raised INT since the last read.
    public mutating func interruptStatus() throws(ChipError) -> MPU6050Interrupt {
        MPU6050Interrupt(rawValue: try read(.INT_STATUS))
    }

    /// The output data rate of the applied configuration, mHz.
    public var rateMilliHz: Int32 { Self.rate(divider: Self.divider(forMilliHz: configuration.rateMilliHz) ?? 0) }

    /// The sample period of the applied configuration, µs.
    public var periodMicros: Int64 { Self.periodMicros(divider: Self.divider(forMilliHz: configuration.rateMilliHz) ?? 0) }

    /// The newest sample, from the 14-byte burst at ACCEL_XOUT_H (one transaction).
    public mutating func readSample() throws(ChipError) -> ChipSample {
        let c = configuration
        return try withScratch16 { (p) throws(ChipError) in
            try read(.ACCEL_XOUT_H, into: p, count: 14)
            return Self.decodeBurst(UnsafeBufferPointer(start: p, count: 14), c)
        }
    }

    /// Turns the accelerometer's self-test force on (all three axes) or off, at the configured
    /// range (ACCEL_CONFIG, RM §4.5).
    public mutating func setAccelSelfTest(_ on: Bool) throws(ChipError) {
        try write(.ACCEL_CONFIG, (on ? MPU6050Spec.accelSelfTestBits : 0) | configuration.accelConfig)
    }

    /// The factory self-test trim of each axis, mg (SELF_TEST_X … _A, RM §4.1).
    public mutating func factoryTrim() throws(ChipError) -> [Int32] {
        let r = try withScratch16 { (p) throws(ChipError) in
            try read(.SELF_TEST_X, into: p, count: 4)
            return [p[0], p[1], p[2], p[3]]
        }
        let low = [(r[3] >> 4) & 3, (r[3] >> 2) & 3, r[3] & 3]
        return (0..<3).map { i in
            let aTest = Int((r[i] >> 5) << 2 | low[i])
            return aTest == 0 ? 0 : MPU6050Spec.factoryTrimMilliG[aTest - 1]
        }
    }

    /// Decodes the 14-byte data burst (accel, temperature, gyro; big-endian int16 each).
    public static func decodeBurst(_ b: UnsafeBufferPointer<UInt8>, _ c: Configuration) -> ChipSample {
        let a = c.accelRange.countsPerG, g = c.gyroRange.tenthCountsPerDPS
        return ChipSample(
            ax: Convert.scale(Convert.int16BE(b[0], b[1]), 1000, a),
            ay: Convert.scale(Convert.int16BE(b[2], b[3]), 1000, a),
            az: Convert.scale(Convert.int16BE(b[4], b[5]), 1000, a),
            gx: Convert.scale(Convert.int16BE(b[8], b[9]), 10_000, g),
            gy: Convert.scale(Convert.int16BE(b[10], b[11]), 10_000, g),
            gz: Convert.scale(Convert.int16BE(b[12], b[13]), 10_000, g))
    }

    /// Decodes one 12-byte FIFO frame (accel x, y, z, gyro x, y, z; big-endian int16 each).
    public static func decodeFrame(_ b: UnsafeBufferPointer<UInt8>, at o: Int, _ c: Configuration) -> ChipSample {
        let a = c.accelRange.countsPerG, g = c.gyroRange.tenthCountsPerDPS
        return ChipSample(
            ax: Convert.scale(Convert.int16BE(b[o], b[o + 1]), 1000, a),
            ay: Convert.scale(Convert.int16BE(b[o + 2], b[o + 3]), 1000, a),
            az: Convert.scale(Convert.int16BE(b[o + 4], b[o + 5]), 1000, a),
            gx: Convert.scale(Convert.int16BE(b[o + 6], b[o + 7]), 10_000, g),
            gy: Convert.scale(Convert.int16BE(b[o + 8], b[o + 9]), 10_000, g),
            gz: Convert.scale(Convert.int16BE(b[o + 10], b[o + 11]), 10_000, g))
    }

    /// The number of bytes waiting in the FIFO (FIFO_COUNTH/L, one transaction).
    public mutating func fifoCount() throws(ChipError) -> Int {
        try withScratch16 { (p) throws(ChipError) in
            try read(.FIFO_COUNTH, into: p, count: 2)
            return Int(p[0]) << 8 | Int(p[1])
        }
    }

    /// The FIFO's capacity for this part, bytes: 1024 on the MPU6050 and its clones, 512 on the
    /// MPU6500 family's default.
    public var fifoCapacity: Int {
        switch identity {
        case 0x70, 0x71, 0x73: return 512
        default: return MPU6050Spec.fifoSize
        }
    }

    /// What a FIFO read found.
    public enum FIFORead: Equatable, Sendable {
        /// `frames` complete samples were appended.
        case frames(Int)
        /// The FIFO had overflowed (full, or not a whole number of frames): it was reset and
        /// samples were lost.
        case overflow
    }

    /// Drains up to `limit` whole frames from the FIFO into `out`: FIFO_COUNT, then the frames
    /// from FIFO_R_W in as few reads as the bus allows. An overflowed FIFO is reset.
    public mutating func readFIFO(into out: inout [ChipSample], limit: Int = 85, scratch: inout [UInt8]) throws(ChipError) -> FIFORead {
        let count = try fifoCount()
        let frame = MPU6050Spec.fifoFrameSize
        if count >= fifoCapacity || count % frame != 0 {
            try resetFIFO()
            return .overflow
        }
        let frames = min(count / frame, limit)
        if frames == 0 { return .frames(0) }
        try readRecords(.FIFO_R_W, frames, of: frame, into: &scratch)
        let c = configuration
        scratch.withUnsafeBufferPointer { b in
            for i in 0..<frames { out.append(Self.decodeFrame(b, at: i * frame, c)) }
        }
        return .frames(frames)
    }

    /// Empties the FIFO and keeps it running.
    public mutating func resetFIFO() throws(ChipError) {
        try write(.USER_CTRL, (configuration.fifo ? MPU6050UserControl([.fifoEnable, .fifoReset]) : .fifoReset).rawValue)
    }

    /// Reads PWR_MGMT_1: after an unexpected reset it reads the power-on 0x40 (asleep).
    public mutating func powerManagement() throws(ChipError) -> UInt8 { try read(.PWR_MGMT_1) }
}

extension MPU6050: SelfTestForce {
    public mutating func setSelfTestForce(_ on: Bool) throws(ChipError) { try setAccelSelfTest(on) }
}
