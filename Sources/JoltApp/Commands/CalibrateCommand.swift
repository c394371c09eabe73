#if canImport(Glibc)
import Glibc
#endif
import JoltChips
import JoltJSON
import JoltCore
import JoltEngine
import JoltDrivers
import JoltLinux
import JoltTrace
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltConfig
import JoltControl
import JoltCorpus
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport

/// `jolt calibrate`: with the device lying still, measures each axis's offset and noise, checks
/// the reading is about 1 g and which chip axis points up, and writes the offsets (and, for a
/// board with no mount yet, the mount that makes the board's z point up) into a board file.
struct CalibrateCommand {
    struct Options {
        var board: String
        var output: String
        var micros: Int64 = 3_000_000
        var fast = false
        var trace: String?
        var json = false
    }

    /// What the measurement found, in the chip's own axes.
    struct Result {
        var samples = 0
        /// Mean and standard deviation per axis: acceleration mg, rotation mdps.
        var accelMean = [0.0, 0.0, 0.0], accelNoise = [0.0, 0.0, 0.0]
        var gyroMean = [0.0, 0.0, 0.0], gyroNoise = [0.0, 0.0, 0.0]
        var accelSpan = [0, 0, 0] as [Int32]
        var hasGyro = false
        /// The chip axis (0, 1, 2) that points up, and its sign.
        var upAxis = 2, upSign: Int32 = 1
        var magnitude: Double { (accelMean[0] * accelMean[0] + accelMean[1] * accelMean[1] + accelMean[2] * accelMean[2]).squareRoot() }
        /// The offsets to subtract, chip axes: mg and mdps.
        var accelOffset: [Int32] = [0, 0, 0], gyroOffset: [Int32] = [0, 0, 0]
        /// Degrees between the up axis and the measured gravity.
        var tiltDegrees = 0.0
    }

    /// Limits for "lying still": a chip's noise is a few mg and a few tenths of °/s.
    static let maxNoiseMilliG = 25.0
    static let maxSpanMilliG: Int32 = 150
    static let maxNoiseMdps = 3_000.0
    static let maxTiltDegrees = 12.0

    let options: Options

    /// Before a measurement that takes seconds of stillness: the file it will write must be
    /// writable (an existing file, or its folder), and the error says which and why.
    static func checkWritable(_ path: String) throws(JoltError) {
        if Files.exists(path) {
            guard Files.isWritable(path) else {
                throw JoltError(.noPermission, "\(path): not writable (\(Errno.current.name)): check its permissions, or write elsewhere with -o")
            }
            return
        }
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        guard Files.exists(folder) else { throw JoltError(.cannotCreate, "\(path): the folder \(folder) does not exist") }
        guard Files.isWritable(folder) else {
            throw JoltError(.noPermission, "\(path): cannot create it: \(folder) is not writable (\(Errno.current.name))")
        }
    }

