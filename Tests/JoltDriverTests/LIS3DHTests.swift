import JoltChips
import JoltCore
import JoltDrivers
import JoltSim
import Testing

// The LIS3DH's facts from its data sheet (ST DocID17530 Rev 2), declared here on their own so
// that a wrong constant in the driver cannot agree with itself.
private let WHO_AM_I: UInt8 = 0x0F, CTRL_REG1: UInt8 = 0x20, CTRL_REG4: UInt8 = 0x23, CTRL_REG5: UInt8 = 0x24
private let OUT_X_L: UInt8 = 0x28, FIFO_CTRL_REG: UInt8 = 0x2E, FIFO_SRC_REG: UInt8 = 0x2F
/// Sub-address MSB: auto-increment for multi-byte reads (DS 6.1.1).
private let AUTO_INC: UInt8 = 0x80
/// CTRL_REG1: ODR 100 Hz = 0101 in [7:4]; Zen | Yen | Xen = 0x07 (DS Table 25).
private let ODR_100HZ: UInt8 = 0x50, XYZ: UInt8 = 0x07
/// CTRL_REG4: BDU 0x80, HR 0x08, FS ±4 g = 01 in [5:4] (DS 8.11).
private let BDU: UInt8 = 0x80, HR: UInt8 = 0x08, FS_4G: UInt8 = 0x10
/// CTRL_REG5: BOOT 0x80, FIFO_EN 0x40 (DS 8.12). FIFO_CTRL_REG: stream mode 0x80 (DS Table 45).
private let BOOT: UInt8 = 0x80, FIFO_EN: UInt8 = 0x40, STREAM: UInt8 = 0x80
/// FIFO_SRC_REG: OVRN_FIFO 0x40, EMPTY 0x20, FSS [4:0] (DS 8.23).
private let OVRN: UInt8 = 0x40

private func le(_ v: Int16) -> [UInt8] { let u = UInt16(bitPattern: v); return [UInt8(u & 0xFF), UInt8(u >> 8)] }
/// A 12-bit reading as the chip puts it out: left-justified in 16 bits.
private func out12(_ x: Int16, _ y: Int16, _ z: Int16) -> [UInt8] { le(x << 4) + le(y << 4) + le(z << 4) }

@Suite("LIS3DH driver")
struct LIS3DHTests {
    static func configureSequence(address a: UInt8 = 0x18, odr: UInt8 = ODR_100HZ, fs: UInt8 = FS_4G, fifo: Bool = true) -> [MockI2C.Expect] {
        let c4 = BDU | HR | fs, c5 = fifo ? FIFO_EN : 0, fm = fifo ? STREAM : 0
        return [
            .write(a, [CTRL_REG1, XYZ]),               // power down, axes on
            .write(a, [CTRL_REG4, c4]),
            .write(a, [CTRL_REG5, c5]),
            .write(a, [FIFO_CTRL_REG, 0x00]),          // bypass: empties the FIFO
            .write(a, [FIFO_CTRL_REG, fm]),
            .write(a, [CTRL_REG1, odr | XYZ]),
            .writeRead(a, [CTRL_REG1], reply: [odr | XYZ]),
            .writeRead(a, [CTRL_REG4], reply: [c4]),
            .writeRead(a, [CTRL_REG5], reply: [c5]),
            .writeRead(a, [FIFO_CTRL_REG], reply: [fm]),
        ]
    }

    @Test("identify, reboot and configure: the exact register sequence")
    func initSequence() throws {
        let bus = MockI2C([
            .writeRead(0x18, [WHO_AM_I], reply: [0x33]),
            .write(0x18, [CTRL_REG5, BOOT]),
            .writeRead(0x18, [CTRL_REG5], reply: [BOOT]),   // still booting
            .writeRead(0x18, [CTRL_REG5], reply: [0x00]),
        ] + Self.configureSequence())
        var s = LIS3DHSensor(bus: bus, address: 0x18, settings: SensorSettings())
        var delay = CountingDelay()
        try s.start(delay: &delay)
        #expect(delay.total == 25, "5 ms boot, then 20 ms per poll")
        #expect(s.identity == 0x33 && s.rateMilliHz == 100_000 && s.periodMicros == 10_000 && s.rangeMilliG == 4000)
        bus.done()
    }

