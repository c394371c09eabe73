import JoltChips
import JoltDrivers
import Testing

// The datasheets' facts, declared here on their own so that a wrong constant in the driver
// cannot agree with itself.
// MPU6050: RM-MPU-6000A-00 rev 4.2.
private let SMPLRT_DIV: UInt8 = 0x19, CONFIG: UInt8 = 0x1A, GYRO_CONFIG: UInt8 = 0x1B, ACCEL_CONFIG: UInt8 = 0x1C
private let FIFO_EN: UInt8 = 0x23, INT_ENABLE: UInt8 = 0x38, ACCEL_XOUT_H: UInt8 = 0x3B
private let USER_CTRL: UInt8 = 0x6A, PWR_MGMT_1: UInt8 = 0x6B, FIFO_COUNTH: UInt8 = 0x72, FIFO_R_W: UInt8 = 0x74, WHO_AM_I: UInt8 = 0x75
// ADXL345: data sheet Rev. G, Table 19.
private let DEVID: UInt8 = 0x00, BW_RATE: UInt8 = 0x2C, POWER_CTL: UInt8 = 0x2D, ADXL_INT_ENABLE: UInt8 = 0x2E
private let DATA_FORMAT: UInt8 = 0x31, DATAX0: UInt8 = 0x32, FIFO_CTL: UInt8 = 0x38, FIFO_STATUS: UInt8 = 0x39

private func be(_ v: Int16) -> [UInt8] { let u = UInt16(bitPattern: v); return [UInt8(u >> 8), UInt8(u & 0xFF)] }
private func le(_ v: Int16) -> [UInt8] { let u = UInt16(bitPattern: v); return [UInt8(u & 0xFF), UInt8(u >> 8)] }

@Suite("MPU6050 driver")
struct MPU6050Tests {
    /// The configuration writes for 100 Hz (divider 9, DLPF 44 Hz = 3), ±4 g, ±500 °/s, FIFO on.
    static func configureSequence(address a: UInt8 = 0x68, divider: UInt8 = 9, dlpf: UInt8 = 3, accel: UInt8 = 0x08, gyro: UInt8 = 0x08, fifo: Bool = true) -> [MockI2C.Expect] {
        var e: [MockI2C.Expect] = [
            .write(a, [PWR_MGMT_1, 0x01]),          // wake, clock = PLL with X gyro
            .write(a, [CONFIG, dlpf]),
            .write(a, [SMPLRT_DIV, divider]),
            .write(a, [GYRO_CONFIG, gyro]),
            .write(a, [ACCEL_CONFIG, accel]),
            .write(a, [FIFO_EN, 0x00]),
            .write(a, [USER_CTRL, 0x04]),           // FIFO_RESET
        ]
        if fifo {
            e += [.write(a, [FIFO_EN, 0x78]),       // ACCEL | XG | YG | ZG
                  .write(a, [INT_ENABLE, 0x10]),    // FIFO_OFLOW_EN
                  .write(a, [USER_CTRL, 0x40])]     // FIFO_EN
        } else {
            e += [.write(a, [INT_ENABLE, 0x00])]
        }
        e += [.writeRead(a, [SMPLRT_DIV], reply: [divider, dlpf, gyro, accel]),
              .writeRead(a, [PWR_MGMT_1], reply: [0x01])]
        return e
    }

    @Test("identify, reset and configure: the exact register sequence")
    func initSequence() throws {
        let bus = MockI2C([
            .writeRead(0x68, [WHO_AM_I], reply: [0x68]),
            .write(0x68, [PWR_MGMT_1, 0x80]),
            .writeRead(0x68, [PWR_MGMT_1], reply: [0x80]),   // still resetting
            .writeRead(0x68, [PWR_MGMT_1], reply: [0x40]),   // done: power-on value, asleep
        ] + Self.configureSequence())
        var d = MPU6050(bus: bus)
        var delay = CountingDelay()
        #expect(try d.identify() == 0x68)
        try d.reset(delay: &delay)
        #expect(delay.total == 120, "100 ms after the reset, then 20 ms per poll")
        try d.configure(MPU6050<MockI2C>.Configuration())
        #expect(d.rateMilliHz == 100_000)
        #expect(d.periodMicros == 10_000)
        bus.done()
    }

    @Test("rates: 1 kHz / (1 + divider), with the filter below half the rate", arguments: [
        (1_000_000, 0, 1), (500_000, 1, 1), (200_000, 4, 2), (100_000, 9, 3), (50_000, 19, 4), (25_000, 39, 5), (12_500, 79, 6), (333_333, 2, 2),
    ] as [(Int32, UInt8, UInt8)])
    func rates(rate: Int32, divider: UInt8, dlpf: UInt8) throws {
        let bus = MockI2C(Self.configureSequence(divider: divider, dlpf: dlpf, fifo: false))
        var d = MPU6050(bus: bus)
        var c = MPU6050<MockI2C>.Configuration()
        c.rateMilliHz = rate
        c.fifo = false
        try d.configure(c)
        bus.done()
        #expect(MPU6050<MockI2C>.divider(forMilliHz: 400_000) == nil, "400 Hz is not 1000/(1+n)")
    }

