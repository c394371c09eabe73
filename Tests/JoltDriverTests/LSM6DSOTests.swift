import JoltChips
import JoltCore
import JoltDrivers
import JoltSim
import Testing

// The LSM6DSO's facts from its datasheet (ST DS12140), declared here on their own so that a wrong
// constant in the driver cannot agree with itself.
private let FIFO_CTRL3: UInt8 = 0x09, FIFO_CTRL4: UInt8 = 0x0A, WHO_AM_I: UInt8 = 0x0F
private let CTRL1_XL: UInt8 = 0x10, CTRL2_G: UInt8 = 0x11, CTRL3_C: UInt8 = 0x12
private let OUTX_L_G: UInt8 = 0x22, FIFO_STATUS1: UInt8 = 0x3A, FIFO_DATA_OUT_TAG: UInt8 = 0x78
/// CTRL3_C: BOOT 0x80, BDU 0x40, IF_INC 0x04 (its power-on value), SW_RESET 0x01.
private let BOOT: UInt8 = 0x80, BDU: UInt8 = 0x40, IF_INC: UInt8 = 0x04, SW_RESET: UInt8 = 0x01
/// ODR 104 Hz = 0100 in [7:4]; FS_XL ±4 g = 10 in [3:2]; FS_G ±500 °/s = 01 in [3:2].
private let ODR_104: UInt8 = 0x40, FS_XL_4G: UInt8 = 0x08, FS_G_500: UInt8 = 0x04
/// FIFO_CTRL4 FIFO_MODE: bypass 000, continuous 110.
private let BYPASS: UInt8 = 0x00, CONTINUOUS: UInt8 = 0x06
/// FIFO_STATUS2: FIFO_OVR_IA 0x40, FIFO_OVR_LATCHED 0x08; DIFF_FIFO [9:8] in bits 1-0.
private let OVR_IA: UInt8 = 0x40, OVR_LATCHED: UInt8 = 0x08
/// TAG_SENSOR: gyroscope 0x01, accelerometer 0x02, temperature 0x03; in bits 7-3, TAG_CNT in 2-1.
private func tag(_ sensor: UInt8, _ cnt: UInt8) -> UInt8 { sensor << 3 | cnt << 1 }

private func le(_ v: Int16) -> [UInt8] { let u = UInt16(bitPattern: v); return [UInt8(u & 0xFF), UInt8(u >> 8)] }
private func xyz(_ x: Int16, _ y: Int16, _ z: Int16) -> [UInt8] { le(x) + le(y) + le(z) }

@Suite("LSM6DSO driver")
struct LSM6DSOTests {
    static func configureSequence(address a: UInt8 = 0x6A, odr: UInt8 = ODR_104, fsXL: UInt8 = FS_XL_4G, fsG: UInt8 = FS_G_500, fifo: Bool = true) -> [MockI2C.Expect] {
        let c3 = BDU | IF_INC, batch = fifo ? odr | odr >> 4 : 0, mode = fifo ? CONTINUOUS : BYPASS
        return [
            .write(a, [CTRL1_XL, 0x00]),            // both sensors powered down
            .write(a, [CTRL2_G, 0x00]),
            .write(a, [CTRL3_C, c3]),
            .write(a, [FIFO_CTRL4, BYPASS]),        // empties the FIFO
            .write(a, [FIFO_CTRL3, batch]),         // BDR_GY [7:4], BDR_XL [3:0]
            .write(a, [FIFO_CTRL4, mode]),
            .write(a, [CTRL1_XL, odr | fsXL]),
            .write(a, [CTRL2_G, odr | fsG]),
            .writeRead(a, [CTRL1_XL], reply: [odr | fsXL]),
            .writeRead(a, [CTRL2_G], reply: [odr | fsG]),
            .writeRead(a, [CTRL3_C], reply: [c3]),
            .writeRead(a, [FIFO_CTRL3], reply: [batch]),
            .writeRead(a, [FIFO_CTRL4], reply: [mode]),
        ]
    }

