import JoltActions
import JoltBoard
import JoltChips
import JoltConfig
import JoltCore
import JoltDrivers
import JoltMotion
import JoltSim
import JoltSupport
import JoltTrace
import JoltLinux

/// The simulated side of a simulated board: its clock, bus and chip.
package final class SimWorld {
    package let clock = SimClock()
    package let bus: SimBus
    package let device: any SimulatedChip
    /// The trace's first time, µs, when playing a trace (so times match `jolt replay`).
    package let origin: Int64

    package init(board: BoardProfile, twin: any SimulatedChip.Type, source plain: MotionSource, origin: Int64, address: UInt8) {
        bus = SimBus(clock: clock)
        let source = board.sim.accelBias == .zero && board.sim.gyroBias == .zero
            ? plain : BiasedSource(plain, accel: board.sim.accelBias, gyro: board.sim.gyroBias)
        // An oversampled chip holds sample i of the motion from i board periods on; any other
        // makes one reading a motion sample, as it always has.
        device = twin.init(source: board.oversampled ? PacedSource(source, periodMicros: Units.periodMicros(rateMilliHz: board.rateMilliHz)) : source)
        if board.sim.selfTestFails { device.selfTestGainPercent = 5 }
        bus.attach(device, at: address)
        bus.faults = board.sim.faults.map(SimFault.init)
        self.origin = origin
    }

    /// The source for a list of samples: played once (then, with `at_end: rest`, lying still
    /// where it ended up), or looped.
    package static func source(board: BoardProfile, samples: [Sample]) -> MotionSource {
        guard board.sim.atEnd == "rest" && !board.sim.loop, let last = samples.last else {
            return SampleListSource(samples, loop: board.sim.loop)
        }
        let rate = 1e9 / Double(Units.periodMicros(rateMilliHz: board.rateMilliHz)) / 1000
        var m = Motion(rate: rate, seed: 99)
        m.up = V3(Double(last.accel.x), Double(last.accel.y), Double(last.accel.z)).unit
        m.t = Double(last.t) / 1e6 + m.dt
        var first: [Sample]? = samples
        return GeneratedSource {
            if let f = first {
                first = nil
                return f
            }
            m.rest(1)
            return m.take()
        }
    }

    /// Sim time of source sample 0, µs (known once the chip has made its first sample); sample i
    /// is made at `sourceStart + (i + 1) × period`.
    package var sourceStart: Int64? { device.sourceStart }

    /// Whether the motion has run out (the chip then repeats its last reading).
    package var motionEnded: Bool { device.exhausted }
}

/// The simulated board: a twin of the board's chip on a simulated bus, playing a motion (the
/// board's script, a trace, or the caller's), with the faults the board injects, on a clock that
/// follows real time or jumps (`--fast`); its lines log their changes.
package final class SimBoard: Board {
    package let sensor: ChipSensor
    package let world: SimWorld
    package let clock: RunClock

    package init(sensor: ChipSensor, world: SimWorld, fast: Bool = false) {
        self.sensor = sensor
        self.world = world
        clock = RunClock(virtual: fast, sim: world)
    }

    /// Bus transactions so far, counted by the simulated bus.
    package var transactions: Int { world.bus.transactions }
    package var exclusiveNode: String? { nil }
    package func output(_ line: NamedLine) throws(JoltError) -> OutputLine { SimOutput(name: line.name, spec: line.line) }
    package func input(_ line: NamedLine) throws(JoltError) -> InputLine { SimInput(name: line.name, spec: line.line) }
    package func interrupt(_ line: InterruptLine) throws(JoltError) -> InterruptPin {
        SimInterruptPin(spec: line, device: world.device, stepMicros: sensor.readPeriodMicros)
    }

    /// Opens the simulated board. `trace` plays a recording instead of the board's script (its
    /// rate becomes the board's); `source`, the caller's motion (a soak); `fast`, on simulated
    /// time that jumps from deadline to deadline rather than following real time.
    package static func open(_ board: BoardProfile, trace: String? = nil, source given: MotionSource? = nil, fast: Bool = false) throws(JoltError) -> SimBoard {
        var board = board
        let name = board.chip ?? board.sim.chip
        board.sim.chip = name
        guard let chip = ChipRegistry.named(name), let twin = SimulatedChips.twin(of: name) else {
            throw JoltError(.config, "\(board.file): no simulated \(name)")
        }
        let address = board.address ?? chip.info.addresses[0]
        var samples: [Sample] = []
        var origin: Int64 = 0
        if given != nil {
            // The caller's motion (a soak): nothing to read.
        } else if let trace = trace ?? board.sim.trace.map({ BoardProfile.resolve($0, against: board.file) }) {
            let f = try TraceFile(path: trace)
            board.rateMilliHz = f.rateMilliHz
            while let s = try f.next() { samples.append(s) }
            guard let first = samples.first else { throw JoltError(.dataError, "\(trace): no samples to play") }
            origin = first.t
        } else {
            let script = MotionScript(rawValue: board.sim.motion) ?? .demo
            samples = script.samples(rateHz: Double(board.rateMilliHz) / 1000)
        }
        let world = SimWorld(board: board, twin: twin, source: given ?? SimWorld.source(board: board, samples: samples), origin: origin, address: address)
        let sensor = try LinuxBoard.makeSensor(chip, bus: world.bus, busName: "the simulated bus", address: address, board: board)
        return SimBoard(sensor: sensor, world: world, fast: fast)
    }
}

/// The simulated world as the run's clock sees it: its time, its motion's end, its stalls.
extension SimWorld: SimulatedWorld {
    package var now: Int64 {
        get { clock.now }
        set { clock.now = newValue }
    }
    package func stallEnd(at t: Int64) -> Int64? { bus.stallEnd(at: t) }
}

extension SimFault {
    /// A fault the board's `sim.faults` names, for the simulated bus.
    package init(_ spec: SimFaultSpec) {
        let kind: Kind
        switch spec.kind {
        case .noAcknowledge: kind = .noAcknowledge
        case .ioError: kind = .ioError
        case .timeout: kind = .timeout
        case .frozen: kind = .frozen
        case .reset: kind = .reset
        case .stall: kind = .stall
        }
        self.init(kind, from: spec.from, to: spec.to)
    }
}
