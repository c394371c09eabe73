import Foundation
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltChips
import JoltCore
import JoltLinux
import JoltMotion
import JoltTrace
import JoltTestSupport
import Testing

@Suite("jolt run, probe and record on the simulated board")
struct RunTests {
    func events(_ out: String) throws -> [String] {
        try out.split(separator: "\n").map { l in
            let o = try #require(try JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any])
            return "\(o["event"]!).\(o["phase"] ?? o["state"] ?? "")"
        }
    }

    @Test("the default demo prints a shake and a flip face down and back")
    func demo() throws {
        let r = jolt(["run", "--fast", "--json", "--quiet"])
        #expect(r.code == .ok, "\(r.error)")
        #expect(try events(r.out) == ["shake.began", "shake.ended", "flip.face_down", "flip.face_up"])
    }

    @Test("jolt run on a played trace produces the same events as jolt replay", arguments: ["s1_003_TRAP.csv", "s3_006_FEL.csv", "s4_119_FEL.csv", "s2_043_PEN.csv"])
    func runEqualsReplay(name: String) {
        let trace = testData + "/wrist-imu/" + name
        let run = jolt(["run", "--board", packageRoot + "/boards/sim.json", "--trace", trace, "--fast", "--json", "--quiet"])
        let replay = jolt(["replay", "--json", trace])
        #expect(run.code == .ok && replay.code == .ok, "\(run.error) \(replay.error)")
        let stripped = replay.out.replacingOccurrences(of: #","file":"[^"]*""#, with: "", options: .regularExpression)
        #expect(run.out == stripped)
    }

    @Test("a generated trace with shakes and flips: run and replay agree, on the MPU6050 and without the FIFO")
    func runEqualsReplayGenerated() throws {
        var m = Motion(rate: 100, seed: 3)
        m.rest(1)
        m.shake(freq: 5, amp: 2.5, axis: V3(0, 1, 0), seconds: 1.2)
        m.rest(2)
        m.rotate(axis: V3(1, 0, 0), degrees: 180, seconds: 0.6)
        m.rest(2)
        m.rotate(axis: V3(1, 0, 0), degrees: -180, seconds: 0.6)
        m.rest(1)
        var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
        for s in m.take() { text += TraceWriter.row(s, gyro: true) }
        let trace = tempFile(text)
        let replay = jolt(["replay", "--json", trace])
        let stripped = replay.out.replacingOccurrences(of: #","file":"[^"]*""#, with: "", options: .regularExpression)
        #expect(try events(stripped) == ["shake.began", "shake.ended", "flip.face_down", "flip.face_up"])
        let run = jolt(["run", "--board", packageRoot + "/boards/sim.json", "--trace", trace, "--fast", "--json", "--quiet"])
        #expect(run.out == stripped)
        let board = tempFile(String(decoding: try Data(contentsOf: URL(fileURLWithPath: packageRoot + "/boards/sim.json")), as: UTF8.self).edited("\"fifo\": true", "\"fifo\": false"), name: "nofifo.json")
        let nofifo = jolt(["run", "--board", board, "--trace", trace, "--fast", "--json", "--quiet"])
        #expect(nofifo.out == stripped, "\(nofifo.error)")
    }

    @Test("bus transactions and wake-ups per second: about 10 and 5 with the FIFO, 100 and 100 without")
    func transactionsPerSecond() throws {
        func stats(fifo: Bool) throws -> (Double, Double) {
            var b = BoardProfile.builtInSim
            b.fifo = fifo
            let cmd = try RunCommand(board: b, playing: Playback(fast: true), options: RunCommand.Options(json: true), out: TextOutput.capturing())
            let run = try cmd.run()
            let secs = Double(run.streamMicros) / 1e6
            return (Double(run.transactions) / secs, Double(run.wakeups) / secs)
        }
        let (tf, wf) = try stats(fifo: true)
        let (tn, wn) = try stats(fifo: false)
        #expect(tf <= 12 && wf <= 6, "FIFO: \(tf) transactions/s, \(wf) wake-ups/s")
        #expect(tn >= 99 && wn >= 99, "no FIFO: \(tn) transactions/s, \(wn) wake-ups/s")
    }

    @Test("an ADXL345 simulated board detects the demo from the accelerometer alone")
    func adxl() throws {
        let text = BoardProfile.builtInSimText.edited("\"chip\": \"mpu6050\"", "\"chip\": \"adxl345\"")
            .edited("\"address\": \"0x68\"", "\"address\": \"0x53\"")
        let board = tempFile(text, name: "adxl.json")
        let r = jolt(["run", "--board", board, "--fast", "--json", "--quiet"])
        #expect(r.code == .ok, "\(r.error)")
        #expect(try events(r.out) == ["shake.began", "shake.ended", "flip.face_down", "flip.face_up"])
    }

    @Test("probe --bus sim finds the simulated MPU6050; probe of a missing bus says how to enable I2C")
    func probe() {
        let r = jolt(["probe", "--bus", "sim"])
        #expect(r.code == .ok)
        #expect(r.out.contains("0x68  MPU6050 (WHO_AM_I 0x68)"))
        #expect(r.out.contains("0x53  -"))
        let missing = jolt(["probe", "--bus", "9"])
        #expect(missing.code == .unavailable)
        #expect(missing.error.contains("/dev/i2c-9") && missing.error.contains("dtparam=i2c_arm=on"))
        #expect(jolt(["probe", "--bus", "banana"]).code == .usage)
    }

    @Test("probe without --bus probes the bus of --board or $JOLT_BOARD, simulated or real, as every command names its board")
    func probeNamedBoard() {
        let adxl = tempFile(BoardProfile.builtInSimText.edited("\"chip\": \"mpu6050\"", "\"chip\": \"adxl345\"")
            .edited("\"address\": \"0x68\"", "\"address\": \"0x53\""), name: "probe-adxl.json")
        for r in [joltBinary(["probe"], environment: ["JOLT_BOARD": adxl]), joltBinary(["probe", "--board", adxl]),
                  joltBinary(["probe", "--bus", "sim"], environment: ["JOLT_BOARD": adxl])] {
            #expect(r.code == 0, "\(r.error)")
            #expect(r.out.contains("0x53  ADXL345") && r.out.contains("0x68  -"), "\(r.out)")
        }
        let real = tempFile(#"{"bus": "/dev/i2c-237", "chip": "mpu6050"}"#, name: "probe-real.json")
        let missing = joltBinary(["probe"], environment: ["JOLT_BOARD": real])
        #expect(missing.code == 69 && missing.error.contains("/dev/i2c-237"), "\(missing.error)")
        // --bus sim with a real board in $JOLT_BOARD probes the built-in demo; named by --board, it is refused.
        #expect(joltBinary(["probe", "--bus", "sim"], environment: ["JOLT_BOARD": real]).out.contains("0x68  MPU6050"))
        #expect(joltBinary(["probe", "--bus", "sim", "--board", real]).code == 64)
        #expect(joltBinary(["probe", "--bus", "1", "--board", adxl]).code == 64)
    }

    @Test("record writes a trace that replays to the same events as the run")
    func record() throws {
        let dir = NSTemporaryDirectory() + "jolt-rec-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let out = dir + "/demo.csv"
        let r = jolt(["record", "--seconds", "20", "-o", out, "--fast"])
        #expect(r.code == .ok, "\(r.error)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.hasPrefix("# jolt-trace v1\n# rate_hz: 100.0\n"))
        #expect(text.contains("# range_g: 16"))
        let replay = jolt(["replay", "--json", out])
        let run = jolt(["run", "--fast", "--json", "--quiet"])
        #expect(try events(replay.out) == events(run.out))
        #expect(jolt(["record", "--seconds", "1", "-o", "/nonexistent/x.csv", "--fast"]).code == .cannotCreate)
        #expect(jolt(["record", "-o", out]).code == .usage)
    }

    @Test("the built-in simulated board is boards/sim.json")
    func builtIn() throws {
        let file = try String(contentsOfFile: packageRoot + "/boards/sim.json", encoding: .utf8)
        #expect(file.trimmingCharacters(in: .whitespacesAndNewlines) == BoardProfile.builtInSimText.trimmingCharacters(in: .whitespacesAndNewlines))
        let boards = try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/boards").filter { $0.hasSuffix(".json") }
        for name in boards { _ = try BoardProfile.load(path: packageRoot + "/boards/\(name)") }
        // A board profile for every chip in the registry.
        for chip in ChipRegistry.names { #expect(boards.contains("pi-\(chip).json"), "boards/pi-\(chip).json") }
    }

    @Test("the phone algorithms are for comparison: run refuses a profile that names one, replay runs it")
    func comparisonAlgorithms() throws {
        let board = tempFile(#"{"bus": "sim", "detection": {"shake": {"algorithm": "threshold"}}}"#, name: "threshold.json")
        let run = joltBinary(["run", "--board", board, "--fast"])
        #expect(run.code == 78 && run.error.contains("detection.shake.algorithm \"threshold\" is kept to compare Jolt's detectors with"), "\(run.error)")
        let flip = joltBinary(["watch", "--board", tempFile(#"{"bus": "sim", "detection": {"flip": {"algorithm": "phone"}}}"#, name: "phone.json"), "--fast", "--seconds", "1"])
        #expect(flip.code == 78 && flip.error.contains("detection.flip.algorithm \"phone\""), "\(flip.error)")
        let replay = joltBinary(["replay", "--json", "--config", board, packageRoot + "/Tests/Corpus/test/shakes.csv"])
        #expect(replay.code == 0 && replay.out.contains("\"phase\":\"began\",\"algorithm\":\"threshold\""), "\(replay.error)")
    }

    static let badBoards: [(String, String, ExitCode)] = [
        ("{", ":1:2: not valid JSON", .config),
        ("[]", "the file: must be an object", .config),
        (#"{"bus": "sim", "rate": 100}"#, "rate: unknown key (did you mean rate_hz?)", .config),
        (#"{"rate_hz": "fast"}"#, "rate_hz: must be a number (Hz), found a string", .config),
        (#"{"rate_hz": 5}"#, "rate_hz: must be between 12.5 and 1000 Hz (found 5)", .config),
        (#"{"rate_hz": 400, "chip": "mpu6050"}"#, "the MPU6050 cannot sample at 400 Hz", .config),
        (#"{"accel_range_g": 3}"#, "accel_range_g: must be 2, 4, 8 or 16", .config),
        (#"{"address": "0x99"}"#, "address: must be a 7-bit I2C address", .config),
        (#"{"bus": "/dev/sda"}"#, "bus: must be \"sim\" or an I2C bus", .config),
        (#"{"chip": "bmi160"}"#, "chip: must be one of", .config),
        (#"{"mount": {"x": "+y", "y": "+y"}}"#, "mount: each chip axis must be used once", .config),
        (#"{"mount": {"x": "+y", "y": "+x"}}"#, "a mirror image", .config),
        (#"{"mount": {"z": "-z"}}"#, "a mirror image", .config),
        (#"{"detection": {"shake": {"threshold_g": -1}}}"#, "detection.shake.threshold_g: must be between 0.05 and 16 g (found -1)", .config),
        (#"{"detection": {"shake": {"treshold_g": 1}}}"#, "detection.shake.treshold_g: unknown key (did you mean threshold_g?)", .config),
        (#"{"detection": {"shake": {"hysteresis_g": 0.9}}}"#, "hysteresis_g: must be below threshold_g", .config),
        // Only threshold_g written, below the default hysteresis: the error names threshold_g.
        (#"{"detection": {"shake": {"threshold_g": 0.2}}}"#, "detection.shake.threshold_g: must be above hysteresis_g (0.2 ≤ 0.3 g, its default)", .config),
        (#"{"detection": {"shake": {"threshold_g": 1.8, "strong_g": 1.5}}}"#, "detection.shake.strong_g: must be at least threshold_g", .config),
        (#"{"chip": "adxl345", "sim": {"chip": "mpu6050"}}"#, "sim.chip: \"mpu6050\" differs from the board's chip \"adxl345\"", .config),
        (#"{"detection": {"flip": {"hold_ms": 1.5}}}"#, "detection.flip.hold_ms: must be a whole number (ms), found 1.5", .config),
        (#"{"detection": {"sensitivity": "max"}}"#, "detection.sensitivity: must be one of \"low\", \"medium\", \"high\"", .config),
        (#"{"fifo": "yes"}"#, "fifo: must be true or false", .config),
        (#"{"offsets": {"accel_g": [0, 0]}}"#, "offsets.accel_g: must be a list of three numbers", .config),
        (#"{"sim": {"motion": "dance"}}"#, "sim.motion: must be one of", .config),
    ]

    @Test("bad board profiles are refused before touching hardware, naming the field", arguments: badBoards)
    func badBoard(text: String, message: String, code: ExitCode) {
        let p = tempFile(text, name: "board.json")
        let r = jolt(["run", "--board", p, "--fast"])
        #expect(r.code == code)
        #expect(r.error.hasPrefix(p), "\(r.error)")
        #expect(r.error.contains(message), "\(r.error)")
        #expect(!r.error.contains("\n"))
    }

    @Test("threshold_g raised alone takes the unwritten strong_g along; written, strong_g is kept and checked")
    func thresholdAlone() throws {
        let b = try BoardProfile.load(path: tempFile(#"{"detection": {"shake": {"threshold_g": 1.8}}}"#, name: "board.json"))
        #expect(b.detection.shake.thresholdMilliG == 1800 && b.detection.shake.strongMilliG == 1800)
        let c = try BoardProfile.load(path: tempFile(#"{"detection": {"shake": {"threshold_g": 1.8, "strong_g": 2.5}}}"#, name: "board.json"))
        #expect(c.detection.shake.strongMilliG == 2500)
        #expect(counted(1, "event") == "1 event" && counted(6, "event") == "6 events" && counted(0, "fault") == "0 faults")
    }

    @Test("run options: bad values are usage errors; a missing board file is missing input")
    func badOptions() {
        #expect(jolt(["run", "--seconds", "-3"]).code == .usage)
        #expect(jolt(["run", "--seconds", "nan"]).code == .usage)
        #expect(jolt(["run", "extra"]).code == .usage)
        #expect(jolt(["run", "--board", "/nonexistent.json"]).code == .noInput)
        #expect(jolt(["run", "--board", packageRoot + "/boards/pi-mpu6050.json", "--fast"]).code == .usage, "--fast is refused before the bus is opened")
        let r = jolt(["run", "--board", packageRoot + "/boards/pi-mpu6050.json"])
        #expect(r.code == .unavailable)
        #expect(r.error.contains("no I2C bus /dev/i2c-1"))
    }
}

/// A run's watcher made of closures, for tests.
final class Hooks: RunWatcher {
    var event: ((EventRecord, Int64) -> Void)?
    var wake: ((Int64) -> Void)?

    init(event: ((EventRecord, Int64) -> Void)? = nil, wake: ((Int64) -> Void)? = nil) {
        self.event = event
        self.wake = wake
    }

    func event(_ r: EventRecord, now: Int64) { event?(r, now) }

    func woke(now: Int64) -> Bool {
        wake?(now)
        return false
    }
}

/// A run on a thread of its own, for tests that talk to it while it runs: `finish()` waits for it
/// to end and gives its report, or why it failed.
final class BackgroundRun: @unchecked Sendable {
    private var result: Result<RunReport, JoltError>?
    private var thread: PThread?

    init(_ cmd: RunCommand) {
        nonisolated(unsafe) let running = cmd
        thread = PThread { [self] in
            do throws(JoltError) { self.result = .success(try running.run()) } catch { self.result = .failure(error) }
        }
    }

    /// Waits for the run to end (its time limit, its trace, or a stop asked of it).
    func finish() -> Result<RunReport, JoltError> {
        thread?.join()
        thread = nil
        return result ?? .failure(JoltError(.software, "the run's thread ended without a result"))
    }

    /// The report of a run that must have ended cleanly.
    func report() throws -> RunReport { try finish().get() }
}