    func run(out: TextOutput) throws(JoltError) {
        var board = try BoardProfile.load(path: options.board)
        if board.isSimulated && options.trace == nil && board.sim.trace == nil && board.sim.motion != "rest" {
            // A simulated kiosk lies still while it is calibrated, as a real one is asked to.
            Log.info("simulated board: calibrating it at rest (its \"\(board.sim.motion)\" motion would move it; --trace plays a recording instead)")
            board.sim.motion = "rest"
            board.sim.loop = false
        }
        let text = try readFile(options.board, what: "board profile", missingHint: "check the path")
        let root: JSONNode
        do { root = try JSONParser.parse(text) } catch { throw JoltError(.config, "\(options.board): not valid JSON") }
        try Self.checkWritable(options.output)
        let reading = try Self.measure(board: board, fast: options.fast, trace: options.trace, micros: options.micros)
        let (n, sum, sq, lo, hi) = (reading.count, reading.sum, reading.squares, reading.low, reading.high)
        guard n >= 10 else { throw JoltError(.unavailable, "\(reading.bus): only \(n) readings in \(EventRecord.seconds(options.micros)) s; is the chip measuring? (run 'jolt probe')") }
        var r = Result()
        r.samples = Int(n)
        r.hasGyro = reading.hasGyro
        for i in 0..<6 {
            let mean = Double(sum[i]) / Double(n)
            let sd = max(sq[i] / Double(n) - mean * mean, 0).squareRoot()
            if i < 3 { r.accelMean[i] = mean; r.accelNoise[i] = sd } else { r.gyroMean[i - 3] = mean; r.gyroNoise[i - 3] = sd }
        }
        for i in 0..<3 { r.accelSpan[i] = hi[i] &- lo[i] }
        try Self.judge(&r)
        // Write the board: offsets always; the mount only where the board has none yet.
        func triple(_ v: [Int32], places: Int) -> JSON {
            .array(v.map { JSONNode(value: .number(ObjectReader.clean(TraceWriter.decimal(Int64($0), places: places, trim: true))), line: 0) })
        }
        let offsets = JSON.object([
            ("accel_g", JSONNode(value: triple(r.accelOffset, places: 3), line: 0)),
            ("gyro_dps", JSONNode(value: triple(r.hasGyro ? r.gyroOffset : [0, 0, 0], places: 3), line: 0)),
        ])
        var updated = root.setting("offsets", offsets)
        let suggested = Self.mount(up: r.upAxis, sign: r.upSign)
        let hasMount: Bool
        if case .object(let m) = root.value { hasMount = m.contains { $0.key == "mount" } } else { hasMount = false }
        if let m = suggested, !hasMount {
            updated = updated.setting("mount", .object(["x", "y", "z"].map { ($0, JSONNode(value: .string(m[$0]!), line: 0)) }))
        }
        let newText = updated.pretty() + "\n"
        // Check what is written reads back as a board, then replace the file in one rename.
        _ = try BoardProfile.parse(Array(newText.utf8), file: options.output)
        try AtomicFile.write(options.output, newText)
        report(r, suggestedMount: suggested, wroteMount: suggested != nil && !hasMount, out: out)
    }

    /// Checks the measurement and fills in the up axis and the offsets; throws when the device
    /// moved, is tilted, or does not read about 1 g.
    static func judge(_ r: inout Result) throws(JoltError) {
        let names = ["x", "y", "z"]
        for i in 0..<3 where r.accelNoise[i] > maxNoiseMilliG || r.accelSpan[i] > maxSpanMilliG {
            throw JoltError(.tempFailure, "the device moved during the measurement (\(names[i]) varied by \(g(Double(r.accelSpan[i]))) g, noise \(g(r.accelNoise[i])) g): put it down on a still surface, hands off, and run jolt calibrate again")
        }
        for i in 0..<3 where r.hasGyro && r.gyroNoise[i] > maxNoiseMdps {
            throw JoltError(.tempFailure, "the device turned during the measurement (gyro \(names[i]) noise \(dps(r.gyroNoise[i])) °/s): put it down on a still surface and run jolt calibrate again")
        }
        let m = r.magnitude
        guard m > 850 && m < 1150 else {
            throw JoltError(.unavailable, "the chip reads \(g(m)) g at rest, not about 1 g: \(m < 50 ? "a sleeping or unpowered chip reads zeros" : "check the range and the chip type in the board") (run 'jolt probe')")
        }
        var up = 0
        for i in 1..<3 where abs(r.accelMean[i]) > abs(r.accelMean[up]) { up = i }
        r.upAxis = up
        r.upSign = r.accelMean[up] >= 0 ? 1 : -1
        let cosine = abs(r.accelMean[up]) / m
        r.tiltDegrees = acos(min(cosine, 1)) * 180 / Double.pi
        guard r.tiltDegrees <= maxTiltDegrees else {
            throw JoltError(.tempFailure, "the device is tilted \(Int(r.tiltDegrees.rounded()))° from lying flat on a chip axis: calibrate it lying flat (face up, or on one side), then mount it as it will be used")
        }
        for i in 0..<3 {
            let expected = i == up ? Double(r.upSign) * 1000 : 0
            r.accelOffset[i] = Int32((r.accelMean[i] - expected).rounded())
            r.gyroOffset[i] = Int32(r.gyroMean[i].rounded())
        }
    }