    @Test("accelerometer counts to milli-g per range (RM §4.17, AFS_SEL: 16384/8192/4096/2048 LSB/g)", arguments: [
        (MPU6050AccelRange.g2, 0x00 as UInt8, 16384 as Int16, 1000 as Int32), (.g2, 0x00, -8192, -500), (.g2, 0x00, 32767, 2000),
        (.g4, 0x08, 8192, 1000), (.g4, 0x08, -32768, -4000), (.g8, 0x10, 4096, 1000), (.g8, 0x10, 1, 0),
        (.g16, 0x18, 2048, 1000), (.g16, 0x18, -32768, -16000), (.g16, 0x18, 3, 1),
    ])
    func accelScale(range: MPU6050AccelRange, register: UInt8, raw: Int16, mg: Int32) throws {
        #expect(range.register == register)
        let burst = be(raw) + be(raw) + be(raw) + be(0) + be(0) + be(0) + be(0)
        let bus = MockI2C([.writeRead(0x68, [ACCEL_XOUT_H], reply: burst)])
        var d = MPU6050(bus: bus)
        var c = MPU6050<MockI2C>.Configuration()
        c.accelRange = range
        d = try configured(d, bus, c)
        let s = try d.readSample()
        #expect(s.ax == mg && s.ay == mg && s.az == mg)
        bus.done()
    }

    @Test("gyroscope counts to milli-degrees per second per range (FS_SEL: 131/65.5/32.8/16.4 LSB per °/s)", arguments: [
        (MPU6050GyroRange.dps250, 0x00 as UInt8, 131 as Int16, 1000 as Int32), (.dps250, 0x00, -32768, -250_137),
        (.dps500, 0x08, 655, 10_000), (.dps1000, 0x10, 328, 10_000), (.dps2000, 0x18, 164, 10_000), (.dps2000, 0x18, 32767, 1_997_988),
    ])
    func gyroScale(range: MPU6050GyroRange, register: UInt8, raw: Int16, mdps: Int32) throws {
        #expect(range.register == register)
        let burst = be(0) + be(0) + be(0) + be(0x1234) + be(raw) + be(raw) + be(raw)
        let bus = MockI2C([.writeRead(0x68, [ACCEL_XOUT_H], reply: burst)])
        var c = MPU6050<MockI2C>.Configuration()
        c.gyroRange = range
        var d = try configured(MPU6050(bus: bus), bus, c)
        let s = try d.readSample()
        #expect(s.gx == mdps && s.gy == mdps && s.gz == mdps)
        bus.done()
    }

    /// A driver whose configuration is `c` (configured against a throwaway mock).
    func configured(_ d: MPU6050<MockI2C>, _ bus: MockI2C, _ c: MPU6050<MockI2C>.Configuration) throws -> MPU6050<MockI2C> {
        var d = d
        let saved = bus.expected
        bus.expected = Self.configureSequence(accel: c.accelRange.register, gyro: c.gyroRange.register)
        try d.configure(c)
        bus.expected = saved
        return d
    }

    @Test("FIFO: count, then whole frames from FIFO_R_W; SMBus-sized reads split by frames")
    func fifo() throws {
        var frames: [UInt8] = []
        for i in 0..<5 { frames += be(Int16(8192 * (i % 2))) + be(0) + be(8192) + be(655) + be(0) + be(-655) }
        let bus = MockI2C([
            .writeRead(0x68, [FIFO_COUNTH], reply: [0x00, 60 + 5]),       // 5 frames and a partial one
            .writeRead(0x68, [FIFO_R_W], reply: Array(frames[0..<24])),
            .writeRead(0x68, [FIFO_R_W], reply: Array(frames[24..<48])),
            .writeRead(0x68, [FIFO_R_W], reply: Array(frames[48..<60])),
        ])
        bus.maxRead = 32
        var d = try configured(MPU6050(bus: bus), bus, MPU6050<MockI2C>.Configuration())
        var out: [ChipSample] = []
        var scratch: [UInt8] = []
        // A partial frame means the FIFO is misaligned: overflow, reset.
        bus.expected.insert(contentsOf: [.writeRead(0x68, [FIFO_COUNTH], reply: [0x00, 61]), .write(0x68, [USER_CTRL, 0x44])], at: 0)
        #expect(try d.readFIFO(into: &out, scratch: &scratch) == .overflow)
        bus.expected[0] = .writeRead(0x68, [FIFO_COUNTH], reply: [0x00, 60])
        #expect(try d.readFIFO(into: &out, scratch: &scratch) == .frames(5))
        #expect(out.count == 5)
        #expect(out[1] == ChipSample(ax: 1000, ay: 0, az: 1000, gx: 10_000, gy: 0, gz: -10_000))
        #expect(out[0].ax == 0)
        bus.done()
    }

