import JoltChips
import JoltCore
import JoltDrivers
import JoltEngine
import JoltSim
import Testing

/// The engine's clock in a test: simulated time that only moves when told.
final class TestClock: EngineClock {
    let sim: SimClock
    init(_ sim: SimClock) { self.sim = sim }
    var now: Int64 { sim.now }
    func delay(milliseconds: UInt32) { sim.now += Int64(milliseconds) * 1000 }
}

/// Collects what the engine's steps bring.
struct Collected {
    var samples: [Sample] = []
    var gaps: [Gap] = []
    var faults: [String] = []

    /// Polls `e` if due at `now`, and takes what came.
    mutating func step(_ e: SamplingEngine, now: Int64) {
        switch e.step(now: now) {
        case .idle: break
        case .fault(let reason, _): faults.append(reason)
        case .polled(_, let gap):
            if let gap { gaps.append(gap) }
            while let (s, _) = e.next() { samples.append(s) }
        }
    }
}

/// Detection settings for an engine in a test.
func testDetection(_ sensor: ChipSensor) -> DetectionSettings {
    DetectionSettings(sensitivity: .medium, rateMilliHz: sensor.rateMilliHz, gyro: false)
}

@Suite("The sampling engine")
struct EngineTests {
    /// A chip from the registry on a simulated bus, started, lying still (with a little noise so
    /// the supervisor sees live data), and an engine over it.
    func engine(chip name: String, fifo: Bool) throws -> (SamplingEngine, TestClock) {
        let chip = try #require(ChipRegistry.named(name))
        let rate = chip.info.rates.nearest(to: 100_000)
        let clock = TestClock(SimClock())
        let bus = SimBus(clock: clock.sim)
        let motion = (0..<100_000).map { Sample(t: Int64($0) * 1_000_000_000 / Int64(rate), accel: Vec3(Int32($0 % 7) * 8, 0, 1000)) }
        bus.attach(try #require(SimulatedChips.twin(of: name)).init(source: SampleListSource(motion)), at: chip.info.addresses[0])
        let sensor = try ChipSensor(chip, bus: bus, busName: "the simulated bus", address: chip.info.addresses[0], settings: SensorSettings(rateMilliHz: rate, fifo: fifo))
        var delay = TestDelay(clock: clock)
        try sensor.start(delay: &delay)
        return (SamplingEngine(sensor: sensor, clock: clock, mount: .identity, detection: testDetection(sensor), drainMillis: 100), clock)
    }

    func run(_ e: SamplingEngine, _ clock: TestClock, until t: Int64, into sink: inout Collected) {
        while clock.now < t {
            clock.sim.now = max(clock.now, e.nextPoll)
            sink.step(e, now: clock.now)
        }
    }

    @Test("every chip in the registry: samples stand at origin + i × period, one per period, none lost", arguments: ChipRegistry.names)
    func timestamps(chip: String) throws {
        let (e, clock) = try engine(chip: chip, fifo: true)
        let p = e.periodMicros
        var sink = Collected()
        run(e, clock, until: clock.now + 3_000_000, into: &sink)
        #expect(sink.gaps.isEmpty && sink.faults.isEmpty)
        let expected = Int(3_000_000 / p)
        #expect(sink.samples.count >= expected - 10 && sink.samples.count <= expected, "\(sink.samples.count) of \(expected)")
        #expect(sink.samples.enumerated().allSatisfy { $0.element.t == Int64($0.offset) * p })
        #expect(e.samples == sink.samples.count && e.streamMicros == Int64(e.samples) * p)
    }

    @Test("a host that stops polling for 2 s longer than the FIFO holds: one gap of the lost time, the times jump by it, then one per period again", arguments: ChipRegistry.names)
    func gapKeepsTime(chip: String) throws {
        let (e, clock) = try engine(chip: chip, fifo: true)
        let p = e.periodMicros, depth = Int64(e.sensor.chip.info.fifoDepth)
        var sink = Collected()
        run(e, clock, until: clock.now + 1_000_000, into: &sink)
        let before = sink.samples.count
        let away = 2_000_000 + depth * p
        clock.sim.now += away   // the host is away; the FIFO overflows
        run(e, clock, until: clock.now + 1_000_000, into: &sink)
        #expect(sink.gaps.count == 1 && sink.gaps.first?.cause == .overflow, "\(sink.gaps)")
        let g = try #require(sink.gaps.first)
        #expect(g.start == Int64(before) * p && g.resume - g.start == g.lost * p)
        let jumps = zip(sink.samples, sink.samples.dropFirst()).map { $1.t - $0.t }.filter { $0 != p }
        #expect(jumps == [g.lost * p + p], "one jump, of the gap")
        // What was lost is what the chip could not keep: the time away less the FIFO's depth at
        // least (a chip that resets its FIFO on an overflow loses what it held too).
        let most = away / p
        #expect(g.lost >= most - depth - 10 && g.lost <= most + 5, "\(g.lost) samples lost of \(most)")
        #expect(e.overflows == 1)
    }

    @Test("without a FIFO, a late read bridges the missed samples without a gap; a long one is a gap")
    func bridging() throws {
        let (e, clock) = try engine(chip: "lis3dh", fifo: false)
        var sink = Collected()
        run(e, clock, until: clock.now + 500_000, into: &sink)
        clock.sim.now += 30_000   // three samples late
        run(e, clock, until: clock.now + 500_000, into: &sink)
        #expect(sink.gaps.isEmpty && e.skipped >= 2 && e.skipped <= 4, "\(e.skipped) skipped")
        clock.sim.now += 400_000   // a stall
        run(e, clock, until: clock.now + 500_000, into: &sink)
        #expect(sink.gaps.count == 1 && sink.gaps[0].cause == .stall, "\(sink.gaps)")
    }

    @Test("a pause the host took on purpose (start-up, a reload) and then resume: no stall, no fault, the time kept", arguments: [false, true])
    func resumeAfterPause(fifo: Bool) throws {
        let (e, clock) = try engine(chip: "lis3dh", fifo: fifo)
        var sink = Collected()
        // Pauses longer than a stall (0.25 s) without a FIFO; with one, within its 32 samples.
        let pause: Int64 = fifo ? 200_000 : 600_000
        clock.sim.now += pause   // starting up after the chip was configured
        e.resume(now: clock.now)
        run(e, clock, until: clock.now + 500_000, into: &sink)
        #expect(sink.gaps.isEmpty && sink.faults.isEmpty, "\(sink.gaps) \(sink.faults)")
        #expect(sink.samples.first?.t == 0, "the stream starts at the first sample read")
        let before = sink.samples.count, last = try #require(sink.samples.last).t
        clock.sim.now += pause   // a reload
        e.resume(now: clock.now)
        run(e, clock, until: clock.now + 500_000, into: &sink)
        #expect(sink.gaps.isEmpty && sink.faults.isEmpty, "\(sink.gaps) \(sink.faults)")
        let next = sink.samples[before].t
        if fifo {
            // The FIFO kept what the chip measured meanwhile: nothing skipped, nothing jumps.
            #expect(next == last + 10_000 && e.skipped == 0, "\(next - last) µs on, \(e.skipped) skipped")
        } else {
            // Skipped as between late reads: the next sample stands 0.6 s on, give or take a read.
            #expect(next - last >= 600_000 && next - last <= 620_000 && e.skipped >= 59 && e.skipped <= 61, "\(next - last) µs on, \(e.skipped) skipped")
            // Without the resume, the same pause is a stall: the checks above are live.
            clock.sim.now += pause
            run(e, clock, until: clock.now + 500_000, into: &sink)
            #expect(sink.gaps.count == 1 && sink.gaps[0].cause == .stall, "\(sink.gaps)")
        }
    }
}

struct TestDelay: Delay {
    let clock: TestClock
    mutating func delay(milliseconds: UInt32) { clock.delay(milliseconds: milliseconds) }
}
