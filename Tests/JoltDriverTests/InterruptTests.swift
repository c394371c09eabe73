import JoltChips
import JoltCore
import JoltDrivers
import JoltMotion
import JoltSim
import Testing

// The datasheets' interrupt registers and bits, declared here again so that a wrong constant in
// a driver cannot agree with itself.
// MPU6050: RM-MPU-6000A-00 rev 4.2 §4.15–4.17, and rev 3.2 for the motion detector (MOT_THR,
// MOT_DUR, ACCEL_HPF, MOT_EN).
private let MPU_ADDR: UInt8 = 0x68
private let SMPLRT_DIV: UInt8 = 0x19, CONFIG: UInt8 = 0x1A, GYRO_CONFIG: UInt8 = 0x1B, ACCEL_CONFIG: UInt8 = 0x1C
private let MOT_THR: UInt8 = 0x1F, MOT_DUR: UInt8 = 0x20, FIFO_EN: UInt8 = 0x23
private let INT_PIN_CFG: UInt8 = 0x37, INT_ENABLE: UInt8 = 0x38, INT_STATUS: UInt8 = 0x3A
private let USER_CTRL: UInt8 = 0x6A, PWR_MGMT_1: UInt8 = 0x6B
private let MOT_EN: UInt8 = 1 << 6, FIFO_OFLOW_EN: UInt8 = 1 << 4, DATA_RDY_EN: UInt8 = 1 << 0
private let ACCEL_HPF_0_63HZ: UInt8 = 4
// ADXL345: data sheet Rev. G, Table 19 and the registers' definitions.
private let ADXL_ADDR: UInt8 = 0x53
private let THRESH_ACT: UInt8 = 0x24, THRESH_INACT: UInt8 = 0x25, TIME_INACT: UInt8 = 0x26, ACT_INACT_CTL: UInt8 = 0x27
private let BW_RATE: UInt8 = 0x2C, POWER_CTL: UInt8 = 0x2D, ADXL_INT_ENABLE: UInt8 = 0x2E, INT_MAP: UInt8 = 0x2F
private let INT_SOURCE: UInt8 = 0x30, DATA_FORMAT: UInt8 = 0x31, FIFO_CTL: UInt8 = 0x38
private let DATA_READY: UInt8 = 1 << 7, ACTIVITY: UInt8 = 1 << 4, WATERMARK: UInt8 = 1 << 1
private let LINK: UInt8 = 1 << 5, MEASURE: UInt8 = 1 << 3, STREAM: UInt8 = 0x80
// LIS3DH: DocID17530 Rev 2 §8.9-8.27, AN3308 §4 and §6.
private let LIS_ADDR: UInt8 = 0x18
private let CTRL_REG1: UInt8 = 0x20, CTRL_REG2: UInt8 = 0x21, CTRL_REG3: UInt8 = 0x22, CTRL_REG4: UInt8 = 0x23
private let CTRL_REG5: UInt8 = 0x24, CTRL_REG6: UInt8 = 0x25, REFERENCE: UInt8 = 0x26, FIFO_CTRL_REG: UInt8 = 0x2E
private let FIFO_SRC_REG: UInt8 = 0x2F, INT1_CFG: UInt8 = 0x30, INT1_THS: UInt8 = 0x32, INT1_DURATION: UInt8 = 0x33
private let I1_IA1: UInt8 = 1 << 6, I1_ZYXDA: UInt8 = 1 << 4, I1_WTM: UInt8 = 1 << 2
private let HP_IA1_HPCF_05HZ: UInt8 = 0x21, XHIE_YHIE_ZHIE: UInt8 = 0x2A, AUTO_INC: UInt8 = 0x80
// LSM6DSO: DS12140, Register description.
private let LSM_ADDR: UInt8 = 0x6A
private let FIFO_CTRL1: UInt8 = 0x07, FIFO_CTRL2: UInt8 = 0x08, FIFO_CTRL3: UInt8 = 0x09, FIFO_CTRL4: UInt8 = 0x0A
private let INT1_CTRL: UInt8 = 0x0D, CTRL1_XL: UInt8 = 0x10, CTRL2_G: UInt8 = 0x11, CTRL3_C: UInt8 = 0x12
private let WAKE_UP_SRC: UInt8 = 0x1B, FIFO_STATUS2: UInt8 = 0x3B, TAP_CFG0: UInt8 = 0x56, TAP_CFG2: UInt8 = 0x58
private let WAKE_UP_THS: UInt8 = 0x5B, WAKE_UP_DUR: UInt8 = 0x5C, MD1_CFG: UInt8 = 0x5E
private let INT1_FIFO_TH: UInt8 = 1 << 3, INT1_DRDY_XL: UInt8 = 1 << 0, INT1_WU: UInt8 = 1 << 5
private let CTRL8_XL: UInt8 = 0x17, SLOPE_FDS: UInt8 = 1 << 4
private let INTERRUPTS_ENABLE: UInt8 = 1 << 7, WAKE_THS_W: UInt8 = 1 << 4, WU_IA: UInt8 = 1 << 3, FIFO_WTM_IA: UInt8 = 1 << 7

