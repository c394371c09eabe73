#if canImport(Glibc)
import Glibc
#endif
import JoltChips
import JoltJSON
import JoltCore
import JoltLinux
import JoltSim
import JoltTrace

/// A board profile (`boards/*.json`): which bus and chip, how it is mounted, how detection is
/// tuned, and (later sections) what to do on each event.
public struct BoardProfile: Sendable, Equatable {
    /// The file it was read from ("" for the built-in defaults).
    public var file = ""
    /// A short name for logs.
    public var name = "board"
    /// The I2C bus: a path like /dev/i2c-1, or "sim" for the simulated bus.
    public var bus = "sim"
    /// The chip, by its registry name ("mpu6050"), or nil to detect it.
    public var chip: String?
    /// The chip's 7-bit address, or nil for the chip's default (or to detect it).
    public var address: UInt8?
    /// Output data rate, mHz.
    public var rateMilliHz: Int32 = 100_000
    /// Accelerometer full scale, g (2, 4, 8, 16).
    public var accelRangeG: Int32 = 4
    /// Gyroscope full scale, °/s (250, 500, 1000, 2000); MPU6050 only.
    public var gyroRangeDps: Int32 = 500
    /// Whether to read through the chip's FIFO (batched reads, fewer wake-ups).
    public var fifo = true
    /// How often the FIFO is drained, ms.
    public var fifoPollMillis: Int32 = 200
    /// How the chip sits in the enclosure, with calibration offsets.
    public var mount = Mount.identity
    /// Detection settings (the rate and gyro flag are filled in for each stream).
    public var detection = DetectionSettings(rateMilliHz: 100_000, gyro: true)
    /// The simulated board's settings (bus "sim").
    public var sim = SimSettings()
    /// The MQTT link, when the board has one.
    public var mqtt: MQTTConfig?
    /// Named outputs (GPIO lines Jolt drives).
    public var outputs: [NamedLine] = []
    /// Named inputs (GPIO lines Jolt reads).
    public var inputs: [NamedLine] = []
    /// What each event does; nil: every event is printed on stdout.
    public var actions: [EventBinding]?
    /// The theft alarm, when the board has one.
    public var alarm: AlarmConfig?
    /// The control socket.
    public var control = ControlConfig()

    public init() {}

    /// Whether the bus is the simulated one.
    public var isSimulated: Bool { bus == "sim" }
}

/// What the simulated board plays.
public struct SimSettings: Sendable, Equatable {
    /// The simulated chip, by its registry name.
    public var chip = "mpu6050"
    /// A built-in motion script: "demo", "rest", "lift", "shake", "flip".
    public var motion = "demo"
    /// A trace to play instead of a script (path relative to the board file's folder).
    public var trace: String?
    /// Whether the script repeats forever.
    public var loop = false
    /// At the end of the motion: "exit" (stop the run) or "rest" (lie still until stopped).
    public var atEnd = "exit"
    /// Faults to inject on the simulated bus, to watch Jolt ride them out.
    public var faults: [SimFault] = []
    /// The simulated chip's zero-g offset (mg) and gyro bias (mdps), chip axes.
    public var accelBias = Vec3.zero, gyroBias = Vec3.zero
    public init() {}
}

extension Sensitivity {
    /// The preset named `low`, `medium` or `high`.
    public init?(name: String) {
        switch name {
        case "low": self = .low
        case "medium": self = .medium
        case "high": self = .high
        default: return nil
        }
    }
}