    @Test("FIFO overflow: a full FIFO (1024 bytes) is reset and reported")
    func fifoOverflow() throws {
        let bus = MockI2C([])
        var d = try configured(MPU6050(bus: bus), bus, MPU6050<MockI2C>.Configuration())
        bus.expected = [.writeRead(0x68, [FIFO_COUNTH], reply: [0x04, 0x00]), .write(0x68, [USER_CTRL, 0x44])]
        var out: [ChipSample] = []
        var scratch: [UInt8] = []
        #expect(try d.readFIFO(into: &out, scratch: &scratch) == .overflow)
        #expect(out.isEmpty)
        bus.done()
    }

    @Test("clone WHO_AM_I values are accepted; others are refused with the value read", arguments: [0x70, 0x72, 0x98, 0x71] as [UInt8])
    func clones(id: UInt8) throws {
        let bus = MockI2C([.writeRead(0x69, [WHO_AM_I], reply: [id])])
        var d = MPU6050(bus: bus, address: 0x69)
        #expect(try d.identify() == id)
        bus.done()
    }

    @Test("wrong chip, no acknowledge, reset that never finishes, configuration not kept")
    func errors() throws {
        var d = MPU6050(bus: MockI2C([.writeRead(0x68, [WHO_AM_I], reply: [0x12])]))
        #expect(throws: ChipError.wrongID(found: 0x12)) { try d.identify() }
        var n = MPU6050(bus: MockI2C([.fail(0x68, [WHO_AM_I], .noAcknowledge)]))
        #expect(throws: ChipError.bus(I2CError(.noAcknowledge), register: WHO_AM_I)) { try n.identify() }
        var r = MPU6050(bus: MockI2C([.write(0x68, [PWR_MGMT_1, 0x80])] + Array(repeating: .writeRead(0x68, [PWR_MGMT_1], reply: [0x80]), count: 51)))
        var delay = CountingDelay()
        #expect(throws: ChipError.resetTimeout(register: PWR_MGMT_1, value: 0x80)) { try r.reset(delay: &delay) }
        var seq = Self.configureSequence()
        seq[seq.count - 2] = .writeRead(0x68, [SMPLRT_DIV], reply: [9, 3, 0x08, 0x00])   // ACCEL_CONFIG lost
        seq.removeLast()   // and the driver stops there: PWR_MGMT_1 is not read back
        var c = MPU6050(bus: MockI2C(seq))
        #expect(throws: ChipError.notApplied(register: ACCEL_CONFIG, wrote: 0x08, read: 0x00)) { try c.configure(.init()) }
        // A bus error at any step of configuration names that register.
        for step in 0..<10 {
            var s = Self.configureSequence()
            guard case .write(let a, let b) = s[step] else { continue }
            s[step] = .fail(a, b, .bus)
            s.removeSubrange((step + 1)...)
            var e = MPU6050(bus: MockI2C(s))
            #expect(throws: ChipError.bus(I2CError(.bus), register: b[0])) { try e.configure(.init()) }
        }
    }

    @Test("probe: which chip answers where, from the registry")
    func probe() {
        let mpu = ChipRegistry.named("mpu6050")!, adxl = ChipRegistry.named("adxl345")!
        var bus = MockI2C([
            .writeRead(0x68, [WHO_AM_I], reply: [0x68]),
            .fail(0x69, [WHO_AM_I], .noAcknowledge),
            .writeRead(0x69, [WHO_AM_I], reply: [0x70]),
            .writeRead(0x53, [DEVID], reply: [0xE5]),
            .writeRead(0x1D, [DEVID], reply: [0x00]),
        ])
        #expect(ChipProbe.probe(&bus, address: 0x68, for: mpu) == .found(chip: "mpu6050", part: "MPU6050", id: 0x68))
        #expect(ChipProbe.probe(&bus, address: 0x69, for: mpu) == .absent)
        #expect(ChipProbe.probe(&bus, address: 0x69, for: mpu) == .found(chip: "mpu6050", part: "MPU6500", id: 0x70))
        #expect(ChipProbe.probe(&bus, address: 0x53, for: adxl) == .found(chip: "adxl345", part: "ADXL345", id: 0xE5))
        #expect(ChipProbe.probe(&bus, address: 0x1D, for: adxl) == .unknown(register: 0x00, id: 0x00))
        bus.done()
    }
}