@Suite("The chips' INT pins")
struct InterruptTests {
    /// The MPU6050 at 100 Hz, ±4 g, ±500 °/s, with INT wired for `motion` mg.
    static func mpuSequence(fifo: Bool, motionCount: UInt8) -> [MockI2C.Expect] {
        let a = MPU_ADDR, accel: UInt8 = 0x08 | ACCEL_HPF_0_63HZ
        var e: [MockI2C.Expect] = [
            .write(a, [PWR_MGMT_1, 0x01]), .write(a, [CONFIG, 3]), .write(a, [SMPLRT_DIV, 9]),
            .write(a, [GYRO_CONFIG, 0x08]),
            .write(a, [ACCEL_CONFIG, accel]),          // ±4 g, the motion detector's high-pass at 0.63 Hz
            .write(a, [FIFO_EN, 0x00]), .write(a, [USER_CTRL, 0x04]),
            .write(a, [INT_PIN_CFG, 0x00]),            // active high, push-pull, 50 µs pulses
            .write(a, [MOT_THR, motionCount]),         // 2 mg a count
            .write(a, [MOT_DUR, 1]),                   // 1 ms
        ]
        if fifo {
            e += [.write(a, [FIFO_EN, 0x78]), .write(a, [INT_ENABLE, MOT_EN | FIFO_OFLOW_EN]), .write(a, [USER_CTRL, 0x40])]
        } else {
            e += [.write(a, [INT_ENABLE, MOT_EN | DATA_RDY_EN])]
        }
        e += [.writeRead(a, [SMPLRT_DIV], reply: [9, 3, 0x08, accel]), .writeRead(a, [PWR_MGMT_1], reply: [0x01])]
        return e
    }

    @Test("MPU6050: motion at MOT_THR (2 mg a count) through the 0.63 Hz high-pass; without the FIFO each reading too", arguments: [
        (true, 64 as Int32, 32 as UInt8), (false, 64, 32), (true, 100, 50), (true, 33, 17),
    ])
    func mpu(fifo: Bool, motion: Int32, count: UInt8) throws {
        let bus = MockI2C(Self.mpuSequence(fifo: fifo, motionCount: count) + [.writeRead(MPU_ADDR, [INT_STATUS], reply: [MOT_EN | DATA_RDY_EN])])
        var d = MPU6050(bus: bus)
        var c = MPU6050<MockI2C>.Configuration()
        c.fifo = fifo
        c.interrupt = InterruptPlan(motionMilliG: motion)
        try d.configure(c)
        #expect(try d.interruptStatus() == [.motion, .dataReady])
        bus.done()
    }