extension BoardProfile {
    /// The text of boards/sim.json, built in so that `jolt run` works from anywhere. A test
    /// checks the two are the same.
    public static let builtInSimText = #"""
{
  "name": "simulated MPU6050",
  "description": "A simulated MPU6050 on a simulated bus playing a built-in demo: rest, a shake, rest, a flip face down, rest, and back. What 'jolt run' uses when there is no hardware. The ±16 g range keeps played traces from clipping.",
  "bus": "sim",
  "chip": "mpu6050",
  "address": "0x68",
  "rate_hz": 100,
  "accel_range_g": 16,
  "gyro_range_dps": 2000,
  "fifo": true,
  "fifo_poll_ms": 200,
  "sim": { "chip": "mpu6050", "motion": "demo" },
  "detection": { "sensitivity": "medium" }
}
"""#

    /// The simulated board, from the built-in copy of boards/sim.json.
    public static var builtInSim: BoardProfile {
        // The built-in text is checked by the tests; it cannot fail to parse.
        (try? parse(Array(builtInSimText.utf8), file: "boards/sim.json (built in)")) ?? BoardProfile()
    }

    /// Reads and validates a board profile. Nothing is opened or touched besides the file.
    /// `sensitivity`, when given, replaces the file's `detection.sensitivity` (its explicit
    /// numbers still apply on top).
    public static func load(path: String, sensitivity: Sensitivity? = nil) throws(JoltError) -> BoardProfile {
        let bytes = try readFile(path, what: "board profile", missingHint: "see boards/ for examples")
        return try parse(bytes, file: path, sensitivity: sensitivity)
    }

    /// Parses a board profile from its text.
    public static func parse(_ bytes: [UInt8], file: String, sensitivity: Sensitivity? = nil) throws(JoltError) -> BoardProfile {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw JoltError(.config, "\(file):\(error.line):\(error.column): not valid JSON: \(error.message)")
        }
        var b = BoardProfile()
        b.file = file
        let r = try ObjectReader(file: file, path: "", node: root)
        if let n = try r.string("name") { b.name = n }
        _ = try r.string("description")
        if let bus = try r.string("bus") {
            guard bus == "sim" || LinuxI2CPath.normalize(bus) != nil else {
                throw r.fail("bus", r.node("bus"), "must be \"sim\" or an I2C bus like \"1\", \"i2c-1\" or \"/dev/i2c-1\", found \"\(bus)\"")
            }
            b.bus = bus == "sim" ? "sim" : LinuxI2CPath.normalize(bus)!
        }
        if let c = try r.choice("chip", ChipRegistry.names + ["auto"]) { b.chip = c == "auto" ? nil : c }
        if let n = r.node("address") {
            b.address = try parseAddress(n) { m throws(JoltError) in r.fail("address", n, m) }
        }
        if let hz = try r.milli("rate_hz", 12_500...1_000_000, "Hz") { b.rateMilliHz = hz }
        if let g = try r.integer("accel_range_g", 2...16, "g") {
            guard [2, 4, 8, 16].contains(g) else { throw r.fail("accel_range_g", r.node("accel_range_g"), "must be 2, 4, 8 or 16 (g), found \(g)") }
            b.accelRangeG = g
        }
        if let d = try r.integer("gyro_range_dps", 250...2000, "°/s") {
            guard [250, 500, 1000, 2000].contains(d) else { throw r.fail("gyro_range_dps", r.node("gyro_range_dps"), "must be 250, 500, 1000 or 2000 (°/s), found \(d)") }
            b.gyroRangeDps = d
        }
        if let f = try r.bool("fifo") { b.fifo = f }
        if let p = try r.integer("fifo_poll_ms", 10...1000, "ms") { b.fifoPollMillis = p }
        if let m = try r.object("mount") { b.mount = try parseMount(m) }
        if let o = try r.object("offsets") {
            let (a, g) = try parseOffsets(o)
            b.mount.accelOffset = a
            b.mount.gyroOffset = g
        }
        b.detection = try parseDetection(try r.object("detection"), sensitivity: sensitivity)
        if let s = try r.object("sim") { b.sim = try parseSim(s) }
        b.outputs = try parseLines(try r.object("outputs"), input: false)
        b.inputs = try parseLines(try r.object("inputs"), input: true)
        let outs = b.outputs.map(\.name), ins = b.inputs.map(\.name)
        b.actions = try parseActions(try r.object("actions"), outputs: outs)
        b.alarm = try parseAlarm(try r.object("alarm"), outputs: outs, inputs: ins)
        b.control = try parseControl(try r.object("control"))
        if let m = try r.object("mqtt") { b.mqtt = try parseMQTT(m) }
        try r.finish()
        return b
    }

    static func parseAddress(_ n: JSONNode, fail: (String) throws(JoltError) -> JoltError) throws(JoltError) -> UInt8 {
        var value: Int64?
        switch n.value {
        case .string(let s):
            let t = s.lowercased()
            if t.hasPrefix("0x") { value = Int64(t.dropFirst(2), radix: 16) } else { value = Int64(t) }
        case .number(let s):
            value = Int64(s)
        default:
            break
        }
        guard let v = value, (0x03...0x77).contains(v) else {
            throw try fail("must be a 7-bit I2C address from 0x03 to 0x77, like \"0x68\"")
        }
        return UInt8(v)
    }

    static func parseMount(_ r: ObjectReader) throws(JoltError) -> Mount {
        var source: [UInt8] = [0, 1, 2]
        var sign: [Int32] = [1, 1, 1]
        for (i, axis) in ["x", "y", "z"].enumerated() {
            guard let s = try r.string(axis) else { continue }
            let t = s.lowercased()
            let body: Substring
            if t.hasPrefix("-") { sign[i] = -1; body = t.dropFirst() } else if t.hasPrefix("+") { body = t.dropFirst() } else { body = Substring(t) }
            guard let idx = ["x", "y", "z"].firstIndex(of: String(body)) else {
                throw r.fail(axis, r.node(axis), "must name a chip axis with its sign, like \"+x\" or \"-z\", found \"\(s)\"")
            }
            source[i] = UInt8(idx)
        }
        try r.finish()
        guard Set(source).count == 3 else {
            throw JoltError(.config, "\(r.file):\(r.line): \(r.path): each chip axis must be used once (found \(source.map { ["x", "y", "z"][Int($0)] }))")
        }
        guard let m = Mount(source: (source[0], source[1], source[2]), sign: (sign[0], sign[1], sign[2])) else {
            throw JoltError(.config, "\(r.file):\(r.line): \(r.path): this mapping is a mirror image, which no mounting can produce; flip the sign of one axis")
        }
        return m
    }

    static func parseOffsets(_ r: ObjectReader) throws(JoltError) -> (Vec3, Vec3) {
        let v = try parseTriples(r, accelKey: "accel_g", gyroKey: "gyro_dps")
        try r.finish()
        return v
    }

    /// Two optional [x, y, z] lists: an acceleration in g (±2) and a rotation rate in °/s (±100).
    static func parseTriples(_ r: ObjectReader, accelKey: String, gyroKey: String) throws(JoltError) -> (Vec3, Vec3) {
        func triple(_ key: String, _ unit: String, _ limit: Int64) throws(JoltError) -> Vec3 {
            guard let n = r.node(key) else { return .zero }
            guard case .array(let items) = n.value, items.count == 3 else {
                throw r.fail(key, n, "must be a list of three numbers [x, y, z] (\(unit))")
            }
            var v: [Int32] = []
            for item in items {
                let x = try ObjectReader.fixed(item, places: 3, range: -limit...limit, unit: unit) { m throws(JoltError) in r.fail(key, item, m) }
                v.append(Int32(x))
            }
            return Vec3(v[0], v[1], v[2])
        }
        return (try triple(accelKey, "g", 2000), try triple(gyroKey, "°/s", 100_000))
    }

    static func parseSim(_ r: ObjectReader) throws(JoltError) -> SimSettings {
        var s = SimSettings()
        if let c = try r.choice("chip", ChipRegistry.names) { s.chip = c }
        if let m = try r.choice("motion", ["demo", "rest", "lift", "shake", "flip"]) { s.motion = m }
        if let t = try r.string("trace") {
            guard !t.isEmpty else { throw r.fail("trace", r.node("trace"), "must be a path to a jolt-trace file") }
            s.trace = t
        }
        if let l = try r.bool("loop") { s.loop = l }
        if let e = try r.choice("at_end", ["exit", "rest"]) { s.atEnd = e }
        let (a, g) = try parseTriples(r, accelKey: "accel_bias_g", gyroKey: "gyro_bias_dps")
        (s.accelBias, s.gyroBias) = (a, g)
        if let n = r.node("faults") {
            guard case .array(let items) = n.value else {
                throw r.fail("faults", n, "must be a list like [{\"kind\": \"unplug\", \"at_s\": 5, \"for_s\": 3}]")
            }
            for (i, item) in items.enumerated() {
                let f = try ObjectReader(file: r.file, path: r.fieldPath("faults") + "[\(i)]", node: item)
                s.faults.append(try parseFault(f))
            }
        }
        try r.finish()
        return s
    }

    /// The names of injectable faults, as a board file spells them.
    static let faultKinds: [(String, SimFault.Kind)] = [
        ("unplug", .noAcknowledge), ("io_error", .ioError), ("timeout", .timeout), ("frozen", .frozen), ("reset", .reset), ("stall", .stall),
    ]

    /// One `sim.faults` entry: `{"kind": "unplug", "at_s": 5, "for_s": 3}` (a reset has no length).
    static func parseFault(_ r: ObjectReader) throws(JoltError) -> SimFault {
        guard let k = try r.choice("kind", faultKinds.map(\.0)) else {
            throw r.fail("kind", nil, "missing: one of \(faultKinds.map(\.0).joined(separator: ", "))")
        }
        let kind = faultKinds.first { $0.0 == k }!.1
        guard let at = try r.fixed("at_s", places: 6, range: 0...31_536_000_000_000, unit: "s") else {
            throw r.fail("at_s", nil, "missing: when the fault starts, seconds from the start of the run")
        }
        var length: Int64 = 0
        if kind != .reset {
            guard let l = try r.fixed("for_s", places: 6, range: 1_000...31_536_000_000_000, unit: "s") else {
                throw r.fail("for_s", nil, "missing: how long the fault lasts, seconds")
            }
            length = l
        }
        try r.finish()
        return SimFault(kind, from: at, to: at + length)
    }

    /// Reads the `detection` section (absent: the medium preset).
    static func parseDetection(_ r: ObjectReader?, sensitivity override: Sensitivity? = nil) throws(JoltError) -> DetectionSettings {
        var sensitivity = Sensitivity.medium
        if let r, let s = try r.choice("sensitivity", ["low", "medium", "high"]) {
            sensitivity = Sensitivity(name: s)!
        }
        var d = DetectionSettings(sensitivity: override ?? sensitivity, rateMilliHz: 100_000, gyro: true)
        guard let r else { return d }
        if let t = try r.integer("gravity_tau_ms", 50...10_000, "ms") { d.gravityTauMillis = t }
        if let s = try r.object("shake") { try parseShake(s, &d) }
        if let f = try r.object("flip") { try parseFlip(f, &d) }
        if let t = try r.object("tamper") { try parseTamper(t, &d) }
        try r.finish()
        return d
    }

    static func parseShake(_ r: ObjectReader, _ d: inout DetectionSettings) throws(JoltError) {
        if let a = try r.choice("algorithm", ShakeAlgorithm.allCases.map { "\($0.name)" }) {
            d.shakeAlgorithm = ShakeAlgorithm.allCases.first { "\($0.name)" == a }!
        }
        var s = d.shake
        if let v = try r.milli("threshold_g", 50...16_000, "g") { s.thresholdMilliG = v }
        if let v = try r.milli("strong_g", 50...32_000, "g") { s.strongMilliG = v }
        if let v = try r.milli("hysteresis_g", 20...8_000, "g") { s.hysteresisMilliG = v }
        if let v = try r.integer("min_lobes", 2...12) { s.minLobes = v }
        if let v = try r.integer("min_half_period_ms", 5...1000, "ms") { s.minHalfPeriodMillis = v }
        if let v = try r.integer("max_half_period_ms", 20...2000, "ms") { s.maxHalfPeriodMillis = v }
        if let v = try r.fixed("max_half_period_ratio", places: 2, range: 100...1000, unit: "") { s.maxHalfPeriodRatioPercent = Int32(v) }
        if let v = try r.integer("quiet_ms", 50...10_000, "ms") { s.quietMillis = v }
        if let v = try r.integer("quiet_before_ms", 0...10_000, "ms") { s.quietBeforeMillis = v }
        if let v = try r.fixed("opposition", places: 2, range: 0...100, unit: "") { s.oppositionPercent = Int32(v) }
        if let v = try r.fixed("fill", places: 2, range: 0...100, unit: "") { s.fillPercent = Int32(v) }
        if let v = try r.fixed("clipped_opposition", places: 2, range: 0...100, unit: "") { s.clippedOppositionPercent = Int32(v) }
        if let v = try r.integer("refractory_ms", 0...60_000, "ms") {
            s.refractoryMillis = v
            d.phoneShake.refractoryMillis = v
        }
        if let v = try r.integer("max_duration_ms", 200...600_000, "ms") { s.maxDurationMillis = v }
        if s.hysteresisMilliG >= s.thresholdMilliG {
            throw r.fail("hysteresis_g", r.node("hysteresis_g"), "must be below threshold_g (\(g(s.hysteresisMilliG)) ≥ \(g(s.thresholdMilliG)) g)")
        }
        if s.strongMilliG < s.thresholdMilliG {
            throw r.fail("strong_g", r.node("strong_g"), "must be at least threshold_g (\(g(s.strongMilliG)) < \(g(s.thresholdMilliG)) g)")
        }
        if s.maxHalfPeriodMillis <= s.minHalfPeriodMillis {
            throw r.fail("max_half_period_ms", r.node("max_half_period_ms"), "must be above min_half_period_ms (\(s.maxHalfPeriodMillis) ≤ \(s.minHalfPeriodMillis))")
        }
        d.shake = s
        var p = d.phoneShake
        if let v = try r.milli("axis_threshold_g", 100...32_000, "g") { p.axisThresholdMilliG = v }
        if let v = try r.fixed("lowpass_factor", places: 3, range: 1...1000, unit: "") { p.lowpassFactorPerMille = Int32(v) }
        if let v = try r.milli("lowpass_delta_g", 10...16_000, "g") { p.lowpassDeltaMilliG = v }
        if let v = try r.milli("planar_g", 100...32_000, "g") { p.planarMilliG = v }
        if let v = try r.milli("window_g", 100...32_000, "g") { p.windowMilliG = v }
        if let v = try r.integer("window_min_ms", 20...2_000, "ms") { p.windowMinMillis = v }
        d.phoneShake = p
        try r.finish()
    }

    static func g(_ mg: Int32) -> String { ObjectReader.clean(TraceWriter.decimal(Int64(mg), places: 3, trim: true)) }

    static func parseFlip(_ r: ObjectReader, _ d: inout DetectionSettings) throws(JoltError) {
        if let a = try r.choice("algorithm", FlipAlgorithm.allCases.map { "\($0.name)" }) {
            d.flipAlgorithm = FlipAlgorithm.allCases.first { "\($0.name)" == a }!
        }
        var f = d.flip
        if let v = try r.fixed("face_down_angle_deg", places: 1, range: 10...890, unit: "degrees") { f.faceDownAngleDeci = Int32(v) }
        if let v = try r.fixed("release_angle_deg", places: 1, range: 10...1790, unit: "degrees") { f.releaseAngleDeci = Int32(v) }
        if let v = try r.milli("still_g", 5...1000, "g") { f.stillMilliG = v }
        if let v = try r.milli("still_rate_dps", 100...2_000_000, "°/s") { f.stillRateMdps = v }
        if let v = try r.integer("hold_ms", 0...10_000, "ms") { f.holdMillis = v }
        if let v = try r.integer("flip_window_ms", 100...60_000, "ms") { f.flipWindowMillis = v }
        if let v = try r.integer("release_ms", 0...10_000, "ms") { f.releaseMillis = v }
        if f.releaseAngleDeci <= f.faceDownAngleDeci {
            throw r.fail("release_angle_deg", r.node("release_angle_deg"), "must be larger than face_down_angle_deg")
        }
        d.flip = f
        var p = d.phoneFlip
        if let v = try r.milli("phone_gravity_z_g", 100...1000, "g") { p.gravityZMilliG = v }
        if let v = try r.milli("phone_rate_dps", 1000...2_000_000, "°/s") { p.rateMdps = v }
        d.phoneFlip = p
        try r.finish()
    }

    static func parseTamper(_ r: ObjectReader, _ d: inout DetectionSettings) throws(JoltError) {
        var t = d.tamper
        if let v = try r.fixed("tilt_deg", places: 1, range: 5...900, unit: "degrees") { t.tiltDeci = Int32(v) }
        if let v = try r.milli("motion_g", 10...16_000, "g") { t.motionMilliG = v }
        if let v = try r.integer("motion_ms", 20...1000, "ms") { t.motionMillis = v }
        if let v = try r.integer("holdoff_ms", 0...600_000, "ms") { t.holdoffMillis = v }
        d.tamper = t
        try r.finish()
    }
}

/// Reads a whole (small) file: a board profile or a configuration.
func readFile(_ path: String, what: String, missingHint: String, limit: Int = 1 << 20) throws(JoltError) -> [UInt8] {
    let fd: Int32
    do {
        fd = try Sys.open(path, O_RDONLY)
    } catch {
        switch error {
        case .noEntry: throw JoltError(.noInput, "\(path): no such \(what) (\(missingHint))")
        case .accessDenied, .permitted: throw JoltError(.noPermission, "\(path): permission denied reading the \(what) (check its permissions)")
        default: throw JoltError(.noInput, "\(path): cannot open the \(what): \(error) (\(error.name))")
        }
    }
    defer { Sys.close(fd) }
    var out: [UInt8] = []
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
    defer { chunk.deallocate() }
    while true {
        let n: Int
        do {
            n = try Sys.read(fd, into: chunk)
        } catch {
            if error.rawValue == EISDIR { throw JoltError(.noInput, "\(path): is a directory, not a \(what)") }
            throw JoltError(.ioError, "\(path): read failed: \(error) (\(error.name))")
        }
        if n == 0 { break }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
        if out.count > limit { throw JoltError(.config, "\(path): the \(what) is larger than \(limit / 1024) KiB (is it the right file?)") }
    }
    return out
}

extension BoardProfile {
    /// A path in a board file, relative to the file's folder unless absolute.
    static func resolve(_ path: String, against file: String) -> String {
        if path.hasPrefix("/") || file.isEmpty { return path }
        guard let slash = file.lastIndex(of: "/") else { return path }
        return String(file[..<slash]) + "/" + path
    }
}
