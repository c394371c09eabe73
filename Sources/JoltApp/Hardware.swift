#if canImport(Glibc)
import Glibc
#endif
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
    let device: FaultableDevice
    /// The trace's first time, µs, when playing a trace (so times match `jolt replay`).
    let origin: Int64

    init(board: BoardProfile, source plain: MotionSource, origin: Int64, address: UInt8) {
        bus = SimBus(clock: clock)
        let source = board.sim.accelBias == .zero && board.sim.gyroBias == .zero
            ? plain : BiasedSource(plain, accel: board.sim.accelBias, gyro: board.sim.gyroBias)
        switch board.sim.chip {
        case .mpu6050: device = SimMPU6050(source: source)
        case .adxl345: device = SimADXL345(source: source)
        }
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
    var sourceStart: Int64? {
        if let d = device as? SimMPU6050 { return d.sourceStart }
        if let d = device as? SimADXL345 { return d.sourceStart }
        return nil
    }

    /// Whether the motion has run out (the chip then repeats its last reading).
    var exhausted: Bool {
        if let d = device as? SimMPU6050 { return d.exhausted }
        if let d = device as? SimADXL345 { return d.exhausted }
        return false
    }
}

/// An opened board: the configured sensor, and the simulated world when there is one.
final class Hardware {
    let sensor: Sensor
    let sim: SimWorld?
    /// The bus's name for messages: "/dev/i2c-1" or "the simulated bus".
    let busName: String
    let linuxBus: LinuxI2CBus?

    init(sensor: Sensor, sim: SimWorld?, busName: String, linuxBus: LinuxI2CBus?) {
        self.sensor = sensor
        self.sim = sim
        self.busName = busName
        self.linuxBus = linuxBus
    }

    /// Bus transactions so far (simulated bus: counted by the bus; Linux: by the adapter wrapper).
    var transactions: Int { sim?.bus.transactions ?? linuxBus?.transactions ?? 0 }

    /// Opens the board's bus, finds its chip and builds the sensor (not yet configured).
    /// `trace` (simulated boards) plays a recording instead of the board's script; its rate
    /// becomes the board's.
    static func open(_ board: BoardProfile, trace: String? = nil, source: MotionSource? = nil) throws(JoltError) -> Hardware {
        var board = board
        if board.isSimulated {
            return try openSim(&board, trace: trace ?? board.sim.trace.map { resolve($0, against: board.file) }, source: source)
        }
        if trace != nil {
            throw JoltError(.usage, "--trace plays a recording on the simulated board only; \(board.file) uses \(board.bus)")
        }
        let bus = try openLinuxBus(board.bus)
        let (chip, address) = try locate(board, bus: bus)
        let sensor: Sensor
        switch chip {
        case .mpu6050: sensor = try MPU6050Sensor(bus: bus, address: address, board: board)
        case .adxl345: sensor = try ADXL345Sensor(bus: bus, address: address, board: board)
        }
        return Hardware(sensor: sensor, sim: nil, busName: bus.path, linuxBus: bus)
    }

    static func resolve(_ path: String, against file: String) -> String {
        if path.hasPrefix("/") || file.isEmpty { return path }
        guard let slash = file.lastIndex(of: "/") else { return path }
        return String(file[..<slash]) + "/" + path
    }

