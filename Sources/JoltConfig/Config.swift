#if canImport(Glibc)
import Glibc
#endif
import JoltChips
import JoltDrivers
import JoltJSON
import JoltCore
import JoltLinux
import JoltTrace
import JoltSupport

/// A board profile (`boards/*.json`): which bus and chip, how it is mounted, how detection is
/// tuned, and (later sections) what to do on each event.
public struct BoardProfile: Sendable, Equatable {
    /// The file it was read from ("" for the built-in defaults).
    public var file = ""
    /// A short name for logs.
    public var name = "board"
    /// The I2C bus: a path like /dev/i2c-1, or "sim" for the simulated bus. Unsaid, the Pi's
    /// header bus: a profile runs the simulator only where it says so, never for want of a key.
    public var bus = "/dev/i2c-1"
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
    /// The GPIO line wired to the chip's INT pin, when there is one: Jolt then sleeps until the
    /// chip raises it (motion, a FIFO watermark, a reading) rather than polling on a timer.
    public var interrupt: InterruptLine?
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

    /// Whether it was read from a file that can be read again (not the defaults, not the
    /// built-in simulated board).
    public var hasFile: Bool { !file.isEmpty && !file.hasPrefix("(") && !file.contains("(built in)") }
}

/// The GPIO line wired to the chip's INT pin (`int`), and what the chip is to raise on it.
public struct InterruptLine: Equatable, Sendable {
    /// The line, found as outputs and inputs are (by name, or chip and offset).
    public var line: LineSpec
    /// Motion past this raises INT at once, mg.
    public var motionMilliG: Int32