    @Test("rates and ranges: the ODR and FS codes of the data sheet", arguments: [
        (Int32(25_000), Int32(2), UInt8(0x30), UInt8(0x00)), (50_000, 8, 0x40, 0x20), (200_000, 16, 0x60, 0x30), (400_000, 4, 0x70, 0x10),
    ])
    func ratesAndRanges(rate: Int32, g: Int32, odr: UInt8, fs: UInt8) throws {
        let bus = MockI2C(Self.configureSequence(odr: odr, fs: fs, fifo: false))
        var d = LIS3DH(bus: bus)
        var c = LIS3DH<MockI2C>.Configuration()
        c.rate = try #require(LIS3DHRate(milliHz: rate))
        c.range = try #require(LIS3DHRange(g: g))
        c.fifo = false
        try d.configure(c)
        bus.done()
    }

    @Test("high resolution: 1, 2, 4 and 12 mg per digit of the 12-bit output", arguments: [
        (LIS3DHRange.g2, Int32(1)), (.g4, 2), (.g8, 4), (.g16, 12),
    ])
    func sensitivity(range: LIS3DHRange, mgPerDigit: Int32) {
        let bytes = out12(1000, -500, 2047)
        let s = bytes.withUnsafeBufferPointer { LIS3DH<MockI2C>.decode($0, range: range) }
        #expect(s == ChipSample(ax: 1000 * mgPerDigit, ay: -500 * mgPerDigit, az: 2047 * mgPerDigit))
    }

    @Test("one reading: 6 bytes from OUT_X_L with the auto-increment bit")
    func readSample() throws {
        let bus = MockI2C(Self.configureSequence(fifo: false) + [.writeRead(0x18, [OUT_X_L | AUTO_INC], reply: out12(10, -20, 500))])
        var s = LIS3DHSensor(bus: bus, address: 0x18, settings: SensorSettings(fifo: false))
        try s.driver.configure(s.wanted)
        var out: [ChipSample] = []
        #expect(try s.poll(into: &out) == .ok)
        #expect(out == [ChipSample(ax: 20, ay: -40, az: 1000)])
        bus.done()
    }

    @Test("FIFO: FIFO_SRC_REG levels, then the levels in SMBus-sized reads of whole samples; OVRN is an overflow")
    func fifo() throws {
        let three = out12(1, 2, 3) + out12(4, 5, 6) + out12(7, 8, 9)
        let bus = MockI2C(Self.configureSequence() + [
            .writeRead(0x18, [FIFO_SRC_REG], reply: [0x03]),
            .writeRead(0x18, [OUT_X_L | AUTO_INC], reply: three),
        ])
        bus.maxRead = 32   // an SMBus-only adapter: 5 samples per read at most
        var s = LIS3DHSensor(bus: bus, address: 0x18, settings: SensorSettings())
        try s.driver.configure(s.wanted)
        var out: [ChipSample] = []
        #expect(try s.poll(into: &out) == .ok)
        #expect(out.map(\.ax) == [2, 8, 14])
        bus.done()

        let full = (0..<32).flatMap { out12(Int16($0), 0, 512) }
        let bus2 = MockI2C(Self.configureSequence() + [
            .writeRead(0x18, [FIFO_SRC_REG], reply: [OVRN | 0x1F]),
        ] + stride(from: 0, to: 32, by: 5).map { i in
            .writeRead(0x18, [OUT_X_L | AUTO_INC], reply: Array(full[(i * 6)..<(min(i + 5, 32) * 6)]))
        })
        bus2.maxRead = 32
        var s2 = LIS3DHSensor(bus: bus2, address: 0x18, settings: SensorSettings())
        try s2.driver.configure(s2.wanted)
        out = []
        #expect(try s2.poll(into: &out) == .overflow)
        #expect(out.count == 32 && out.last == ChipSample(ax: 62, ay: 0, az: 1024))
        bus2.done()
    }