    /// The ADXL345 at 100 Hz, ±4 g, with INT1 wired.
    static func adxlSequence(fifo: Bool, count: UInt8) -> [MockI2C.Expect] {
        let a = ADXL_ADDR, fifoCtl: UInt8 = fifo ? STREAM | 24 : 0x00, power = LINK | MEASURE
        return [
            .write(a, [POWER_CTL, 0x00]), .write(a, [BW_RATE, 0x0A]), .write(a, [DATA_FORMAT, 0x09]),
            .write(a, [ADXL_INT_ENABLE, 0x00]), .write(a, [FIFO_CTL, 0x00]),
            .write(a, [FIFO_CTL, fifoCtl]),                  // stream, the watermark at 24 of 32
            .write(a, [THRESH_ACT, count]), .write(a, [THRESH_INACT, count]),   // 62.5 mg a count
            .write(a, [TIME_INACT, 1]),                      // 1 s
            .write(a, [ACT_INACT_CTL, 0xFF]),                // both ac-coupled, x, y and z
            .write(a, [INT_MAP, 0x00]),                      // all to INT1
            .write(a, [ADXL_INT_ENABLE, ACTIVITY | (fifo ? WATERMARK : DATA_READY)]),
            .write(a, [POWER_CTL, power]),                   // linked activity and inactivity, measuring
            .writeRead(a, [BW_RATE], reply: [0x0A]), .writeRead(a, [DATA_FORMAT], reply: [0x09]),
            .writeRead(a, [FIFO_CTL], reply: [fifoCtl]), .writeRead(a, [POWER_CTL], reply: [power]),
        ]
    }

    @Test("ADXL345: linked ac-coupled activity at THRESH_ACT, the watermark (or each reading) on INT1", arguments: [
        (true, 64 as Int32, 1 as UInt8), (false, 64, 1), (true, 200, 3), (true, 32, 1),
    ])
    func adxl(fifo: Bool, motion: Int32, count: UInt8) throws {
        let bus = MockI2C(Self.adxlSequence(fifo: fifo, count: count) + [.writeRead(ADXL_ADDR, [INT_SOURCE], reply: [ACTIVITY | WATERMARK])])
        var d = ADXL345(bus: bus)
        var c = ADXL345<MockI2C>.Configuration()
        c.fifo = fifo
        c.interrupt = InterruptPlan(motionMilliG: motion)
        try d.configure(c)
        #expect(try d.interruptSource() == [.activity, .watermark])
        bus.done()
    }

    /// The LIS3DH at 100 Hz, ±4 g, with INT1 wired.
    static func lisSequence(fifo: Bool, count: UInt8) -> [MockI2C.Expect] {
        let a = LIS_ADDR, c4: UInt8 = 0x80 | 0x08 | 0x10, c5: UInt8 = fifo ? 0x40 : 0, fm: UInt8 = fifo ? STREAM | 23 : 0
        return [
            .write(a, [CTRL_REG1, 0x07]), .write(a, [CTRL_REG4, c4]), .write(a, [CTRL_REG5, c5]),
            .write(a, [FIFO_CTRL_REG, 0x00]),
            .write(a, [FIFO_CTRL_REG, fm]),                  // stream, FTH 23: WTM at 24 levels of 32
            .write(a, [CTRL_REG2, HP_IA1_HPCF_05HZ]),        // interrupt 1 through the high-pass filter
            .write(a, [CTRL_REG6, 0x00]),                    // INT_POLARITY 0: active high
            .write(a, [INT1_THS, count]),                    // 32 mg a count at ±4 g
            .write(a, [INT1_DURATION, 0]),
            .write(a, [INT1_CFG, XHIE_YHIE_ZHIE]),
            .write(a, [CTRL_REG3, I1_IA1 | (fifo ? I1_WTM : I1_ZYXDA)]),
            .write(a, [CTRL_REG1, 0x57]),                    // 100 Hz, x, y, z
            .writeRead(a, [REFERENCE], reply: [0]),          // the filter starts from now
            .writeRead(a, [CTRL_REG1], reply: [0x57]), .writeRead(a, [CTRL_REG4], reply: [c4]),
            .writeRead(a, [CTRL_REG5], reply: [c5]), .writeRead(a, [FIFO_CTRL_REG], reply: [fm]),
        ]
    }