    @Test("identify, software reset, reboot and configure: the exact register sequence")
    func initSequence() throws {
        let bus = MockI2C([
            .writeRead(0x6A, [WHO_AM_I], reply: [0x6C]),
            .write(0x6A, [CTRL3_C, IF_INC | SW_RESET]),
            .writeRead(0x6A, [CTRL3_C], reply: [IF_INC]),
            .write(0x6A, [CTRL3_C, IF_INC | BOOT]),
            .writeRead(0x6A, [CTRL3_C], reply: [IF_INC | BOOT]),   // still rebooting
            .writeRead(0x6A, [CTRL3_C], reply: [IF_INC]),
        ] + Self.configureSequence())
        var s = LSM6DSOSensor(bus: bus, address: 0x6A, settings: SensorSettings(rateMilliHz: 104_000))
        var delay = CountingDelay()
        try s.start(delay: &delay)
        #expect(delay.total == 1 + 10 + 20, "1 ms reset, 10 ms boot, then 20 ms per poll")
        #expect(s.identity == 0x6C && s.rateMilliHz == 104_000 && s.periodMicros == 9615 && s.rangeMilliG == 4000)
        bus.done()
    }

    @Test("rates and ranges: the ODR and FS codes of the datasheet (FS_XL is not in order of range)", arguments: [
        (Int32(12_500), Int32(2), Int32(125), UInt8(0x10), UInt8(0x00), UInt8(0x02)),
        (26_000, 16, 250, 0x20, 0x04, 0x00), (52_000, 8, 1000, 0x30, 0x0C, 0x08), (416_000, 4, 2000, 0x60, 0x08, 0x0C),
        (833_000, 16, 500, 0x70, 0x04, 0x04),
    ])
    func ratesAndRanges(rate: Int32, g: Int32, dps: Int32, odr: UInt8, fsXL: UInt8, fsG: UInt8) throws {
        let bus = MockI2C(Self.configureSequence(odr: odr, fsXL: fsXL, fsG: fsG, fifo: false))
        var d = LSM6DSO(bus: bus, address: 0x6A)
        var c = LSM6DSO<MockI2C>.Configuration()
        c.rate = try #require(LSM6DSORate(milliHz: rate))
        c.accelRange = try #require(LSM6DSOAccelRange(g: g))
        c.gyroRange = try #require(LSM6DSOGyroRange(dps: dps))
        c.fifo = false
        try d.configure(c)
        bus.done()
    }

    @Test("sensitivity: 0.061 mg/LSB at ±2 g doubling with the range; 4.375 mdps/LSB at ±125 °/s doubling likewise", arguments: [
        (LSM6DSOAccelRange.g2, LSM6DSOGyroRange.dps125, Int64(61), Int64(4375)), (.g4, .dps250, 122, 8750), (.g8, .dps1000, 244, 35_000),
        (.g16, .dps2000, 488, 70_000),
    ])
    func sensitivity(accel: LSM6DSOAccelRange, gyro: LSM6DSOGyroRange, microG: Int64, microDps: Int64) {
        var c = LSM6DSO<MockI2C>.Configuration()
        c.accelRange = accel
        c.gyroRange = gyro
        let bytes = xyz(1000, -2000, 16393) + xyz(8192, 0, -16384)   // gyroscope, then accelerometer
        let s = bytes.withUnsafeBufferPointer { LSM6DSO<MockI2C>.decodeBurst($0, c) }
        func mg(_ raw: Int64, _ k: Int64) -> Int32 { Int32(((raw * k) + (raw >= 0 ? 500 : -500)) / 1000) }
        #expect(s == ChipSample(ax: mg(8192, microG), ay: 0, az: mg(-16384, microG), gx: mg(1000, microDps), gy: mg(-2000, microDps), gz: mg(16393, microDps)))
    }

    @Test("one reading: 12 bytes from OUTX_L_G, the gyroscope's axes then the accelerometer's")
    func readSample() throws {
        let bus = MockI2C(Self.configureSequence(fifo: false) + [.writeRead(0x6A, [OUTX_L_G], reply: xyz(100, 0, -100) + xyz(0, 0, 8197))])
        var s = LSM6DSOSensor(bus: bus, address: 0x6A, settings: SensorSettings(rateMilliHz: 104_000, fifo: false))
        try s.driver.configure(s.wanted)
        var out: [ChipSample] = []
        #expect(try s.poll(into: &out) == .ok)
        #expect(out == [ChipSample(ax: 0, ay: 0, az: 1000, gx: 1750, gy: 0, gz: -1750)])
        bus.done()
    }

