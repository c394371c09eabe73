import JoltChips
import JoltCore
import JoltDrivers
import JoltEngine
import JoltSim
import Testing

@Suite("Oversampling the slow rates")
struct OversampleTests {
    /// A chip of the registry on a simulated bus asked for `rate` mHz, started, with `motion` one
    /// reading per chip period; an engine over it.
    func engine(chip name: String, rate: Int32, fifo: Bool, motion: (Int) -> Vec3) throws -> (SamplingEngine, TestClock, SimBus) {
        let chip = try #require(ChipRegistry.named(name))
        let clock = TestClock(SimClock())
        let bus = SimBus(clock: clock.sim)
        let readings = (0..<20_000).map { Sample(t: Int64($0) * 10_000, accel: motion($0)) }
        bus.attach(try #require(SimulatedChips.twin(of: name)).init(source: SampleListSource(readings)), at: chip.info.addresses[0])
        let sensor = try ChipSensor(chip, bus: bus, busName: "the simulated bus", address: chip.info.addresses[0],
                                    settings: SensorSettings(rateMilliHz: rate, fifo: fifo))
        var delay = TestDelay(clock: clock)
        try sensor.start(delay: &delay)
        return (SamplingEngine(sensor: sensor, clock: clock, mount: .identity, drainMillis: 200), clock, bus)
    }

    func run(_ e: SamplingEngine, _ clock: TestClock, seconds: Int64) -> Collected {
        var sink = Collected()
        var d = DefaultDetectors(DetectionSettings(sensitivity: .medium, rateMilliHz: e.sensor.rateMilliHz, gyro: false))
        let end = clock.now + seconds * 1_000_000
        while clock.now < end {
            clock.sim.now = max(clock.now, e.nextPoll)
            _ = e.step(now: clock.now, detectors: &d, sink: &sink)
        }
        return sink
    }

    /// A counter ringing at 25 Hz, ±300 mg along x, read at 100 Hz: +212, +212, −212, −212, …;
    /// z with a little noise (0–48 mg), so the supervisor sees live data.
    static func ring(_ i: Int) -> Vec3 { Vec3(i % 4 < 2 ? 212 : -212, 0, 1000 + Int32(i % 7) * 8) }

    @Test("25 Hz on every chip, FIFO or not: the chip runs at 100 Hz, four readings make a sample, and a 25 Hz ring averages away",
          arguments: ["mpu6050", "adxl345", "lis3dh"], [true, false])
    func ringAveragesAway(chip: String, fifo: Bool) throws {
        let (e, clock, _) = try engine(chip: chip, rate: 25_000, fifo: fifo, motion: Self.ring)
        #expect(e.sensor.oversampling == 4 && e.sensor.chipRateMilliHz == 100_000)
        #expect(e.sensor.rateMilliHz == 25_000 && e.periodMicros == 40_000)
        let sink = run(e, clock, seconds: 4)
        #expect(sink.gaps.isEmpty && sink.faults.isEmpty, "\(sink.gaps) \(sink.faults)")
        #expect(sink.samples.count >= 95 && sink.samples.count <= 100, "\(sink.samples.count) samples in 4 s")
        #expect(sink.samples.enumerated().allSatisfy { $0.element.t == Int64($0.offset) * 40_000 })
        // Read at 25 Hz the same ring would stand still at +212 or −212 mg: a push that is not there.
        let worst = sink.samples.map { abs($0.accel.x) }.max() ?? 999
        #expect(worst <= 4, "x after averaging: up to \(worst) mg")
        #expect(sink.samples.allSatisfy { abs($0.accel.z - 1024) <= 28 })
    }

    @Test("without oversampling the same ring reads as a steady push: what the averaging is for")
    func ringAliasesWithout() {
        // Every fourth reading of the ring, as a chip run at 25 Hz samples it.
        let direct = (0..<100).map { Self.ring($0 * 4 + 1).x }
        #expect(Set(direct) == [212])
        var over = Oversampler(factor: 4)
        let averaged = (0..<400).compactMap { over.add(accel: Self.ring($0 + 1), gyro: .zero)?.accel.x }
        #expect(averaged.count == 100 && averaged.allSatisfy { $0 == 0 })
    }

    @Test("the MPU6050 at 25 Hz: sample rate divider 9 (100 Hz) and the 21 Hz low-pass (the widest below 25 Hz), not the 44 Hz one for 100 Hz")
    func mpu6050Registers() throws {
        let (e, _, bus) = try engine(chip: "mpu6050", rate: 25_000, fifo: true, motion: Self.ring)
        var b = bus
        #expect(try b.readRegister(address: e.sensor.address, MPU6050Register.sampleRateDivider.rawValue) == 9)
        #expect(try b.readRegister(address: e.sensor.address, MPU6050Register.config.rawValue) & 0x07 == MPU6050LowPass.hz21.rawValue)
    }

    @Test("from 50 Hz up the chip runs at the asked rate, one reading a sample", arguments: [50_000, 100_000, 500_000] as [Int32])
    func notBelow50(rate: Int32) throws {
        let (e, _, bus) = try engine(chip: "mpu6050", rate: rate, fifo: true, motion: Self.ring)
        #expect(e.sensor.oversampling == 1 && e.sensor.rateMilliHz == rate && e.sensor.chipRateMilliHz == rate)
        var b = bus
        let lp = try b.readRegister(address: e.sensor.address, MPU6050Register.config.rawValue) & 0x07
        #expect(lp == MPU6050LowPass.forRate(milliHz: rate).rawValue)
    }

    @Test("a chip that cannot make a multiple of the rate is read at the rate itself (the MPU6050 at 40 Hz: not 160, not 80 Hz)")
    func noMultiple() throws {
        let (e, _, _) = try engine(chip: "mpu6050", rate: 40_000, fifo: true, motion: Self.ring)
        #expect(e.sensor.oversampling == 1 && e.sensor.rateMilliHz == 40_000)
    }

    @Test("12.5 Hz: eight readings a sample at 100 Hz")
    func eighth() throws {
        let (e, clock, _) = try engine(chip: "adxl345", rate: 12_500, fifo: true, motion: Self.ring)
        #expect(e.sensor.oversampling == 8 && e.sensor.chipRateMilliHz == 100_000 && e.periodMicros == 80_000)
        let sink = run(e, clock, seconds: 4)
        #expect(sink.samples.count >= 45 && sink.samples.allSatisfy { abs($0.accel.x) <= 4 }, "\(sink.samples.prefix(5))")
    }
}

@Suite("Oversampler")
struct OversamplerTests {
    @Test("the factor for a rate: 1 from 50 Hz up, else the power of two that reaches 100 Hz")
    func factors() {
        #expect(Oversampler.factor(rateMilliHz: 1_000_000) == 1)
        #expect(Oversampler.factor(rateMilliHz: 50_000) == 1)
        #expect(Oversampler.factor(rateMilliHz: 49_999) == 4)   // 2 × 49.999 Hz is under 100 Hz
        #expect(Oversampler.factor(rateMilliHz: 25_000) == 4)
        #expect(Oversampler.factor(rateMilliHz: 12_500) == 8)
        #expect(Oversampler.factor(rateMilliHz: 0) == 1)
    }