    /// The mount that makes the board's z the chip's up axis (nil when it already is: chip +z),
    /// keeping a right-handed frame.
    static func mount(up: Int, sign: Int32) -> [String: String]? {
        if up == 2 && sign == 1 { return nil }
        let axes = ["x", "y", "z"]
        func name(_ axis: Int, _ s: Int32) -> String { (s > 0 ? "+" : "-") + axes[axis] }
        // Board z ← chip up axis; board x ← the next chip axis; board y completes the rotation.
        let x = (up + 1) % 3, y = (up + 2) % 3
        return ["z": name(up, sign), "x": name(x, 1), "y": name(y, sign)]
    }

    static func g(_ mg: Double) -> String { TraceWriter.decimal(Int64(mg.rounded()), places: 3, trim: false) }
    static func dps(_ mdps: Double) -> String { TraceWriter.decimal(Int64((mdps / 10).rounded()), places: 2, trim: false) }

    func report(_ r: Result, suggestedMount: [String: String]?, wroteMount: Bool, out: TextOutput) {
        let names = ["x", "y", "z"]
        if options.json {
            func list(_ v: [Double], _ f: (Double) -> String) -> JSON { .list(v.map { .decimal(f($0)) }) }
            var f: [(String, JSON)] = [("samples", .int(r.samples)), ("magnitude_g", .decimal(Self.g(r.magnitude))), ("up", .string((r.upSign > 0 ? "+" : "-") + names[r.upAxis])),
                ("tilt_deg", .decimal(TraceWriter.decimal(Int64((r.tiltDegrees * 10).rounded()), places: 1, trim: false))),
                ("accel_mean_g", list(r.accelMean, Self.g)), ("accel_noise_g", list(r.accelNoise, Self.g)), ("accel_offset_g", list(r.accelOffset.map(Double.init), Self.g))]
            if r.hasGyro {
                f += [("gyro_mean_dps", list(r.gyroMean, Self.dps)), ("gyro_noise_dps", list(r.gyroNoise, Self.dps)), ("gyro_offset_dps", list(r.gyroOffset.map(Double.init), Self.dps))]
            }
            let mount: JSON = suggestedMount.map { m in .members(["x", "y", "z"].map { ($0, .string(m[$0]!)) }) } ?? nil
            f += [("suggested_mount", mount), ("wrote_mount", .bool(wroteMount)), ("file", .string(options.output))]
            out.write(JSON.members(f).text + "\n")
            return
        }
        var s = "\(r.samples) readings at rest: \(Self.g(r.magnitude)) g, chip \(r.upSign > 0 ? "+" : "-")\(names[r.upAxis]) up (\(TraceWriter.decimal(Int64((r.tiltDegrees * 10).rounded()), places: 1, trim: false))° off level)\n\n"
        s += "axis   accel mean   noise     offset\(r.hasGyro ? "    gyro mean   noise     offset" : "")\n"
        for i in 0..<3 {
            s += "  \(names[i])  " + (Self.g(r.accelMean[i]) + " g").leftPadded(11) + (Self.g(r.accelNoise[i]) + " g").leftPadded(10) + (Self.g(Double(r.accelOffset[i])) + " g").leftPadded(11)
            if r.hasGyro {
                s += (Self.dps(r.gyroMean[i]) + " °/s").leftPadded(14) + (Self.dps(r.gyroNoise[i]) + " °/s").leftPadded(10) + (Self.dps(Double(r.gyroOffset[i])) + " °/s").leftPadded(11)
            }
            s += "\n"
        }
        s += "\nwrote the offsets to \(options.output)\n"
        if let mount = suggestedMount {
            let m = ["x", "y", "z"].map { JSONText.quote($0) + ": " + JSONText.quote(mount[$0]!) }.joined(separator: ", ")
            s += wroteMount
                ? "the chip's z does not point up: wrote \"mount\": {\(m)} so that the board's z does (change it if the device is used standing on a side)\n"
                : "the chip's z does not point up; if the device is used as it lies now, set \"mount\": {\(m)} (the board has a mount already: left as it is)\n"
        }
        out.write(s)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: Swift.max(width - count, 0)) + self }
}

