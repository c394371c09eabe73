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

    @Test("every registered chip declares what it sets up; one that sets up none refuses a wired INT")
    func declared() {
        for chip in ChipRegistry.all {
            #expect(chip.info.interruptSetUp.isSubset(of: chip.info.interrupts), "\(chip.info.part)")
            let settings = SensorSettings(rateMilliHz: chip.info.rates.nearest(to: 100_000), accelRangeG: 4, interrupt: InterruptPlan())
            let made = Result { () throws(SettingsProblem) in try ChipSensor(chip, bus: SimBus(clock: SimClock()), busName: "test", address: chip.info.addresses[0], settings: settings) }
            if chip.info.interruptSetUp.isEmpty {
                guard case .failure(let e) = made else { Issue.record("\(chip.info.part) took a wired INT it does not set up"); continue }
                #expect(e.message.contains("does not set up the \(chip.info.part)'s INT pin") && e.message.contains("remove \"int\""), "\(e.message)")
            } else {
                #expect((try? made.get()) != nil)
            }
        }
        #expect(!ChipRegistry.named("mpu6050")!.info.interruptSetUp.isEmpty && !ChipRegistry.named("adxl345")!.info.interruptSetUp.isEmpty)
    }

    /// A twin on a simulated bus, started by its plug-in with INT wired, playing `samples`.
    func twin(_ chip: String, _ samples: [Sample], fifo: Bool = true) throws -> (ChipSensor, any SimulatedChip, SimClock) {
        let clock = SimClock(), bus = SimBus(clock: clock)
        let device = SimulatedChips.twin(of: chip)!.init(source: SampleListSource(samples))
        let info = ChipRegistry.named(chip)!.info
        bus.attach(device, at: info.addresses[0])
        let settings = SensorSettings(rateMilliHz: 100_000, accelRangeG: 4, fifo: fifo, interrupt: InterruptPlan())
        let sensor = try ChipSensor(ChipRegistry.named(chip)!, bus: bus, busName: "test", address: info.addresses[0], settings: settings)
        var delay = SimDelay(clock: clock)
        try sensor.start(delay: &delay)
        return (sensor, device, clock)
    }

    /// 3 s at rest, then a push of 0.3 g along x for 0.2 s, then rest.
    static var push: [Sample] {
        var m = Motion(rate: 100, seed: 3)
        m.rest(3)
        for _ in 0..<20 { m.emit(V3(0.3, 0, 1)) }
        m.rest(2)
        return m.take()
    }

    @Test("the ADXL345's twin raises INT1 at the watermark while at rest, and on activity at once")
    func adxlTwin() throws {
        let (sensor, device, clock) = try twin("adxl345", Self.push)
        var out: [ChipSample] = []
        var rises: [Int64] = []
        var seen = 0
        // Drain whenever INT1 rises, as the run loop does, reading INT_SOURCE first.
        var t = clock.now
        while t < clock.now + 4_000_000 {
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
        // At rest: a rise every 24 readings (240 ms at 100 Hz).
        let rest = rises.filter { $0 < 2_900_000 }
        let gaps = zip(rest.dropFirst(), rest).map { $0 - $1 }
        #expect(gaps.count >= 8 && gaps.allSatisfy { (235_000...245_000).contains($0) }, "\(gaps)")
        // The push (readings 300…319, made 3.0–3.2 s after the chip started) raises INT1 within a
        // reading of its start.
        let start = try #require(device.sourceStart)
        let pushAt = start + 301 * 10_000
        #expect(rises.contains { $0 >= pushAt && $0 <= pushAt + 10_000 }, "rises \(rises.map { $0 - start })")
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
            for t in stride(from: t0, to: t0 + 5_000_000, by: 1000) {
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
            let pushAt = start + 301 * 10_000
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