    @Test("LIS3DH: interrupt 1 high-passed past INT1_THS, the watermark (or each reading) on INT1", arguments: [
        (true, 64 as Int32, 2 as UInt8), (false, 64, 2), (true, 200, 6), (true, 5000, 127),
    ])
    func lis(fifo: Bool, motion: Int32, count: UInt8) throws {
        let bus = MockI2C(Self.lisSequence(fifo: fifo, count: count) + [.writeRead(LIS_ADDR, [FIFO_SRC_REG | AUTO_INC], reply: [0x98, 0x2A, 0x42])])
        var d = LIS3DH(bus: bus, address: LIS_ADDR)
        var c = LIS3DH<MockI2C>.Configuration()
        c.fifo = fifo
        c.interrupt = InterruptPlan(motionMilliG: motion)
        try d.configure(c)
        let s = try d.interruptSources()
        #expect(s.ia1 && s.fifo.contains(.watermark))
        bus.done()
    }

    /// The LSM6DSO at 104 Hz, ±4 g, ±500 °/s, with INT1 wired: the watermark a second of readings
    /// (104, two words each: 208 words).
    static func lsmSequence(fifo: Bool, count: UInt8, fine: Bool) -> [MockI2C.Expect] {
        let a = LSM_ADDR, c3: UInt8 = 0x44, batch: UInt8 = fifo ? 0x44 : 0, mode: UInt8 = fifo ? 0x06 : 0, words = fifo ? 208 : 0
        return [
            .write(a, [CTRL1_XL, 0]), .write(a, [CTRL2_G, 0]), .write(a, [CTRL3_C, c3]),   // H_LACTIVE 0, PP_OD 0
            .write(a, [FIFO_CTRL4, 0]), .write(a, [FIFO_CTRL3, batch]), .write(a, [FIFO_CTRL4, mode]),
            .write(a, [FIFO_CTRL1, UInt8(words & 0xFF)]), .write(a, [FIFO_CTRL2, UInt8(words >> 8)]),   // WTM, WTM8
            .write(a, [INT1_CTRL, fifo ? INT1_FIFO_TH : INT1_DRDY_XL]),
            .write(a, [CTRL8_XL, 0xA0]),                           // HPCF_XL 101: ODR/200; outputs unfiltered
            .write(a, [TAP_CFG0, SLOPE_FDS]),                      // the wake-up through the high-pass filter
            .write(a, [WAKE_UP_THS, count]),
            .write(a, [WAKE_UP_DUR, fine ? WAKE_THS_W : 0]),       // FS_XL / 2⁸ a count, or / 2⁶
            .write(a, [MD1_CFG, INT1_WU]),
            .write(a, [TAP_CFG2, INTERRUPTS_ENABLE]),
            .write(a, [CTRL1_XL, 0x48]), .write(a, [CTRL2_G, 0x44]),
            .writeRead(a, [CTRL1_XL], reply: [0x48]), .writeRead(a, [CTRL2_G], reply: [0x44]), .writeRead(a, [CTRL3_C], reply: [c3]),
            .writeRead(a, [FIFO_CTRL3], reply: [batch]), .writeRead(a, [FIFO_CTRL4], reply: [mode]),
        ]
    }

    @Test("LSM6DSO: the wake-up past WK_THS (15.6 mg a count at ±4 g, or 62.5), the watermark (or each reading) on INT1", arguments: [
        (true, 64 as Int32, 4 as UInt8, true), (false, 64, 4, true), (true, 984, 63, true), (true, 2000, 32, false),
    ])
    func lsm(fifo: Bool, motion: Int32, count: UInt8, fine: Bool) throws {
        let bus = MockI2C(Self.lsmSequence(fifo: fifo, count: count, fine: fine)
            + [.writeRead(LSM_ADDR, [WAKE_UP_SRC], reply: [WU_IA | 0x01]), .writeRead(LSM_ADDR, [FIFO_STATUS2], reply: [FIFO_WTM_IA])])
        var d = LSM6DSO(bus: bus, address: LSM_ADDR)
        var c = LSM6DSO<MockI2C>.Configuration()
        c.fifo = fifo
        c.interrupt = InterruptPlan(motionMilliG: motion)
        try d.configure(c)
        let s = try d.interruptSources()
        #expect(s.wakeUp && s.watermark)
        bus.done()
    }