/// What calibration measures: raw readings (chip axes, no offsets) through the sampling engine,
/// summed per axis, with a progress bar on a terminal.
final class CalibrationReading {
    var count = 0
    var sum = [Int64](repeating: 0, count: 6), squares = [Double](repeating: 0, count: 6)
    var low = [Int32](repeating: .max, count: 3), high = [Int32](repeating: .min, count: 3)
    var hasGyro = false
    var bus = ""
    /// Readings from this stream time on are not counted, µs.
    var limitMicros = Int64.max

    func add(_ s: Sample) {
        guard s.t < limitMicros else { return }
        let v = [s.accel.x, s.accel.y, s.accel.z, s.gyro.x, s.gyro.y, s.gyro.z]
        count += 1
        for i in 0..<6 {
            sum[i] += Int64(v[i])
            squares[i] += Double(v[i]) * Double(v[i])
        }
        for i in 0..<3 {
            low[i] = min(low[i], v[i])
            high[i] = max(high[i], v[i])
        }
    }
}

extension CalibrateCommand {
    /// Reads the board's chip for `micros` of samples.
    static func measure(board: BoardProfile, fast: Bool, trace: String?, micros: Int64) throws(JoltError) -> CalibrationReading {
        let hw = try Boards.open(board, trace: trace, fast: fast)
        let clock = hw.clock
        var delay = ClockDelay(clock: clock)
        do { try hw.sensor.start(delay: &delay) } catch { throw chipError(error, hw.sensor) }
        Log.info("calibrating \(hw.sensor.identity) on \(hw.busName): keep the device still for \(EventRecord.seconds(micros)) s")
        var settings = board.detection
        settings.rateMilliHz = hw.sensor.rateMilliHz
        let engine = SamplingEngine(sensor: hw.sensor, clock: clock, mount: .identity, detection: settings, drainMillis: board.fifoPollMillis)
        let reading = CalibrationReading()
        reading.hasGyro = hw.sensor.hasGyro
        reading.bus = hw.busName
        reading.limitMicros = micros
        let bar = ProgressBar(label: "measuring", total: micros)
        while engine.streamMicros < micros {
            clock.advance(to: engine.nextPoll)
            let step = engine.step(now: clock.now)
            if case .fault(let why, _) = step { throw JoltError(.unavailable, why) }
            while let (s, _) = engine.next() { reading.add(s) }
            bar?.show(engine.streamMicros)
            if case .polled(0, _) = step, clock.motionEnded { break }
        }
        bar?.finish()
        return reading
    }
}

/// A progress bar on standard error, when it is a terminal: "recording 1.2 / 10.0 s [===   ]".
final class ProgressBar {
    let label: String
    let total: Int64
    var lastShown: Int64 = -1

    init?(label: String, total: Int64) {
        guard TextOutput.standardError.isTerminal else { return nil }
        self.label = label
        self.total = total
    }

    func show(_ done: Int64) {
        let tenth = min(done, total) / 100_000
        guard tenth != lastShown || !Log.barShown else { return }
        lastShown = tenth
        Log.barShown = true
        let bar = Int(min(done * 30 / max(total, 1), 30))
        TextOutput.standardError.write("\r\(label) \(EventRecord.seconds(tenth * 100_000)) / \(EventRecord.seconds(total / 100_000 * 100_000)) s [\(String(repeating: "=", count: bar))\(String(repeating: " ", count: 30 - bar))]")
        TextOutput.standardError.flush()
    }

    /// Clears the bar's line, so that what follows (the result, or an error) starts clean.
    func finish() {
        guard lastShown >= 0 else { return }
        lastShown = -1
        guard Log.barShown else { return }
        Log.barShown = false
        TextOutput.standardError.write("\r\u{1B}[K")
        TextOutput.standardError.flush()
    }
}