    @Test("FIFO: DIFF_FIFO from both status registers, words in SMBus-sized reads from the tag, a reading per time slot across reads; an overrun")
    func fifo() throws {
        // Seven words: an accelerometer word whose gyroscope partner was lost (dropped: a reading
        // is both or nothing), slot 1 (gyroscope, accelerometer), a temperature word (skipped),
        // slot 2 with its accelerometer word first, and slot 3's gyroscope word, whose partner
        // comes with the next read.
        let words: [[UInt8]] = [
            [tag(0x02, 0)] + xyz(999, 999, 999),
            [tag(0x01, 1)] + xyz(57, 0, 0), [tag(0x02, 1)] + xyz(0, 0, 8197), [tag(0x03, 1)] + xyz(0, 0, 0),
            [tag(0x02, 2)] + xyz(82, 0, 8197), [tag(0x01, 2)] + xyz(0, 114, 0), [tag(0x01, 3)] + xyz(0, 0, 0),
        ]
        let bytes = words.flatMap { $0 }
        let bus = MockI2C(Self.configureSequence() + [
            .writeRead(0x6A, [FIFO_STATUS1], reply: [7, 0x00]),
            .writeRead(0x6A, [FIFO_DATA_OUT_TAG], reply: Array(bytes[0..<28])),     // four words: 28 of 32 bytes
            .writeRead(0x6A, [FIFO_DATA_OUT_TAG], reply: Array(bytes[28...])),
            .writeRead(0x6A, [FIFO_STATUS1], reply: [1, 0x00]),
            .writeRead(0x6A, [FIFO_DATA_OUT_TAG], reply: [tag(0x02, 3)] + xyz(-82, 0, 8197)),
        ])
        bus.maxRead = 32
        var s = LSM6DSOSensor(bus: bus, address: 0x6A, settings: SensorSettings(rateMilliHz: 104_000))
        try s.driver.configure(s.wanted)
        var out: [ChipSample] = []
        #expect(try s.poll(into: &out) == .ok)
        #expect(out == [ChipSample(ax: 0, ay: 0, az: 1000, gx: 998, gy: 0, gz: 0), ChipSample(ax: 10, ay: 0, az: 1000, gx: 0, gy: 1995, gz: 0)])
        out = []
        #expect(try s.poll(into: &out) == .ok)
        #expect(out == [ChipSample(ax: -10, ay: 0, az: 1000)], "slot 3 completed across two drains")
        bus.done()

        // 512 words with the overrun latched: an overflow; DIFF_FIFO's high bits count.
        let full = (0..<256).flatMap { i in [tag(0x01, UInt8(i & 3))] + xyz(0, 0, 0) + [tag(0x02, UInt8(i & 3))] + xyz(Int16(i), 0, 8197) }
        let bus2 = MockI2C(Self.configureSequence() + [
            .writeRead(0x6A, [FIFO_STATUS1], reply: [0x00, OVR_IA | OVR_LATCHED | 0x02]),
        ] + stride(from: 0, to: 512, by: 4).map { w in
            .writeRead(0x6A, [FIFO_DATA_OUT_TAG], reply: Array(full[(w * 7)..<(min(w + 4, 512) * 7)]))
        })
        bus2.maxRead = 32
        var s2 = LSM6DSOSensor(bus: bus2, address: 0x6A, settings: SensorSettings(rateMilliHz: 104_000))
        try s2.driver.configure(s2.wanted)
        out = []
        #expect(try s2.poll(into: &out) == .overflow)
        #expect(out.count == 256 && out.last?.az == 1000)
        bus2.done()
    }

    @Test("errors: wrong WHO_AM_I, no acknowledge, a reset that never ends, configuration not kept")
    func errors() {
        var d = LSM6DSO(bus: MockI2C([.writeRead(0x6A, [WHO_AM_I], reply: [0x6A])]))
        #expect(throws: ChipError.wrongID(found: 0x6A)) { try d.identify() }
        var n = LSM6DSO(bus: MockI2C([.fail(0x6B, [WHO_AM_I], .noAcknowledge)]), address: 0x6B)
        #expect(throws: ChipError.bus(I2CError(.noAcknowledge), register: WHO_AM_I)) { try n.identify() }
        var r = LSM6DSO(bus: MockI2C([.write(0x6A, [CTRL3_C, IF_INC | SW_RESET])] + Array(repeating: .writeRead(0x6A, [CTRL3_C], reply: [IF_INC | SW_RESET]), count: 51)))
        var delay = CountingDelay()
        #expect(throws: ChipError.resetTimeout(register: CTRL3_C, value: IF_INC | SW_RESET)) { try r.reset(delay: &delay) }
        var seq = Self.configureSequence()
        seq[8] = .writeRead(0x6A, [CTRL1_XL], reply: [0x00])
        var c = LSM6DSO(bus: MockI2C(Array(seq.prefix(9))))
        #expect(throws: ChipError.notApplied(register: CTRL1_XL, wrote: ODR_104 | FS_XL_4G, read: 0x00)) { try c.configure(.init()) }
    }