    @Test("every registered chip declares what it sets up, and takes a wired INT; a plug-in that sets up none refuses it with the fix")
    func declared() throws {
        for chip in ChipRegistry.all {
            #expect(!chip.info.interruptSetUp.isEmpty && chip.info.interruptSetUp.isSubset(of: chip.info.interrupts), "\(chip.info.part)")
            // docs/config.md's int.motion_mg names each chip's step from here.
            #expect(chip.info.interruptSetUp.contains(.motion) == !chip.info.motionStep.isEmpty, "\(chip.info.part): \(chip.info.motionStep)")
            let settings = SensorSettings(rateMilliHz: chip.info.rates.nearest(to: 100_000), accelRangeG: 4, interrupt: InterruptPlan())
            _ = try ChipSensor(chip, bus: SimBus(clock: SimClock()), busName: "test", address: chip.info.addresses[0], settings: settings)
        }
        let polledOnly = Chip(PolledOnly<SharedBus>.self)
        #expect(throws: SettingsProblem.self) {
            _ = try ChipSensor(polledOnly, bus: SimBus(clock: SimClock()), busName: "test", address: 0x10, settings: SensorSettings(interrupt: InterruptPlan()))
        }
        do {
            _ = try ChipSensor(polledOnly, bus: SimBus(clock: SimClock()), busName: "test", address: 0x10, settings: SensorSettings(interrupt: InterruptPlan()))
        } catch {
            #expect(error.message.contains("does not set up the POLLED's INT pin") && error.message.contains("remove \"int\""), "\(error.message)")
        }
        #expect((try? ChipSensor(polledOnly, bus: SimBus(clock: SimClock()), busName: "test", address: 0x10, settings: SensorSettings())) != nil)
    }

    /// A twin on a simulated bus, started by its plug-in with INT wired, playing `samples`.
    func twin(_ chip: String, _ samples: [Sample], fifo: Bool = true) throws -> (ChipSensor, any SimulatedChip, SimClock) {
        let clock = SimClock(), bus = SimBus(clock: clock)
        let device = SimulatedChips.twin(of: chip)!.init(source: SampleListSource(samples))
        let info = ChipRegistry.named(chip)!.info
        bus.attach(device, at: info.addresses[0])
        let settings = SensorSettings(rateMilliHz: info.rates.nearest(to: 100_000), accelRangeG: 4, fifo: fifo, interrupt: InterruptPlan())
        let sensor = try ChipSensor(ChipRegistry.named(chip)!, bus: bus, busName: "test", address: info.addresses[0], settings: settings)
        var delay = SimDelay(clock: clock)
        try sensor.start(delay: &delay)
        return (sensor, device, clock)
    }

    /// 5 s at rest, then a push of 0.3 g along x for 0.2 s, then rest.
    static var push: [Sample] {
        var m = Motion(rate: 100, seed: 3)
        m.rest(5)
        for _ in 0..<20 { m.emit(V3(0.3, 0, 1)) }
        m.rest(2)
        return m.take()
    }

    @Test("the ADXL345's, LIS3DH's and LSM6DSO's twins raise INT1 at the watermark while at rest, and on motion at once", arguments: ["adxl345", "lis3dh", "lsm6dso"])
    func watermarkTwin(chip: String) throws {
        let (sensor, device, clock) = try twin(chip, Self.push)
        var out: [ChipSample] = []
        var rises: [Int64] = []
        var seen = 0
        // Drain whenever INT1 rises, as the run loop does, reading INT_SOURCE first.
        var t = clock.now
        while t < clock.now + 6_000_000 {
            t += 1000
            let e = device.interruptEdges(by: t)
            if e > seen {
                seen = e
                rises.append(t)
                clock.now = t
                let cause = try sensor.interruptCause()
                #expect(!cause.isEmpty)
                _ = try sensor.poll(into: &out)
            }
        }
        // At rest: a rise every `watermark` readings (24 for the ADXL345 and the LIS3DH, 240 ms
        // at 100 Hz; a second's 104 for the LSM6DSO).
        let period = sensor.readPeriodMicros, every = Int64(sensor.watermark) * period
        let start = try #require(device.sourceStart)
        let pushAt = start + 501 * period
        let rest = rises.filter { $0 < pushAt - period }
        let gaps = zip(rest.dropFirst(), rest).map { $0 - $1 }
        #expect(sensor.watermark == (chip == "lsm6dso" ? 104 : 24))
        #expect(gaps.count >= 2 && gaps.allSatisfy { abs($0 - every) <= 5_000 }, "\(gaps), every \(every)")
        // The push (readings 500…519, made about 5.0–5.2 s after the chip started) raises INT1
        // within a reading of its start.
        #expect(rises.contains { $0 >= pushAt && $0 <= pushAt + period }, "rises \(rises.map { $0 - start })")
    }

    @Test("the MPU6050's twin stays quiet at rest and pulses INT on the push; not at all without MOT_EN")
    func mpuTwin() throws {
        for wired in [true, false] {
            let (sensor, device, clock) = wired ? try twin("mpu6050", Self.push) : try twinPolled("mpu6050", Self.push)
            // Drained every 100 ms, as a run does: the FIFO never overflows (that too raises INT).
            var out: [ChipSample] = []
            var rises: [Int64] = []
            var seen = 0
            let t0 = clock.now
            for t in stride(from: t0, to: t0 + 7_000_000, by: 1000) {
                let e = device.interruptEdges(by: t)
                if e > seen {
                    seen = e
                    rises.append(t)
                }
                if (t - t0) % 100_000 == 0 {
                    clock.now = t
                    _ = try sensor.poll(into: &out)
                }
            }
            let start = try #require(device.sourceStart)
            let pushAt = start + 501 * 10_000
            if wired {
                #expect(rises.first.map { $0 >= pushAt && $0 <= pushAt + 10_000 } == true, "rises \(rises.map { $0 - start })")
            } else {
                #expect(rises.isEmpty, "rises \(rises.map { $0 - start })")
            }
        }
    }

    func twinPolled(_ chip: String, _ samples: [Sample]) throws -> (ChipSensor, any SimulatedChip, SimClock) {
        let clock = SimClock(), bus = SimBus(clock: clock)
        let device = SimulatedChips.twin(of: chip)!.init(source: SampleListSource(samples))
        let info = ChipRegistry.named(chip)!.info
        bus.attach(device, at: info.addresses[0])
        let sensor = try ChipSensor(ChipRegistry.named(chip)!, bus: bus, busName: "test", address: info.addresses[0], settings: SensorSettings())
        var delay = SimDelay(clock: clock)
        try sensor.start(delay: &delay)
        return (sensor, device, clock)
    }
}

/// A plug-in that sets up no INT pin, as a new chip's might at first.
struct PolledOnly<Bus: I2CBus>: Sensor {
    static var info: ChipInfo {
        ChipInfo(name: "polled", part: "POLLED", addresses: [0x10], addressPin: "", idRegister: 0, idRegisterName: "ID", id: 1,
                 accelRangesG: [4], gyroRangesDps: [], rates: .list([100_000]), fifoDepth: 0, interrupts: [.dataReady], selfTest: false)
    }
    static func registerName(_ register: UInt8) -> String? { nil }
    init(bus: Bus, address: UInt8, settings: SensorSettings) { self.address = address }
    let address: UInt8
    var identity: UInt8 { 1 }
    mutating func start(delay: inout some Delay) throws(ChipError) {}
    mutating func poll(into out: inout [ChipSample]) throws(ChipError) -> PollStatus { .ok }
    mutating func selfTest(delay: inout some Delay) throws(ChipError) -> SelfTestResult {
        SelfTestResult(changeMilliG: [0, 0, 0], limits: [], magnitudeOnly: true, noiseMilliG: 0)
    }
    var rateMilliHz: Int32 { 100_000 }
    var rangeMilliG: Int32 { 4000 }
    var usesFIFO: Bool { false }
}