    @Test("errors: wrong WHO_AM_I, no acknowledge, a reboot that never ends, configuration not kept")
    func errors() {
        var d = LIS3DH(bus: MockI2C([.writeRead(0x18, [WHO_AM_I], reply: [0x44])]))
        #expect(throws: ChipError.wrongID(found: 0x44)) { try d.identify() }
        var n = LIS3DH(bus: MockI2C([.fail(0x19, [WHO_AM_I], .noAcknowledge)]), address: 0x19)
        #expect(throws: ChipError.bus(I2CError(.noAcknowledge), register: WHO_AM_I)) { try n.identify() }
        var r = LIS3DH(bus: MockI2C([.write(0x18, [CTRL_REG5, BOOT])] + Array(repeating: .writeRead(0x18, [CTRL_REG5], reply: [BOOT]), count: 51)))
        var delay = CountingDelay()
        #expect(throws: ChipError.resetTimeout(register: CTRL_REG5, value: BOOT)) { try r.reboot(delay: &delay) }
        var seq = Self.configureSequence()
        seq[6] = .writeRead(0x18, [CTRL_REG1], reply: [0x07])
        var c = LIS3DH(bus: MockI2C(Array(seq.prefix(7))))
        #expect(throws: ChipError.notApplied(register: CTRL_REG1, wrote: ODR_100HZ | XYZ, read: 0x07)) { try c.configure(.init()) }
    }

    @Test("the plug-in: its facts, the settings it refuses in its own words, and the registry line")
    func plugin() throws {
        let chip = try #require(ChipRegistry.named("lis3dh"))
        #expect(chip.info.addresses == [0x18, 0x19] && chip.info.id == 0x33 && !chip.info.hasGyro)
        #expect(chip.sensor.unsupported(SensorSettings(rateMilliHz: 800_000))?.contains("1, 10, 25, 50, 100, 200, 400, 1344 Hz") == true)
        #expect(chip.sensor.unsupported(SensorSettings(accelRangeG: 3)) != nil)
        #expect(chip.sensor.unsupported(SensorSettings(rateMilliHz: 400_000, accelRangeG: 16)) == nil)
        #expect(chip.sensor.registerName(OUT_X_L | AUTO_INC) == "OUT_X_L")
        var bus = MockI2C([.writeRead(0x18, [WHO_AM_I], reply: [0x33]), .fail(0x19, [WHO_AM_I], .noAcknowledge)])
        #expect(ChipProbe.probe(&bus, address: 0x18, for: chip) == .found(chip: "lis3dh", part: "LIS3DH", id: 0x33))
        #expect(ChipProbe.probe(&bus, address: 0x19, for: chip) == .absent)
        bus.done()
    }
}

@Suite("Simulated LIS3DH")
struct SimLIS3DHTests {
    func attached(_ samples: [Sample]) -> (SimBus, SimLIS3DH) {
        let bus = SimBus(clock: SimClock())
        let chip = SimLIS3DH(source: SampleListSource(samples))
        bus.attach(chip, at: 0x18)
        return (bus, chip)
    }

    @Test("the driver against its twin: boot, configure, FIFO levels at the rate, readings back in mg")
    func driverAgainstTwin() throws {
        let motion = (0..<200).map { Sample(t: Int64($0) * 10_000, accel: Vec3(Int32($0), -250, 1000)) }
        let (bus, chip) = attached(motion)
        #expect(!chip.isMeasuring && chip.register(.CTRL_REG1) == 0x07)
        var s = LIS3DHSensor(bus: bus, address: 0x18, settings: SensorSettings())
        var delay = SimDelay(clock: bus.clock)
        try s.start(delay: &delay)
        #expect(chip.isMeasuring)
        bus.clock.now += 200_000   // 20 samples at 100 Hz
        var out: [ChipSample] = []
        #expect(try s.poll(into: &out) == .ok)
        #expect(out.count == 20)
        #expect(out.first == ChipSample(ax: 0, ay: -250, az: 1000))
        // ±4 g at 2 mg per digit: x counts up by 1 mg a sample, so it reads within 1 mg.
        #expect(out.enumerated().allSatisfy { abs($0.element.ax - Int32($0.offset)) <= 1 && $0.element.ay == -250 && $0.element.az == 1000 })
        bus.clock.now += 400_000   // 40 more: the FIFO keeps the newest 32 and says so
        out = []
        #expect(try s.poll(into: &out) == .overflow)
        #expect(out.count == 32 && chip.fifoLevels == 0)
    }
}