    @Test("the plug-in: its facts, the settings it refuses in its own words, register names as the datasheet's, the registry line")
    func plugin() throws {
        let chip = try #require(ChipRegistry.named("lsm6dso"))
        let i = chip.info
        #expect(i.addresses == [0x6A, 0x6B] && i.id == 0x6C && i.idRegister == WHO_AM_I && i.hasGyro)
        #expect(i.accelRangesG == [2, 4, 8, 16] && i.gyroRangesDps == [125, 250, 500, 1000, 2000] && i.fifoDepth == 256)
        #expect(i.rates.within(12_500, 1_000_000) == [12_500, 26_000, 52_000, 104_000, 208_000, 416_000, 833_000])
        #expect(chip.sensor.unsupported(SensorSettings(rateMilliHz: 100_000))?.contains("12.5, 26, 52, 104, 208, 416, 833") == true)
        #expect(chip.sensor.unsupported(SensorSettings(rateMilliHz: 104_000, gyroRangeDps: 300)) != nil)
        #expect(chip.sensor.unsupported(SensorSettings(rateMilliHz: 52_000, accelRangeG: 16, gyroRangeDps: 125)) == nil)
        #expect(chip.sensor.registerName(FIFO_DATA_OUT_TAG) == "FIFO_DATA_OUT_TAG" && chip.sensor.registerName(CTRL3_C) == "CTRL3_C")
        var bus = MockI2C([.writeRead(0x6A, [WHO_AM_I], reply: [0x6C]), .fail(0x6B, [WHO_AM_I], .noAcknowledge)])
        #expect(ChipProbe.probe(&bus, address: 0x6A, for: chip) == .found(chip: "lsm6dso", part: "LSM6DSO", id: 0x6C))
        #expect(ChipProbe.probe(&bus, address: 0x6B, for: chip) == .absent)
        bus.done()
    }
}

@Suite("Simulated LSM6DSO")
struct SimLSM6DSOTests {
    @Test("the driver against its twin: reset, configure, tagged words at the rate, readings back in mg and mdps; an overrun")
    func driverAgainstTwin() throws {
        let motion = (0..<2000).map { Sample(t: Int64($0) * 9615, accel: Vec3(Int32($0 % 500), -250, 1000), gyro: Vec3(0, 1500, -90_000)) }
        let bus = SimBus(clock: SimClock())
        let chip = SimLSM6DSO(source: SampleListSource(motion))
        bus.attach(chip, at: 0x6B)
        #expect(!chip.isMeasuring && chip.register(.CTRL3_C) == IF_INC)
        bus.maxReadLength = 32
        var s = LSM6DSOSensor(bus: bus, address: 0x6B, settings: SensorSettings(rateMilliHz: 104_000, gyroRangeDps: 500))
        var delay = SimDelay(clock: bus.clock)
        try s.start(delay: &delay)
        #expect(chip.isMeasuring && chip.register(.FIFO_CTRL4) == CONTINUOUS)
        bus.clock.now += 200_000   // 20 readings at 104 Hz, two words each
        var out: [ChipSample] = []
        #expect(try s.poll(into: &out) == .ok)
        #expect(out.count == 20 && chip.fifoWords == 0)
        // ±4 g at 0.122 mg/LSB and ±500 °/s at 17.5 mdps/LSB: within a digit of the motion.
        #expect(out.enumerated().allSatisfy { abs($0.element.ax - Int32($0.offset)) <= 1 && abs($0.element.ay + 250) <= 1 && abs($0.element.az - 1000) <= 1 })
        #expect(out.allSatisfy { abs($0.gy - 1500) <= 9 && abs($0.gz + 90_000) <= 9 && $0.gx == 0 })
        bus.clock.now += 3_000_000   // 312 readings, 624 words: the FIFO keeps the newest 512 and says so
        out = []
        #expect(try s.poll(into: &out) == .overflow)
        #expect(out.count == 256 && chip.fifoWords == 0)
    }
}