    public init(line: LineSpec, motionMilliG: Int32 = InterruptPlan.defaultMotionMilliG) {
        self.line = line
        self.motionMilliG = motionMilliG
    }
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
        let named = try parseChip(r, into: &b)
        if let i = try r.object("int") { b.interrupt = try parseInterrupt(i, chip: named) }
        if let m = try r.object("mount") { b.mount = try parseMount(m) }
        if let o = try r.object("offsets") {
            let (a, g) = try parseOffsets(o)
            b.mount.accelOffset = a
            b.mount.gyroOffset = g
        }
        b.detection = try parseDetection(try r.object("detection"), sensitivity: sensitivity)
        if let s = try r.object("sim") { b.sim = try parseSim(s, boardChip: b.chip) }
        b.outputs = try parseLines(try r.object("outputs"), input: false)
        b.inputs = try parseLines(try r.object("inputs"), input: true)
        let outs = b.outputs.map(\.name), ins = b.inputs.map(\.name)
        b.actions = try parseActions(try r.object("actions"), outputs: outs)
        b.alarm = try parseAlarm(try r.object("alarm"), outputs: outs, inputs: ins)
        b.control = try parseControl(try r.object("control"))
        if let m = try r.object("mqtt") { b.mqtt = try parseMQTT(m) }
        try r.finish()
        try checkRate(b, r)
        try checkWiring(b, r)
        try checkSounds(b, r)
        return b
    }

    /// The chip and how it is read: which chip at which address, its rate and ranges (checked
    /// against the chip named, or any registered chip's when it is detected), the FIFO. The
    /// chip named, if one is.
    static func parseChip(_ r: ObjectReader, into b: inout BoardProfile) throws(JoltError) -> Chip? {
        if let c = try r.choice("chip", ChipRegistry.names + ["auto"]) { b.chip = c == "auto" ? nil : c }
        if let n = r.node("address") {
            b.address = try parseAddress(n) { m throws(JoltError) in r.fail("address", n, m) }
        }
        if let hz = try r.milli("rate_hz", 12_500...1_000_000, "Hz") { b.rateMilliHz = hz }
        // The ranges the board's chip has (any registered chip's, when it is detected).
        let named = b.chip.flatMap(ChipRegistry.named)
        let facts = ChipFacts(named.map { [$0] } ?? ChipRegistry.all), any = ChipFacts(ChipRegistry.all)
        if let g = try r.integer("accel_range_g", any.accelBounds, "g") {
            guard facts.accelRangesG.contains(g) else { throw r.fail("accel_range_g", r.node("accel_range_g"), "must be \(facts.words(facts.accelRangesG)) (g)\(facts.on), found \(g)") }
            b.accelRangeG = g
        }
        if let d = try r.integer("gyro_range_dps", any.gyroBounds, "°/s") {
            guard facts.gyroRangesDps.isEmpty || facts.gyroRangesDps.contains(d) else {
                throw r.fail("gyro_range_dps", r.node("gyro_range_dps"), "must be \(facts.words(facts.gyroRangesDps)) (°/s)\(facts.on), found \(d)")
            }
            b.gyroRangeDps = d
        }
        if let f = try r.bool("fifo") { b.fifo = f }
        if let p = try r.integer("fifo_poll_ms", 10...1000, "ms") { b.fifoPollMillis = p }
        return named
    }

    /// An alarm sounds something when it triggers: its output, or an output or a command bound to
    /// `alarm.triggered`. One that only prints would arm, trigger and say so to nobody in the
    /// shop: refused unless the profile says `"silent": true`.
    package static func checkSounds(_ b: BoardProfile, _ r: ObjectReader) throws(JoltError) {
        guard let a = b.alarm, a.output == nil, !a.silent else { return }
        let bound = (b.actions ?? []).filter { $0.event == "alarm.triggered" }.flatMap(\.actions)
        guard !bound.contains(where: { $0 != .stdout }) else { return }
        throw r.fail("alarm", r.node("alarm"), "nothing sounds when the alarm triggers: set \"output\" to the buzzer's output (declared in \"outputs\"), or bind an output or a command to \"alarm.triggered\" in \"actions\"; for an alarm that only reports, say \"silent\": true")
    }

    /// `int`: the line, and the motion threshold. A named chip whose plug-in sets up no INT pin is
    /// refused here, from the chip's own facts.
    package static func parseInterrupt(_ r: ObjectReader, chip: Chip?) throws(JoltError) -> InterruptLine {
        let motion = try r.integer("motion_mg", 32...2000, "mg") ?? InterruptPlan.defaultMotionMilliG
        let line = try parseLine(r, input: true)
        if let chip, chip.info.interruptSetUp.isEmpty {
            throw JoltError(.config, "\(r.file):\(r.line): int: Jolt does not set up the \(chip.info.part)'s INT pin yet: remove \"int\" to poll the chip")
        }
        return InterruptLine(line: line, motionMilliG: motion)
    }

    /// The chip the board names (for the simulated bus, the simulated chip) makes the board's rate:
    /// refused at rate_hz's line, from the chip's own facts, rather than when the chip is opened.
    package static func checkRate(_ b: BoardProfile, _ r: ObjectReader) throws(JoltError) {
        guard let chip = ChipRegistry.named(b.chip ?? (b.isSimulated ? b.sim.chip : "")) else { return }
        let i = chip.info
        let settings = SensorSettings(rateMilliHz: b.rateMilliHz, accelRangeG: i.accelRangesG[0], gyroRangeDps: i.gyroRangesDps.first ?? b.gyroRangeDps)
        guard let why = chip.sensor.unsupported(settings) else { return }
        let given = r.has("rate_hz")
        throw r.fail(given ? "rate_hz" : "chip", r.node(given ? "rate_hz" : "chip"), why + (given ? "" : "; give rate_hz (the default is \(Hz.text(b.rateMilliHz)) Hz)"))
    }

    /// What the Pi would find wrong, found at load, on the bench as on the Pi: a named chip at
    /// an address it cannot answer at; on the simulated board, a line a Raspberry Pi's header does
    /// not have (a real board may name the lines of another GPIO chip).
    package static func checkWiring(_ b: BoardProfile, _ r: ObjectReader) throws(JoltError) {
        if let a = b.address, let chip = ChipRegistry.named(b.chip ?? (b.isSimulated ? b.sim.chip : "")), !chip.info.addresses.contains(a) {
            let at = chip.info.addresses.map { "0x" + String($0, radix: 16) }.joined(separator: " or ")
            throw r.fail("address", r.node("address"), "an \(chip.info.part) answers at \(at) only (found 0x\(String(a, radix: 16))): check the chip and its address pin")
        }
        guard b.isSimulated else { return }
        let lines = b.outputs.map { ("outputs", $0.name, $0.line) } + b.inputs.map { ("inputs", $0.name, $0.line) }
            + (b.interrupt.map { [("int", "", $0.line)] } ?? [])
        for (section, name, spec) in lines {
            guard let n = spec.name, !Self.piLines.contains(n) else { continue }
            throw r.fail(section, r.node(section), "\(name.isEmpty ? "" : name + ": ")line \"\(n)\" is not on a Raspberry Pi's header (GPIO0 to GPIO27): the simulated board checks what the Pi would")
        }
    }

    /// The lines of a Raspberry Pi's 40-pin header, as the kernel names them.
    package static let piLines: Set<String> = Set((0...27).map { "GPIO\($0)" })

    package static func parseAddress(_ n: JSONNode, fail: (String) throws(JoltError) -> JoltError) throws(JoltError) -> UInt8 {
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
            let found: String
            switch n.value {
            case .string(let s): found = "\"\(s.prefix(40))\""
            case .number(let s): found = String(s.prefix(40))
            default: found = "a value of another kind"
            }
            throw try fail("must be a 7-bit I2C address from 0x03 to 0x77, like \"0x68\" (found \(found))")
        }
        return UInt8(v)
    }

    package static func parseMount(_ r: ObjectReader) throws(JoltError) -> Mount {
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

    package static func parseOffsets(_ r: ObjectReader) throws(JoltError) -> (Vec3, Vec3) {
        let v = try parseTriples(r, accelKey: "accel_g", gyroKey: "gyro_dps")
        try r.finish()
        return v
    }

    /// Two optional [x, y, z] lists: an acceleration in g (±2) and a rotation rate in °/s (±100).
    package static func parseTriples(_ r: ObjectReader, accelKey: String, gyroKey: String) throws(JoltError) -> (Vec3, Vec3) {
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

}

/// Reads a whole (small) file: a board profile or a configuration.
package func readFile(_ path: String, what: String, missingHint: String, limit: Int = 1 << 20) throws(JoltError) -> [UInt8] {
    let fd: Int32
    do {
        // Not blocking: a named pipe in a profile's place must not hold up a start or a reload.
        fd = try Sys.open(path, O_RDONLY | O_NONBLOCK)
    } catch {
        switch error {
        case .noEntry: throw JoltError(.noInput, "\(path): no such \(what) (\(missingHint))")
        case .accessDenied, .permitted: throw JoltError(.noPermission, "\(path): permission denied reading the \(what) (check its permissions)")
        default: throw JoltError(.noInput, "\(path): cannot open the \(what): \(error) (\(error.name))")
        }
    }
    defer { Sys.close(fd) }
    switch Files.kind(fd: fd) {
    case .directory?: throw JoltError(.noInput, "\(path): is a directory, not a \(what)")
    case .pipe?: throw JoltError(.noInput, "\(path): a named pipe or a socket, not a file: give the \(what) itself")
    case .regular?, .other?, nil: break
    }
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
    package static func resolve(_ path: String, against file: String) -> String {
        if path.hasPrefix("/") || file.isEmpty { return path }
        guard let slash = file.lastIndex(of: "/") else { return path }
        return String(file[..<slash]) + "/" + path
    }
}

/// What a set of chips can do, for the configuration's checks and its documentation: one chip's
/// facts, or (a chip to be detected) every registered chip's together.
package struct ChipFacts {
    package let accelRangesG: [Int32]
    package let gyroRangesDps: [Int32]
    /// " on the LSM6DSO" for one chip, "" for all of them.
    package let on: String

    package init(_ chips: [Chip]) {
        accelRangesG = Array(Set(chips.flatMap(\.info.accelRangesG))).sorted()
        gyroRangesDps = Array(Set(chips.flatMap(\.info.gyroRangesDps))).sorted()
        on = chips.count == 1 ? " on the \(chips[0].info.part)" : ""
    }

    package var accelBounds: ClosedRange<Int64> { Int64(accelRangesG.first ?? 2)...Int64(accelRangesG.last ?? 16) }
    package var gyroBounds: ClosedRange<Int64> { Int64(gyroRangesDps.first ?? 125)...Int64(gyroRangesDps.last ?? 2000) }

    /// "2, 4, 8 or 16".
    package func words(_ values: [Int32]) -> String {
        guard let last = values.last else { return "" }
        return values.count == 1 ? "\(last)" : values.dropLast().map(String.init).joined(separator: ", ") + " or \(last)"
    }
}
