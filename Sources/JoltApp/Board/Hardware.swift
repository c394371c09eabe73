#if canImport(Glibc)
import Glibc
#endif
import JoltChips
import JoltCore
import JoltDrivers
import JoltLinux
import JoltMotion
import JoltSim
import JoltTrace

/// The simulated side of a simulated board: its clock, bus and chip.
final class SimWorld {
    let clock = SimClock()
    let bus: SimBus
    let device: any SimulatedChip
    /// The trace's first time, µs, when playing a trace (so times match `jolt replay`).
    let origin: Int64

    init(board: BoardProfile, twin: any SimulatedChip.Type, source plain: MotionSource, origin: Int64, address: UInt8) {
        bus = SimBus(clock: clock)
        let source = board.sim.accelBias == .zero && board.sim.gyroBias == .zero
            ? plain : BiasedSource(plain, accel: board.sim.accelBias, gyro: board.sim.gyroBias)
        // An oversampled chip holds sample i of the motion from i board periods on; any other
        // makes one reading a motion sample, as it always has.
        device = twin.init(source: board.oversampled ? PacedSource(source, periodMicros: Units.periodMicros(rateMilliHz: board.rateMilliHz)) : source)
        bus.attach(device, at: address)
        bus.faults = board.sim.faults
        self.origin = origin
    }

    /// The source for a list of samples: played once (then, with `at_end: rest`, lying still
    /// where it ended up), or looped.
    static func source(board: BoardProfile, samples: [Sample]) -> MotionSource {
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
    var sourceStart: Int64? { device.sourceStart }

    /// Whether the motion has run out (the chip then repeats its last reading).
    var exhausted: Bool { device.exhausted }
}

/// An opened board: the configured sensor, and the simulated world when there is one.
final class Hardware {
    let sensor: ChipSensor
    let sim: SimWorld?
    /// The bus's name for messages: "/dev/i2c-1" or "the simulated bus".
    var busName: String { sensor.busName }
    let linuxBus: LinuxI2CBus?

    init(sensor: ChipSensor, sim: SimWorld?, linuxBus: LinuxI2CBus?) {
        self.sensor = sensor
        self.sim = sim
        self.linuxBus = linuxBus
    }

    /// Bus transactions so far (simulated bus: counted by the bus; Linux: by the adapter wrapper).
    var transactions: Int { sim?.bus.transactions ?? linuxBus?.transactions ?? 0 }

    /// The stream time of the first sample, µs: a played recording's first time, else 0.
    var origin: Int64 { sim?.origin ?? 0 }

    /// Whether the data has run out: a played motion that ended. A real chip never does.
    var exhausted: Bool { sim?.exhausted ?? false }

    /// Until when the host cannot poll (an injected stall on the simulated board), if it cannot now.
    func pollBlocked(at now: Int64) -> Int64? { sim?.bus.stallEnd(at: now) }

    /// Whether the chip is a simulated one.
    var isSimulated: Bool { sim != nil }

    /// The board's clock: real time, or (`fast`, simulated boards only) simulated time that
    /// jumps from deadline to deadline.
    func clock(fast: Bool, board: BoardProfile) throws(JoltError) -> RunClock {
        if fast && sim == nil { throw JoltError(.usage, "--fast runs simulated time; \(board.file) is real hardware on \(board.bus)") }
        return RunClock(virtual: fast, sim: sim?.clock)
    }

    /// A board output: a GPIO line on the character device, or a simulated one on a simulated
    /// board (its changes logged).
    func output(_ line: NamedLine) throws(JoltError) -> OutputLine {
        sim != nil ? SimOutput(name: line.name, spec: line.line) : try ChardevOutput(name: line.name, spec: line.line)
    }

    /// A board input, likewise.
    func input(_ line: NamedLine) throws(JoltError) -> InputLine {
        sim != nil ? SimInput(name: line.name, spec: line.line) : try ChardevInput(name: line.name, spec: line.line)
    }

    /// Opens the board's bus, finds its chip and builds the sensor (not yet configured).
    /// `trace` (simulated boards) plays a recording instead of the board's script; its rate
    /// becomes the board's.
    static func open(_ board: BoardProfile, trace: String? = nil, source: MotionSource? = nil) throws(JoltError) -> Hardware {
        var board = board
        if board.isSimulated {
            return try openSim(&board, trace: trace ?? board.sim.trace.map { BoardProfile.resolve($0, against: board.file) }, source: source)
        }
        if trace != nil {
            throw JoltError(.usage, "--trace plays a recording on the simulated board only; \(board.file) uses \(board.bus)")
        }
        let bus = try openLinuxBus(board.bus)
        let (chip, address) = try locate(board, bus: bus)
        let sensor = try makeSensor(chip, bus: bus, busName: bus.path, address: address, board: board)
        return Hardware(sensor: sensor, sim: nil, linuxBus: bus)
    }

