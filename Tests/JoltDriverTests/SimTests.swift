import JoltCore
import JoltDrivers
import JoltMotion
import JoltSim
import Testing

@Suite("Simulated chips")
struct SimTests {
    func world(_ samples: [Sample], adxl: Bool = false) -> (SimBus, FaultableDevice) {
        let clock = SimClock()
        let bus = SimBus(clock: clock)
        let dev: FaultableDevice = adxl ? SimADXL345(source: SampleListSource(samples)) : SimMPU6050(source: SampleListSource(samples))
        bus.attach(dev, at: adxl ? 0x53 : 0x68)
        return (bus, dev)
    }

    @Test("MPU6050: power-on asleep with zero data; reset bit clears after the reset time; then samples at the divider's rate")
    func mpuLifecycle() throws {
        var m = Motion(rate: 100)
        m.noise = 0
        m.rest(1)
        let (bus, dev) = world(m.take())
        let mpu = dev as! SimMPU6050
        var b = bus
        #expect(try b.readRegister(address: 0x68, 0x6B) == 0x40)
        #expect(try b.readRegister(address: 0x68, 0x75) == 0x68)
        var d = MPU6050(bus: bus)
        var delay = SimDelay(clock: bus.clock)
        try d.reset(delay: &delay)
        try d.configure(.init())
        #expect(mpu.isAwake)
        bus.clock.now += 95_000
        // Waking (before the divider is written) starts the sample clock at the power-on 8 kHz
        // rate, so the first sample comes at once; then one every 10 ms: 10 in 95 ms.
        #expect(try d.fifoCount() == 10 * 12)
        var out: [ChipSample] = []
        var scratch: [UInt8] = []
        #expect(try d.readFIFO(into: &out, scratch: &scratch) == .frames(10))
        #expect(out.allSatisfy { $0.az == 1000 && $0.ax == 0 })
        // A brown-out: back to power-on, asleep, data registers zero.
        mpu.powerOnReset(now: bus.clock.now)
        #expect(try d.powerManagement() == 0x40)
        bus.clock.now += 100_000
        #expect(try d.readSample() == ChipSample(ax: 0, ay: 0, az: 0))
    }

    @Test("MPU6050 FIFO overflow: the oldest bytes go, the count saturates at 1024, frames misalign")
    func mpuOverflow() throws {
        var m = Motion(rate: 100)
        m.rest(3)
        let (bus, _) = world(m.take())
        var d = MPU6050(bus: bus)
        var delay = SimDelay(clock: bus.clock)
        try d.reset(delay: &delay)
        try d.configure(.init())
        bus.clock.now += 1_500_000   // 150 samples > 85 frames
        #expect(try d.fifoCount() == 1024)
        var out: [ChipSample] = []
        var scratch: [UInt8] = []
        #expect(try d.readFIFO(into: &out, scratch: &scratch) == .overflow)
        #expect(try d.fifoCount() == 0, "reset")
    }

    @Test("ADXL345: standby at power-on, measures after POWER_CTL, FIFO stream mode keeps the newest 32")
    func adxl() throws {
        var m = Motion(rate: 100)
        m.noise = 0
        m.rotate(axis: V3(1, 0, 0), degrees: 90, seconds: 1)
        m.rest(1)
        let (bus, dev) = world(m.take(), adxl: true)
        let adxl = dev as! SimADXL345
        #expect(!adxl.isMeasuring)
        var d = ADXL345(bus: bus, address: 0x53)
        try d.identify()
        try d.configure(.init())
        bus.clock.now += 200_000
        var out: [ChipSample] = []
        #expect(try d.readFIFO(into: &out) == .frames(20))
        bus.clock.now += 500_000
        #expect(try d.readFIFO(into: &out) == .overflow(frames: 32))
        #expect(out.count == 52)
        bus.clock.now += 1_000_000
        out.removeAll()
        _ = try d.readFIFO(into: &out)
        // Full resolution, 3.9 mg/LSB: turned 90° about x, gravity is all on y, within 4 mg.
        let last = try #require(out.last)
        #expect(abs(Int(last.ay.magnitude) - 1000) <= 4 && abs(last.az) <= 4, "\(last)")
    }

    @Test("fault injection: no acknowledge, I/O errors and timeouts for a span; frozen data")
    func faults() throws {
        var m = Motion(rate: 100)
        m.rest(5)
        let (bus, dev) = world(m.take())
        bus.faults = [SimFault(.noAcknowledge, from: 1_000_000, to: 2_000_000), SimFault(.ioError, from: 2_000_000, to: 2_500_000),
                      SimFault(.timeout, from: 2_500_000, to: 3_000_000)]
        var b = bus
        #expect(try b.readRegister(address: 0x68, 0x75) == 0x68)
        bus.clock.now = 1_500_000
        #expect(throws: I2CError(.noAcknowledge)) { try b.readRegister(address: 0x68, 0x75) }
        bus.clock.now = 2_200_000
        #expect(throws: I2CError(.bus)) { try b.readRegister(address: 0x68, 0x75) }
        bus.clock.now = 2_700_000
        #expect(throws: I2CError(.timeout)) { try b.readRegister(address: 0x68, 0x75) }
        bus.clock.now = 3_000_000
        #expect(try b.readRegister(address: 0x68, 0x75) == 0x68)
        #expect(bus.failedTransactions == 3)
        #expect(throws: I2CError(.noAcknowledge)) { try b.readRegister(address: 0x69, 0x75) }
        dev.frozen = true
        #expect(dev.frozen)
    }
}

/// A delay that advances a simulated clock.
struct SimDelay: Delay {
    let clock: SimClock
    mutating func delay(milliseconds: UInt32) { clock.now += Int64(milliseconds) * 1000 }
}
