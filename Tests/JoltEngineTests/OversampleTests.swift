#if canImport(Glibc)
import Glibc
#endif
import JoltChips
import JoltCore
import JoltDrivers
import JoltEngine
import JoltSim
import Testing

@Suite("Oversampling the slow rates")
struct OversampleTests {
    /// A chip of the registry on a simulated bus asked for `rate` mHz, started, with `motion` a
    /// reading every `pace` µs (10 ms: 100 Hz); an engine over it.
    func engine(chip name: String, rate: Int32, fifo: Bool, oversample: Bool = true, pace: Int64 = 10_000, motion: (Int) -> Vec3) throws -> (SamplingEngine, TestClock, SimBus) {
        let chip = try #require(ChipRegistry.named(name))
        let clock = TestClock(SimClock())
        let bus = SimBus(clock: clock.sim)
        let readings = (0..<20_000).map { Sample(t: Int64($0) * pace, accel: motion($0)) }
        // The motion as a physical signal of that rate: a chip read slower takes every n-th reading.
        bus.attach(try #require(SimulatedChips.twin(of: name)).init(source: PacedSource(SampleListSource(readings), periodMicros: pace)), at: chip.info.addresses[0])
        let sensor = try ChipSensor(chip, bus: bus, busName: "the simulated bus", address: chip.info.addresses[0],
                                    settings: SensorSettings(rateMilliHz: rate, fifo: fifo), oversample: oversample)
        var delay = TestDelay(clock: clock)
        try sensor.start(delay: &delay)
        return (SamplingEngine(sensor: sensor, clock: clock, mount: .identity, detection: testDetection(sensor), drainMillis: 200), clock, bus)
    }

    func run(_ e: SamplingEngine, _ clock: TestClock, seconds: Int64) -> Collected {
        var sink = Collected()
        let end = clock.now + seconds * 1_000_000
        while clock.now < end {
            clock.sim.now = max(clock.now, e.nextPoll)
            sink.step(e, now: clock.now)
        }
        return sink
    }

    /// A counter ringing at 25 Hz, ±300 mg along x, read at 100 Hz: +212, +212, −212, −212, …;
    /// z with a little noise (0–48 mg), so the supervisor sees live data.
    static func ring(_ i: Int) -> Vec3 { Vec3(i % 4 < 2 ? 212 : -212, 0, 1000 + Int32(i % 7) * 8) }

    @Test("25 Hz on every chip of the registry (26 on one that has no 25), FIFO or not: the chip runs four times faster, four readings make a sample, and a ring at the sample rate averages away",
          arguments: ChipRegistry.names, [true, false])
    func ringAveragesAway(chip: String, fifo: Bool) throws {
        let rate = try #require(ChipRegistry.named(chip)).info.rates.nearest(to: 25_000)
        let (e, clock, _) = try engine(chip: chip, rate: rate, fifo: fifo, pace: 250_000_000 / Int64(rate), motion: Self.ring)
        // Four of the chip's periods (at 26 Hz: four of 104 Hz's 9615 µs, 1 µs short of 1/26 s).
        let period = e.periodMicros
        #expect(e.sensor.oversampling == 4 && e.sensor.chipRateMilliHz == rate * 4)
        #expect(e.sensor.rateMilliHz == rate && abs(period - 1_000_000_000 / Int64(rate)) <= 4)
        let sink = run(e, clock, seconds: 4)
        #expect(sink.gaps.isEmpty && sink.faults.isEmpty, "\(sink.gaps) \(sink.faults)")
        let expected = Int(4_000_000 / period)
        #expect(sink.samples.count >= expected - 5 && sink.samples.count <= expected, "\(sink.samples.count) samples in 4 s")
        #expect(sink.samples.enumerated().allSatisfy { $0.element.t == Int64($0.offset) * period })
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
        #expect(try b.readRegister(address: e.sensor.address, MPU6050Register.SMPLRT_DIV.rawValue) == 9)
        #expect(try b.readRegister(address: e.sensor.address, MPU6050Register.CONFIG.rawValue) & 0x07 == MPU6050LowPass.hz21.rawValue)
    }

    @Test("from 50 Hz up the chip runs at the asked rate, one reading a sample", arguments: [50_000, 100_000, 500_000] as [Int32])
    func notBelow50(rate: Int32) throws {
        let (e, _, bus) = try engine(chip: "mpu6050", rate: rate, fifo: true, motion: Self.ring)
        #expect(e.sensor.oversampling == 1 && e.sensor.rateMilliHz == rate && e.sensor.chipRateMilliHz == rate)
        var b = bus
        let lp = try b.readRegister(address: e.sensor.address, MPU6050Register.CONFIG.rawValue) & 0x07
        #expect(lp == MPU6050LowPass.forRate(milliHz: rate).rawValue)
    }

    @Test("not asked to oversample (a board whose alarm does not watch for tamper), 25 Hz is read at 25 Hz and the ring reads as a push")
    func notAsked() throws {
        let (e, clock, _) = try engine(chip: "mpu6050", rate: 25_000, fifo: true, oversample: false, motion: Self.ring)
        #expect(e.sensor.oversampling == 1 && e.sensor.chipRateMilliHz == 25_000 && e.periodMicros == 40_000)
        let sink = run(e, clock, seconds: 2)
        #expect(sink.samples.count >= 45 && sink.samples.allSatisfy { $0.accel.x == 212 }, "\(sink.samples.prefix(3))")
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

    @Test("the first run after a clear is its plain mean, rounded half up the same way for both signs")
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

    @Test("a step: the sample after it is the triangle's blend, halfway up; the next the new level")
    func step() {
        var o = Oversampler(factor: 4)
        var out: [Int32] = []
        for r in 0..<12 { if let m = o.add(accel: Vec3(r < 4 ? 0 : 160, 0, 0), gyro: .zero) { out.append(m.accel.x) } }
        // Weights 1 2 3 4 3 2 1 over 16: the step's first run gets 4+3+2+1 = 10 of 16 → 100.
        #expect(out == [0, 100, 160])
    }

    @Test("a counter ringing at 20-30 Hz, its size rising and dying: the samples' running sum (the velocity the tamper detector integrates) stays within 20 mg, where a plain mean of each run leaves 48-63", arguments: [20.0, 22.0, 25.0, 28.0, 30.0])
    func ringVelocity(hz: Double) {
        var o = Oversampler(factor: 4)
        var velocity: Int64 = 0, worst: Int64 = 0
        for i in 0..<400 {
            let size: Double = Double(min(i, 400 - i)) / 200
            let phase: Double = 2 * Double.pi * hz * Double(i) / 100 + 0.7
            let v = Int32((300 * size * sin(phase)).rounded())
            if let m = o.add(accel: Vec3(v, 0, 0), gyro: .zero) {
                velocity += Int64(m.accel.x)
                worst = max(worst, abs(velocity))
            }
        }
        #expect(worst <= 20, "the running sum of the samples reached \(worst) mg")
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
        // The next run blends with that one (the triangle spans both) but is not clipped; the
        // one after reads the level.
        for _ in 0..<4 { out = o.add(accel: Vec3(100, 100, 100), gyro: .zero) }
        #expect(out.map { $0.accel.x > 100 && $0.accel.x < 2000 && $0.accel.y < 100 && $0.accel.y > -1990 } == true, "\(String(describing: out))")
        for _ in 0..<4 { out = o.add(accel: Vec3(100, 100, 100), gyro: .zero) }
        #expect(out?.accel == Vec3(100, 100, 100))
        // Range unknown: nothing is clipped.
        var plain = Oversampler(factor: 2)
        _ = plain.add(accel: Vec3(2000, 0, 0), gyro: .zero)
        #expect(plain.add(accel: Vec3(0, 0, 0), gyro: .zero)?.accel == Vec3(1000, 0, 0))
    }
}