    @Test("means round half up the same way for both signs, and a run restarts after clear")
    func rounding() {
        var o = Oversampler(factor: 4)
        #expect(o.factor == 4)
        for v: Int32 in [1, 1, 0, 0] { _ = o.add(accel: Vec3(v, -v, 0), gyro: Vec3(3, -3, 2)) }
        o.clear()
        var out: (accel: Vec3, gyro: Vec3)?
        for v: Int32 in [1, 1, 0, 0] { out = o.add(accel: Vec3(v, -v, Int32.max), gyro: Vec3(3, -3, Int32.min)) }
        // 2/4 = 0.5 → 1; −2/4 = −0.5 → 0; the extremes stay exact.
        #expect(out?.accel == Vec3(1, 0, Int32.max) && out?.gyro == Vec3(3, -3, Int32.min))
        #expect(o.pending == 0)
        #expect(o.add(accel: .zero, gyro: .zero) == nil && o.pending == 1)
        #expect(Oversampler(factor: 1).factor == 1 && Oversampler(factor: 6).factor == 4 && Oversampler(factor: 1000).factor == 64)
    }

    @Test("an axis that reached full scale in a run reads as clipped, not as the mean: the shake detector's clipped strokes stay clipped")
    func clipping() {
        var o = Oversampler(factor: 4, rangeMilliG: 2000)
        var out: (accel: Vec3, gyro: Vec3)?
        // x: clipped once at +2000 (the mean would be 1475); y: −1990 is within 2 % of −2000;
        // z: 1900 is not, and averages.
        for (x, y, z): (Int32, Int32, Int32) in [(1200, -1500, 1900), (2000, -1990, 1900), (1700, -1600, 1000), (1000, -1000, 1000)] {
            out = o.add(accel: Vec3(x, y, z), gyro: .zero)
        }
        #expect(out?.accel == Vec3(2000, -1990, 1450))
        // The next run starts clean.
        for _ in 0..<4 { out = o.add(accel: Vec3(100, 100, 100), gyro: .zero) }
        #expect(out?.accel == Vec3(100, 100, 100))
        // Range unknown: nothing is clipped.
        var plain = Oversampler(factor: 2)
        _ = plain.add(accel: Vec3(2000, 0, 0), gyro: .zero)
        #expect(plain.add(accel: Vec3(0, 0, 0), gyro: .zero)?.accel == Vec3(1000, 0, 0))
    }
}