@Suite("ADXL345 driver")
struct ADXL345Tests {
    static func configureSequence(rate: UInt8 = 0x0A, format: UInt8 = 0x09, fifo: UInt8 = 0x90) -> [MockI2C.Expect] {
        [
            .write(0x53, [POWER_CTL, 0x00]),       // standby
            .write(0x53, [BW_RATE, rate]),
            .write(0x53, [DATA_FORMAT, format]),   // FULL_RES | range
            .write(0x53, [ADXL_INT_ENABLE, 0x00]),
            .write(0x53, [FIFO_CTL, 0x00]),        // bypass empties the FIFO
            .write(0x53, [FIFO_CTL, fifo]),        // stream, watermark 16
            .write(0x53, [POWER_CTL, 0x08]),       // measure
            .writeRead(0x53, [BW_RATE], reply: [rate]),
            .writeRead(0x53, [DATA_FORMAT], reply: [format]),
            .writeRead(0x53, [FIFO_CTL], reply: [fifo]),
            .writeRead(0x53, [POWER_CTL], reply: [0x08]),
        ]
    }

    @Test("identify and configure: the exact register sequence", arguments: [
        (ADXL345Rate.hz12_5, 0x07 as UInt8), (.hz25, 0x08), (.hz50, 0x09), (.hz100, 0x0A), (.hz200, 0x0B), (.hz400, 0x0C), (.hz800, 0x0D),
    ])
    func configure(rate: ADXL345Rate, code: UInt8) throws {
        let bus = MockI2C([.writeRead(0x53, [DEVID], reply: [0xE5])] + Self.configureSequence(rate: code))
        var d = ADXL345(bus: bus)
        try d.identify()
        var c = ADXL345<MockI2C>.Configuration()
        c.rate = rate
        try d.configure(c)
        #expect(d.periodMicros * Int64(rate.milliHz) == 1_000_000_000)
        bus.done()
    }

    @Test("full resolution: 3.9 mg/LSB (256 LSB/g) at every range", arguments: [
        (256 as Int16, 1000 as Int32), (-256, -1000), (128, 500), (1, 4), (-1, -4), (4095, 15_996), (-4096, -16_000), (0, 0),
    ])
    func scale(raw: Int16, mg: Int32) throws {
        let bus = MockI2C([.writeRead(0x53, [DATAX0], reply: le(raw) + le(raw) + le(raw))])
        var d = ADXL345(bus: bus)
        let s = try d.readSample()
        #expect(s.ax == mg && s.ay == mg && s.az == mg && s.gx == 0)
        bus.done()
    }

    @Test("ranges: DATA_FORMAT range bits with FULL_RES", arguments: [(ADXL345Range.g2, 0x08 as UInt8), (.g4, 0x09), (.g8, 0x0A), (.g16, 0x0B)])
    func ranges(range: ADXL345Range, format: UInt8) throws {
        let bus = MockI2C(Self.configureSequence(format: format))
        var d = ADXL345(bus: bus)
        var c = ADXL345<MockI2C>.Configuration()
        c.range = range
        try d.configure(c)
        bus.done()
    }

    @Test("FIFO: FIFO_STATUS entries, then one 6-byte read per entry; 32 entries is an overflow")
    func fifo() throws {
        let bus = MockI2C([.writeRead(0x53, [FIFO_STATUS], reply: [0x83])] +   // FIFO_TRIG set, 3 entries
            (0..<3).map { i in .writeRead(0x53, [DATAX0], reply: le(Int16(i * 256)) + le(0) + le(256)) } +
            [.writeRead(0x53, [FIFO_STATUS], reply: [32])] +
            (0..<32).map { _ in .writeRead(0x53, [DATAX0], reply: le(0) + le(0) + le(256)) })
        var d = ADXL345(bus: bus)
        var out: [ChipSample] = []
        #expect(try d.readFIFO(into: &out) == .frames(3))
        #expect(out.map(\.ax) == [0, 1000, 2000])
        #expect(try d.readFIFO(into: &out) == .overflow(frames: 32))
        bus.done()
    }

    @Test("errors: wrong DEVID, no acknowledge, configuration not kept")
    func errors() {
        var d = ADXL345(bus: MockI2C([.writeRead(0x53, [DEVID], reply: [0xE6])]))
        #expect(throws: ChipError.wrongID(found: 0xE6)) { try d.identify() }
        var n = ADXL345(bus: MockI2C([.fail(0x53, [DATAX0], .timeout)]))
        #expect(throws: ChipError.bus(I2CError(.timeout), register: DATAX0)) { try n.readSample() }
        var seq = Self.configureSequence()
        seq[seq.count - 1] = .writeRead(0x53, [POWER_CTL], reply: [0x00])
        var c = ADXL345(bus: MockI2C(seq))
        #expect(throws: ChipError.notApplied(register: POWER_CTL, wrote: 0x08, read: 0x00)) { try c.configure(.init()) }
    }
}