    static func openSim(_ board: inout BoardProfile, trace: String?, source given: MotionSource? = nil) throws(JoltError) -> Hardware {
        let chip = board.chip ?? board.sim.chip
        board.sim.chip = chip
        let address = board.address ?? (chip == .mpu6050 ? MPU6050Spec.addressLow : ADXL345Spec.addressLow)
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
        let world = SimWorld(board: board, source: given ?? SimWorld.source(board: board, samples: samples), origin: origin, address: address)
        let sensor: Sensor
        switch chip {
        case .mpu6050: sensor = try MPU6050Sensor(bus: world.bus, address: address, board: board)
        case .adxl345: sensor = try ADXL345Sensor(bus: world.bus, address: address, board: board)
        }
        return Hardware(sensor: sensor, sim: world, busName: "the simulated bus", linuxBus: nil)
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
    static func locate(_ board: BoardProfile, bus: LinuxI2CBus) throws(JoltError) -> (ChipKind, UInt8) {
        var b = bus
        if let chip = board.chip {
            return (chip, board.address ?? (chip == .mpu6050 ? MPU6050Spec.addressLow : ADXL345Spec.addressLow))
        }
        let candidates = board.address.map { a in ChipProbe.candidates.filter { $0.address == a } } ?? ChipProbe.candidates
        for c in candidates {
            switch ChipProbe.probe(&b, address: c.address) {
            case .mpu6050, .mpu6050Compatible: return (.mpu6050, c.address)
            case .adxl345: return (.adxl345, c.address)
            default: continue
            }
        }
        throw JoltError(.unavailable, "no supported chip answers on \(bus.path) (tried \(candidates.map { "0x" + hex($0.address) }.joined(separator: ", "))): check the wiring (3.3 V pin 1, SDA pin 3, SCL pin 5, GND pin 6) and run 'jolt probe'")
    }
}

/// Turns a chip driver's failure into one line naming the chip, the address, the bus and the fix.
func chipError(_ e: ChipError, _ sensor: Sensor, bus: String) -> JoltError {
    let name = sensor.chip == .mpu6050 ? "MPU6050" : "ADXL345"
    let at = "0x" + hex(sensor.address)
    switch e {
    case .bus(let err, let reg):
        let what = registerName(sensor.chip, reg)
        switch err.kind {
        case .noAcknowledge:
            let alt = sensor.chip == .mpu6050 ? "AD0 high makes it 0x69" : "ALT ADDRESS high makes it 0x1D"
            return JoltError(.unavailable, "no \(name) at \(at) on \(bus): no acknowledge reading \(what) — check the wiring (3.3 V pin 1, SDA pin 3, SCL pin 5, GND pin 6), the address (\(alt)), and run 'jolt probe'")
        case .other(let code) where code == EBUSY:
            return JoltError(.tempFailure, "\(at) on \(bus) is claimed by a kernel driver: unbind it (e.g. remove a dtoverlay for the chip) so Jolt can use the chip")
        default:
            return JoltError(.unavailable, "\(err.kind.words) talking to the \(name) at \(at) on \(bus) (\(what)): check the wiring and the pull-ups, then try again")
        }
    case .wrongID(let found):
        let reg = sensor.chip == .mpu6050 ? "WHO_AM_I" : "DEVID"
        let expected = sensor.chip == .mpu6050 ? "0x68" : "0xE5"
        let hint = sensor.chip == .mpu6050 && found == 0x00 ? " (all zeros: a chip that is not powered, or not an MPU6050)" : (sensor.chip == .mpu6050 ? " (an RTC such as a DS3231 also lives at 0x68)" : "")
        return JoltError(.unavailable, "no \(name) at \(at) on \(bus): \(reg) read 0x\(hex(found)), expected \(expected)\(hint) — run 'jolt probe' to see what answers")
    case .resetTimeout(let reg, let v):
        return JoltError(.unavailable, "the \(name) at \(at) on \(bus) did not finish its reset: \(registerName(sensor.chip, reg)) still 0x\(hex(v)) after 1 s — power-cycle the board")
    case .unsupportedRate(let r):
        return JoltError(.config, "the \(name) cannot sample at \(hz(r)) Hz")
    case .notApplied(let reg, let w, let r):
        return JoltError(.unavailable, "the \(name) at \(at) on \(bus) did not keep its configuration: \(registerName(sensor.chip, reg)) wrote 0x\(hex(w)), read 0x\(hex(r)) — is another chip answering at this address?")
    }
}

/// A register's datasheet name with its address: "WHO_AM_I (0x75)".
func registerName(_ chip: ChipKind, _ reg: UInt8) -> String {
    let names: [UInt8: String]
    switch chip {
    case .mpu6050:
        names = [0x19: "SMPLRT_DIV", 0x1A: "CONFIG", 0x1B: "GYRO_CONFIG", 0x1C: "ACCEL_CONFIG", 0x23: "FIFO_EN",
                 0x38: "INT_ENABLE", 0x3A: "INT_STATUS", 0x3B: "ACCEL_XOUT_H", 0x6A: "USER_CTRL", 0x6B: "PWR_MGMT_1",
                 0x72: "FIFO_COUNTH", 0x74: "FIFO_R_W", 0x75: "WHO_AM_I"]
    case .adxl345:
        names = [0x00: "DEVID", 0x2C: "BW_RATE", 0x2D: "POWER_CTL", 0x2E: "INT_ENABLE", 0x30: "INT_SOURCE",
                 0x31: "DATA_FORMAT", 0x32: "DATAX0", 0x38: "FIFO_CTL", 0x39: "FIFO_STATUS"]
    }
    return "\(names[reg] ?? "register") (0x\(hex(reg)))"
}