    /// The sensor for `chip`, or the board's error when the chip cannot do its settings.
    static func makeSensor(_ chip: Chip, bus: any I2CBus, busName: String, address: UInt8, board: BoardProfile) throws(JoltError) -> ChipSensor {
        do {
            return try ChipSensor(chip, bus: bus, busName: busName, address: address, settings: board.sensorSettings, oversample: board.oversampled)
        } catch {
            throw JoltError(.config, "\(board.file.isEmpty ? "board" : board.file): \(error.message)")
        }
    }

    static func openSim(_ board: inout BoardProfile, trace: String?, source given: MotionSource? = nil) throws(JoltError) -> Hardware {
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
        } else if let trace {
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
        let sensor = try makeSensor(chip, bus: world.bus, busName: "the simulated bus", address: address, board: board)
        return Hardware(sensor: sensor, sim: world, linuxBus: nil)
    }

    /// Opens a Linux I2C bus, turning failures into errors a person can act on.
    static func openLinuxBus(_ path: String) throws(JoltError) -> LinuxI2CBus {
        do {
            return try LinuxI2CBus(path: path)
        } catch {
            let p = LinuxI2CPath.normalize(path) ?? path
            switch (error.step, error.errno) {
            case ("open", .noEntry):
                throw JoltError(.unavailable, "no I2C bus \(p): enable I2C (raspi-config → Interface Options → I2C, or dtparam=i2c_arm=on in /boot/firmware/config.txt) and reboot")
            case ("open", .accessDenied), ("open", .permitted):
                throw JoltError(.noPermission, "permission denied opening \(p): add the user to the i2c group (sudo adduser $USER i2c) and log in again")
            case ("capabilities", _):
                throw JoltError(.unavailable, "\(p): the adapter does neither plain I2C nor SMBus I2C-block reads; Jolt cannot read a chip through it")
            default:
                throw JoltError(.unavailable, "\(p): \(error.step) failed: \(error.errno) (\(error.errno.name))")
            }
        }
    }

    /// The chip and address to use: as the board says, or found by probing.
    static func locate(_ board: BoardProfile, bus: LinuxI2CBus) throws(JoltError) -> (Chip, UInt8) {
        var b = bus
        if let name = board.chip, let chip = ChipRegistry.named(name) {
            return (chip, board.address ?? chip.info.addresses[0])
        }
        let candidates = board.address.map { a in ChipProbe.candidates.filter { $0.address == a } } ?? ChipProbe.candidates
        if let found = ChipProbe.locate(&b, among: candidates) { return found }
        throw JoltError(.unavailable, "no supported chip answers on \(bus.path) (tried \(candidates.map { "0x" + hex($0.address) }.joined(separator: ", "))): check the wiring (3.3 V pin 1, SDA pin 3, SCL pin 5, GND pin 6) and run 'jolt probe'")
    }
}

/// Turns a chip driver's failure into one line naming the chip, the address, the bus and the fix.
func chipError(_ e: ChipError, _ sensor: ChipSensor) -> JoltError {
    if case .bus(let err, _) = e, err.kind == .other(EBUSY) {
        return JoltError(.tempFailure, "0x\(hex(sensor.address)) on \(sensor.busName) is claimed by a kernel driver: unbind it (e.g. remove a dtoverlay for the chip) so Jolt can use the chip")
    }
    let f = sensor.describe(e)
    return JoltError(f.kind == .settings ? .config : .unavailable, f.message)
}

extension BoardProfile {
    /// Whether the chip is read faster than `rate_hz` and its readings filtered down: below 50 Hz,
    /// when the alarm watches for tamper. The filter keeps a counter's ring from folding into a
    /// push there (docs/detection.md); it also takes a quarter off a fast gentle shake, so a
    /// board that only watches for gestures is read at its rate.
    var oversampled: Bool {
        rateMilliHz < Oversampler.belowMilliHz && alarm?.settings.triggers.contains(.tamper) == true
    }

    /// What the board asks of its chip, in physical units.
    var sensorSettings: SensorSettings {
        SensorSettings(rateMilliHz: rateMilliHz, accelRangeG: accelRangeG, gyroRangeDps: gyroRangeDps, fifo: fifo)
    }
}
