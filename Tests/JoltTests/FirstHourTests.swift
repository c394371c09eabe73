import Foundation
import JoltBuildInfo
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltCore
import JoltTestSupport
import Synchronization
import Testing

/// Runs the built `jolt` binary with `args` in `directory` and an environment of its own (none
/// of the test runner's JOLT_ variables), and returns its exit status, stdout and stderr.
/// The alarm's state as a running jolt's control socket reports it (its JSON reply's "state"),
/// nil when none answers: what a test looks at, rather than `jolt status`'s words.
func alarmState(_ sock: String) -> String? {
    guard let reply = try? ControlClient.request("status", socket: sock),
          let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any] else { return nil }
    return object["state"] as? String
}

/// Waits up to `seconds` for the alarm of the jolt at `sock` to be in `state`.
func waitForAlarm(_ sock: String, _ state: String, seconds: Double = 15) -> Bool {
    eventually(seconds: seconds) { alarmState(sock) == state }
}

func joltBinary(_ args: [String], directory: String = "/", environment: [String: String] = [:], stdin: String? = nil) -> (code: Int32, out: String, error: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: packageRoot + "/.build/debug/jolt")
    p.arguments = args
    p.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("JOLT_") }
    for (k, v) in environment { env[k] = v }
    p.environment = env
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    do { try p.run() } catch { return (-1, "", "\(error)") }
    // Read both pipes to the end before waiting, so that a chatty child never blocks.
    nonisolated(unsafe) var errData = Data()
    let reader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
    reader.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    while !reader.isFinished { usleep(1000) }
    return (p.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

@Suite("A first hour without stumbles")
struct FirstHourTests {
    @Test("jolt --version and jolt version name the version and the commit")
    func version() throws {
        for args in [["--version"], ["version"]] {
            let r = joltBinary(args)
            #expect(r.code == 0, "\(r)")
            #expect(r.out.range(of: #"^jolt [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}\+?|unknown)\)\n$"#, options: .regularExpression) != nil, "\(r.out)")
        }
        #expect(joltBinary(["version", "extra"]).code == 64)
    }

    @Test("the start-up log line carries the version")
    func versionInLog() throws {
        let r = joltBinary(["run", "--board", packageRoot + "/boards/sim.json", "--fast", "--seconds", "1"])
        #expect(r.code == 0, "\(r)")
        #expect(r.error.contains("jolt \(joltBinary(["--version"]).out.dropFirst(5).trimmingCharacters(in: .newlines)): "), "\(r.error)")
    }

    @Test("the board comes from --board, then $JOLT_BOARD, saying which")
    func boardResolution() throws {
        let adxl = tempFile(#"{"name": "env board", "bus": "sim", "chip": "adxl345", "sim": {"chip": "adxl345", "motion": "rest"}}"#, name: "env.json")
        let env = joltBinary(["run", "--fast", "--seconds", "1"], environment: ["JOLT_BOARD": adxl])
        #expect(env.code == 0, "\(env)")
        #expect(env.error.contains("board profile from $JOLT_BOARD: \(adxl)"), "\(env.error)")
        #expect(env.error.contains("ADXL345"), "\(env.error)")
        // --board wins over the environment, silently (it was named).
        let named = joltBinary(["run", "--board", packageRoot + "/boards/sim.json", "--fast", "--seconds", "1"], environment: ["JOLT_BOARD": adxl])
        #expect(named.code == 0 && named.error.contains("MPU6050") && !named.error.contains("JOLT_BOARD"), "\(named)")
        // A missing $JOLT_BOARD is an error that names it, not a silent fallback.
        let missing = joltBinary(["run", "--fast", "--seconds", "1"], environment: ["JOLT_BOARD": "/nonexistent/jolt.json"])
        #expect(missing.code == 66 && missing.error.contains("/nonexistent/jolt.json"), "\(missing)")
        // Commands that need a real profile say where they looked.
        if access(JoltCLI.systemBoard, F_OK) != 0 {
            let safe = joltBinary(["safe"])
            #expect(safe.code == 66 && safe.error.contains("JOLT_BOARD") && safe.error.contains("/etc/jolt/jolt.json"), "\(safe)")
            let sim = joltBinary(["record", "--seconds", "1", "--fast", "-o", NSTemporaryDirectory() + "r-\(UUID()).csv"])
            #expect(sim.code == 0, "\(sim)")
        }
    }

    @Test("errors say jolt once; mistyped options and commands get a suggestion; help for a bogus command exits 64")
    func commandLine() throws {
        let r = joltBinary(["run", "--bord", "x"])
        #expect(r.code == 64)
        #expect(r.error == "jolt: error: run: unknown option '--bord' (did you mean --board? see jolt run --help)\n", "\(r.error)")
        let c = joltBinary(["replya", "x"])
        #expect(c.code == 64 && c.error.contains("did you mean replay?"), "\(c.error)")
        let h = joltBinary(["help", "bogus"])
        #expect(h.code == 64 && h.error.hasPrefix("jolt: error: help: no command 'bogus'"), "\(h)")
        for line in [r.error, c.error, h.error] {
            #expect(line.components(separatedBy: "jolt").count == 2 || line.contains("see jolt"), "\(line)")
            #expect(!line.contains("jolt: error: jolt "), "\(line)")
        }
    }

    @Test("jolt help --man is a manual page with every command, option and exit status")
    func manPage() throws {
        let r = joltBinary(["help", "--man"])
        #expect(r.code == 0 && r.out.hasPrefix(".\\\" -*- coding: UTF-8 -*-\n") && r.out.contains(".TH JOLT 1"), "\(r.out.prefix(200))")
        for c in JoltCLI.commands { #expect(r.out.contains(".SS jolt \(c.name)\n")) }
        #expect(r.out.contains(".B \\-\\-state\\-dir DIR"))
        for c in ExitCode.allCases { #expect(r.out.contains(".B \(c.rawValue)\n")) }
        #expect(r.out.contains(".SH ENVIRONMENT\n.TP\n.B JOLT_BOARD\n") && r.out.contains(".B XDG_RUNTIME_DIR\n"))
        // jolt --help lists the reference outputs and the environment too.
        let help = joltBinary(["--help"]).out
        for part in ["jolt help --config", "jolt help --markdown", "jolt help --man", "Environment:", "  JOLT_BOARD\n"] {
            #expect(help.contains(part), "\(part) in jolt --help")
        }
        #expect(!r.out.split(separator: "\n").contains { $0.hasPrefix(".") && !$0.hasPrefix(".\\\"") && $0.split(separator: " ").first.map { ![".TH", ".SH", ".SS", ".PP", ".TP", ".B", ".I", ".BR", ".br", ".nf", ".fi"].contains(String($0)) } == true }, "only known requests")
    }

    @Test("every option a command lists is in its usage line and is accepted")
    func usageLines() throws {
        for c in JoltCLI.commands {
            for (option, _) in c.options {
                let words = option.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
                let names = words.filter { $0.hasPrefix("-") }
                let first = try #require(names.first)
                #expect(c.usage.contains(first + " ") || c.usage.contains(first + "]") || c.usage.hasSuffix(first), "jolt \(c.name): \(first) is not in '\(c.usage)'")
                // Accepted: parsing goes past it to a bogus option, so nothing runs.
                let valued = !(words.last ?? "").hasPrefix("-")
                for n in names.map({ $0.trimmingCharacters(in: .whitespaces) }) {
                    let r = jolt([c.name, n] + (valued ? ["x"] : []) + ["--bogus-zz"])
                    #expect(r.error.contains("unknown option '--bogus-zz'"), "jolt \(c.name) \(n): \(r.error)")
                }
            }
        }
    }

    @Test("jolt eval refuses a missing or empty corpus folder (66), and a gate with no real recordings")
    func evalNoData() throws {
        let empty = NSTemporaryDirectory() + "jolt-empty-\(UUID())"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let e = joltBinary(["eval", "--gate", empty])
        #expect(e.code == 66 && e.error.contains(empty) && e.error.contains("no .csv"), "\(e)")
        #expect(!e.out.contains("meets"), "\(e.out)")
        let m = joltBinary(["eval", "--gate", "/nonexistent/recordings"])
        #expect(m.code == 66 && m.error.contains("/nonexistent/recordings"), "\(m)")
        let synthetic = joltBinary(["eval", "--gate", packageRoot + "/Tests/Corpus/test"])
        #expect(synthetic.code == 66 && synthetic.error.contains("no real recordings"), "\(synthetic)")
        // From anywhere else than the repository, with nothing named: no corpus, one line.
        let none = joltBinary(["eval"], directory: NSTemporaryDirectory())
        #expect(none.code == 66 && none.error.split(separator: "\n").count == 1, "\(none)")
    }

    @Test("the repository stands on its own: the real recordings are inside it, with their licence")
    func recordingsInside() throws {
        let dir = packageRoot + "/Tests/Data/wrist-imu"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(files.filter { $0.hasSuffix(".csv") }.count == 70)
        #expect(files.contains("LICENSE") && files.contains("README.md"))
        let licence = try String(contentsOfFile: dir + "/LICENSE", encoding: .utf8)
        #expect(licence.contains("David M. Burns"))
        // The held-out recordings: every file's source names its licence, whose text is beside it.
        let body = packageRoot + "/Tests/Data/body-imu"
        let held = try FileManager.default.contentsOfDirectory(atPath: body)
        #expect(held.filter { $0.hasSuffix(".csv") }.count == 16)
        let notices = ["LICENSE.mobgap": "Apache License", "LICENSE.scikit-kinematics": "Thomas Haslwanter", "LICENSE.gaitpy": "MIT License", "NOTICE.mobgap": "Eskofier"]
        for (name, mark) in notices {
            #expect(try String(contentsOfFile: body + "/" + name, encoding: .utf8).contains(mark), "\(name)")
        }
        for f in held where f.hasSuffix(".csv") {
            let source = try String(contentsOfFile: body + "/" + f, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("# source: ") }
            #expect(source.map { $0.contains("(Apache-2.0)") || $0.contains("(BSD-3-Clause)") || $0.contains("(MIT)") } == true, "\(f): \(source ?? "no source line")")
        }
    }
}

@Suite("docs/config.md")
struct ConfigDocTests {
    @Test("every sample profile of the reference loads")
    func samplesLoad() throws {
        for (i, text) in ConfigDoc.samples.enumerated() {
            #expect(throws: Never.self, "sample \(i + 1)") { try BoardProfile.parse(Array(text.utf8), file: "sample \(i + 1)") }
        }
    }

    @Test("every key the loader reads is described, and nothing else is")
    func complete() throws {
        let (order, kinds) = ConfigDoc.recordedKinds()
        let described = Set(ConfigDoc.keys.map(\.path))
        let read = Set(order)
        #expect(read.subtracting(described).sorted() == [], "keys the loader reads that docs/config.md does not describe")
        #expect(described.subtracting(read).sorted() == [], "keys described that no sample exercises (or the loader no longer reads)")
        #expect(kinds["detection.shake.threshold_g"] == "number, 0.05 to 16 g")
        #expect(kinds["alarm.arming_ms"] == "whole number, 0 to 3600000 ms")
        // Every shipped board uses only described keys.
        for board in try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/boards") where board.hasSuffix(".json") {
            let r = SchemaRecorder()
            try SchemaRecorder.$current.withValue(r) { _ = try BoardProfile.load(path: packageRoot + "/boards/" + board) }
            #expect(Set(r.order).subtracting(described).sorted() == [], "\(board)")
        }
    }

    @Test("each number of the detection section loads as its declaration says: a value in range sets its setting, one past the range is refused by its path")
    func detectionKeys() throws {
        let medium = DetectionSettings(sensitivity: .medium, rateMilliHz: 100_000, gyro: true)
        for k in DetectionKeys.all {
            func load(_ value: Int64) throws(JoltError) -> DetectionSettings {
                let text = k.text(Int32(value)), member = "\"\(k.name)\": \(text)"
                let section = k.section.isEmpty ? member : "\"\(k.section)\": {\(member)}"
                return try BoardProfile.parse(Array("{\"detection\": {\(section)}}".utf8), file: "p.json").detection
            }
            // Next to the preset's value: in range, and clear of the checks between keys.
            let def = Int64(medium[keyPath: k.field])
            let v = k.range.contains(def + 1) ? def + 1 : def - 1
            var want = medium
            k.set(Int32(v), in: &want)
            #expect(want[keyPath: k.field] == Int32(v) && want != medium, "\(k.path)")
            #expect(try load(v) == want, "\(k.path): its setting, and no other")
            for outside in [k.range.lowerBound - 1, k.range.upperBound + 1] {
                let e = #expect(throws: JoltError.self, "\(k.path) = \(outside)") { try load(outside) }
                #expect(e?.message.contains(k.path) == true, "\(e?.message ?? "")")
            }
        }
        // Every preset's value, at every rate, with and without a gyroscope, is one a profile
        // may write: `jolt tune` and the reference print them back as profile values.
        for sensitivity in Sensitivity.allCases {
            for rate: Int32 in [12_500, 25_000, 50_000, 100_000, 400_000, 1_000_000] {
                for gyro in [false, true] {
                    let d = DetectionSettings(sensitivity: sensitivity, rateMilliHz: rate, gyro: gyro)
                    for k in DetectionKeys.all {
                        #expect(k.range.contains(Int64(d[keyPath: k.field])), "\(k.path) = \(d[keyPath: k.field]) (\(sensitivity), \(rate) mHz)")
                    }
                }
            }
        }
        // A companion moves with it: strong_g follows a threshold raised past it.
        let raised = try BoardProfile.parse(Array(#"{"detection": {"shake": {"threshold_g": 2}}}"#.utf8), file: "p.json").detection
        #expect(raised.shake.strongMilliG == 2000)
        let both = try BoardProfile.parse(Array(#"{"detection": {"shake": {"threshold_g": 2, "strong_g": 3}}}"#.utf8), file: "p.json").detection
        #expect(both.shake.strongMilliG == 3000)
    }

    @Test("docs/config.md is what jolt help --config prints (regenerate: .build/debug/jolt help --config > docs/config.md)")
    func current() throws {
        let file = try String(contentsOfFile: packageRoot + "/docs/config.md", encoding: .utf8)
        #expect(file == ConfigDoc.markdown)
        #expect(file.contains("`detection.tamper.tilt_deg` | number, 0.5 to 90 degrees | 10 (low: 20, high: 5)"))
    }
}

/// The places a jolt puts its control socket when not told (/run/jolt, /run/user/UID,
/// /tmp/jolt-UID) are the machine's, not one test's: a test that runs a jolt there and one that
/// asks what runs there take turns, or each finds the other's.
final class UsualSocketPlaces: Sendable {
    static let shared = UsualSocketPlaces()
    private let busy = Mutex(false)

    /// Runs `body` with the usual places to itself.
    func exclusively(_ body: () throws -> Void) rethrows {
        while !busy.withLock({ b -> Bool in
            if b { return false }
            b = true
            return true
        }) { usleep(10_000) }
        defer { busy.withLock { $0 = false } }
        try body()
    }

    /// Runs `body` with the usual places to itself and a login's runtime folder of its own
    /// (mode 0700, removed after): the environment that puts a jolt's socket there, and sends
    /// the clients to look there.
    func withRuntimeFolder(_ body: (_ runtime: String, _ environment: [String: String]) throws -> Void) throws {
        try exclusively {
            let runtime = NSTemporaryDirectory() + "jolt-xdg-\(UUID().uuidString.prefix(6))"
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(atPath: runtime) }
            try body(runtime, ["XDG_RUNTIME_DIR": runtime, "RUNTIME_DIRECTORY": ""])
        }
    }
}

/// A `jolt run` started in the background, its stderr collected, stopped with SIGTERM.
final class BackgroundJolt: @unchecked Sendable {
    let process = Process()
    let errPipe = Pipe()
    nonisolated(unsafe) var errText = ""
    let lock = NSLock()

    init(_ args: [String], environment extra: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: packageRoot + "/.build/debug/jolt")
        process.arguments = args
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("JOLT_") }.merging(extra) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        errPipe.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self, !d.isEmpty else { return }
            self.lock.lock()
            self.errText += String(decoding: d, as: UTF8.self)
            self.lock.unlock()
        }
        try process.run()
    }

    var stderr: String { lock.lock(); defer { lock.unlock() }; return errText }

    /// Waits until stderr holds `text` (up to `seconds`).
    @discardableResult
    func wait(for text: String, seconds: Double = 10) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if stderr.contains(text) { return true }
            usleep(20_000)
        }
        return false
    }

    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        errPipe.fileHandleForReading.readabilityHandler = nil
        return process.terminationStatus
    }
}

@Suite("jolt output, and watch and record attached to a running jolt", .serialized)
struct AttachTests {
    /// A kiosk board with its own socket that lies still (nothing triggers it on its own).
    func restingKiosk(_ sock: String, armed: Bool = false) throws -> String {
        var text = try String(contentsOfFile: try kioskBoard(socket: sock), encoding: .utf8)
        text = text.edited("\"motion\": \"lift\"", "\"motion\": \"rest\"")
        if !armed { text = text.edited("\"armed_at_start\": true", "\"armed_at_start\": false") }
        return tempFile(text, name: "resting-kiosk.json")
    }

    @Test("jolt output with no running jolt drives the line itself: beeps, a pulse, an unknown name")
    func direct() throws {
        let board = try restingKiosk(socketPath())
        let r = joltBinary(["output", "buzzer", "--beep", "2", "--board", board])
        #expect(r.code == 0, "\(r)")
        #expect(r.error.components(separatedBy: "line buzzer (simulated GPIO17): active").count - 1 == 2, "\(r.error)")
        #expect(r.error.hasSuffix("line buzzer (simulated GPIO17): inactive\n"), "\(r.error)")
        #expect(r.out.contains("2 beeps of 200 ms"), "\(r.out)")
        let start = Date()
        let p = joltBinary(["output", "buzzer", "--pulse", "300", "--board", board])
        #expect(p.code == 0 && Date().timeIntervalSince(start) >= 0.3, "\(p)")
        let bad = joltBinary(["output", "buzer", "--on", "--board", board])
        #expect(bad.code == 64 && bad.error.contains("did you mean buzzer?"), "\(bad)")
        let two = joltBinary(["output", "buzzer", "--on", "--off", "--board", board])
        #expect(two.code == 64, "\(two)")
    }

    @Test("jolt output through the running jolt; a sounding alarm is not silenced by --off")
    func throughService() throws {
        let sock = socketPath()
        let board = try restingKiosk(sock, armed: false)
        let run = try BackgroundJolt(["run", "--board", board])
        defer { _ = run.stop() }
        #expect(run.wait(for: "control socket \(sock)"), "\(run.stderr)")
        let r = joltBinary(["output", "buzzer", "--pulse", "200", "--board", board])
        #expect(r.code == 0 && r.out.contains("through the running jolt"), "\(r)")
        #expect(run.wait(for: "line buzzer (simulated GPIO17): active"), "\(run.stderr)")
        #expect(run.wait(for: "line buzzer (simulated GPIO17): inactive"), "\(run.stderr)")
        let status = joltBinary(["status", "--socket", sock])
        #expect(status.code == 0 && status.out.contains("jolt \(BuildInfo.description), sensor ok"), "\(status)")
        #expect(joltBinary(["arm", "--socket", sock]).code == 0)
        let bad = joltBinary(["output", "nothing", "--on", "--socket", sock, "--board", board])
        #expect(bad.code == 64, "\(bad)")
    }

    @Test("a triggered alarm: jolt output --off is refused, jolt disarm silences it")
    func triggeredNotSilenced() throws {
        let sock = socketPath()
        let board = try kioskBoard(socket: sock, untilDisarmed: true)   // lifted 12 s in; --fast gets there at once
        let run = try BackgroundJolt(["run", "--board", board, "--fast", "--forever"])
        defer { _ = run.stop() }
        #expect(waitForAlarm(sock, "triggered"), "\(run.stderr)")
        let off = joltBinary(["output", "buzzer", "--off", "--board", board])
        #expect(off.code == 1 && off.error.contains("disarm"), "\(off)")
        #expect(joltBinary(["disarm", "--socket", sock]).code == 0)
    }

    @Test("no board named anywhere: watch, record and output find the running jolt in the usual places, and say nothing of a simulated board")
    func attachWithoutBoard() throws {
        try #require(!FileManager.default.fileExists(atPath: "/etc/jolt/jolt.json"), "an installed profile names the board")
        // The clients look in /run/jolt first: no other test's jolt may be there meanwhile.
        // A login's runtime folder of its own: the running jolt's socket goes there, and the
        // clients look there, with no --board, --socket or $JOLT_BOARD.
        try UsualSocketPlaces.shared.withRuntimeFolder { runtime, env in try attachWithoutBoardAlone(runtime, env) }
    }

    func attachWithoutBoardAlone(_ runtime: String, _ env: [String: String]) throws {
        var text = try String(contentsOfFile: packageRoot + "/boards/kiosk-alarm.json", encoding: .utf8)
        text = text.edited("\"motion\": \"lift\"", "\"motion\": \"rest\"").edited("\"armed_at_start\": true", "\"armed_at_start\": false")
        let run = try BackgroundJolt(["run", "--board", tempFile(text, name: "kiosk.json")], environment: env)
        defer { _ = run.stop() }
        #expect(run.wait(for: "control socket \(runtime)/jolt.sock"), "\(run.stderr)")
        let w = joltBinary(["watch", "--plain", "--seconds", "1"], environment: env)
        #expect(w.code == 0 && w.error.contains("attached to the running jolt"), "\(w)")
        #expect(!w.error.contains("simulated board"), "it attached; no board was resolved: \(w.error)")
        let out = NSTemporaryDirectory() + "attached-\(UUID()).csv"
        defer { unlink(out) }
        let r = joltBinary(["record", "--seconds", "1", "-o", out], environment: env)
        #expect(r.code == 0 && r.error.contains("attached to the running jolt"), "\(r)")
        let o = joltBinary(["output", "buzzer", "--pulse", "100"], environment: env)
        #expect(o.code == 0 && o.out.hasPrefix("buzzer: ") && o.out.contains("through the running jolt"), "\(o)")
        let bad = joltBinary(["output", "siren", "--on"], environment: env)
        #expect(bad.code == 1 && bad.error.contains("siren"), "the running jolt names what it has: \(bad)")
        // With nothing running, output still asks for a board.
        _ = run.stop()
        let none = joltBinary(["output", "buzzer", "--on"], environment: env)
        #expect(none.code == 66 && none.error.contains("no board profile"), "\(none)")
    }

    @Test("watch and record given the board of the running simulated kiosk attach to it, and not to a run of another board")
    func attachWithItsBoard() throws {
        try UsualSocketPlaces.shared.withRuntimeFolder { runtime, env in
            var text = try String(contentsOfFile: packageRoot + "/boards/kiosk-alarm.json", encoding: .utf8)
            text = text.edited("\"motion\": \"lift\"", "\"motion\": \"rest\"").edited("\"armed_at_start\": true", "\"armed_at_start\": false")
            let board = tempFile(text, name: "kiosk.json")
            let run = try BackgroundJolt(["run", "--board", board], environment: env)
            defer { _ = run.stop() }
            #expect(run.wait(for: "control socket \(runtime)/jolt.sock"), "\(run.stderr)")
            let w = joltBinary(["watch", "--board", board, "--plain", "--seconds", "1"], environment: env)
            #expect(w.code == 0 && w.error.contains("attached to the running jolt"), "\(w)")
            let out = NSTemporaryDirectory() + "attached-\(UUID()).csv"
            defer { unlink(out) }
            let r = joltBinary(["record", "--board", board, "--seconds", "1", "-o", out], environment: env)
            #expect(r.code == 0 && r.error.contains("attached to the running jolt"), "\(r)")
            let other = tempFile(text, name: "other-kiosk.json")
            let o = joltBinary(["record", "--board", other, "--seconds", "1", "--fast", "-o", out], environment: env)
            #expect(o.code == 0 && !o.error.contains("attached to the running jolt"), "another board's file reads its own simulation: \(o)")
        }
    }

    @Test("watch attaches to the running jolt, read only, and shows its events")
    func watchAttached() throws {
        let sock = socketPath()
        let board = try restingKiosk(sock)
        let run = try BackgroundJolt(["run", "--board", board])
        defer { _ = run.stop() }
        #expect(run.wait(for: "control socket \(sock)"), "\(run.stderr)")
        let w = joltBinary(["watch", "--board", board, "--plain", "--seconds", "1.5"])
        #expect(w.code == 0, "\(w)")
        #expect(w.error.contains("attached to the running jolt"), "\(w.error)")
        let ticks = w.out.split(separator: "\n").filter { $0.contains(" |a| ") }
        #expect(ticks.count >= 2 && ticks.allSatisfy { $0.contains("face up") }, "\(w.out)")
        // The running jolt is not disturbed: still running, still answering.
        #expect(run.process.isRunning)
        #expect(joltBinary(["status", "--socket", sock]).code == 0)
    }

    @Test("record attaches to the running jolt and writes a trace that replays")
    func recordAttached() throws {
        let sock = socketPath()
        let board = try restingKiosk(sock)
        let run = try BackgroundJolt(["run", "--board", board])
        defer { _ = run.stop() }
        #expect(run.wait(for: "control socket \(sock)"), "\(run.stderr)")
        let out = NSTemporaryDirectory() + "attached-\(UUID()).csv"
        defer { unlink(out) }
        let r = joltBinary(["record", "--board", board, "--seconds", "1", "-o", out])
        #expect(r.code == 0 && r.error.contains("attached to the running jolt"), "\(r)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.contains("from the running jolt"))
        let rows = text.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(rows.count >= 95 && rows.count <= 101, "\(rows.count) rows for 1 s at 100 Hz")
        #expect(rows.first?.hasPrefix("0.00") == true, "\(rows.first ?? "")")
        #expect(jolt(["replay", out]).code == .ok)
    }

    @Test("record keeps a gap where samples were lost, as jolt run does: the times jump, no seam")
    func recordKeepsGaps() throws {
        // A 2 s host stall 3 s in: the FIFO (1024 bytes: under 1 s at 100 Hz) overflows.
        let board = tempFile(#"{"bus": "sim", "chip": "mpu6050", "rate_hz": 100, "sim": {"motion": "rest", "faults": [{"kind": "stall", "at_s": 3, "for_s": 2}]}}"#, name: "stall.json")
        let out = NSTemporaryDirectory() + "gap-\(UUID()).csv"
        defer { unlink(out) }
        let r = joltBinary(["record", "--board", board, "--seconds", "8", "--fast", "-o", out])
        #expect(r.code == 0, "\(r)")
        let times = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
            .filter { $0.first?.isNumber == true }.compactMap { Double($0.split(separator: ",")[0]) }
        let steps = zip(times, times.dropFirst()).map { $1 - $0 }
        let gaps = steps.filter { $0 > 0.015 }
        #expect(gaps.count == 1 && gaps[0] > 1.0, "one gap of the stall's length: \(gaps)")
        #expect(abs((times.last ?? 0) - 8) < 0.1, "the trace covers the 8 s asked: ends at \(times.last ?? 0)")
        #expect(r.error.contains("with gaps"), "\(r.error)")
    }

    @Test("record past the end of a simulated motion says so; calibrate rests the demo board")
    func simulatedEnds() throws {
        let out = NSTemporaryDirectory() + "short-\(UUID()).csv"
        let r = joltBinary(["record", "--board", packageRoot + "/boards/sim.json", "--seconds", "60", "--fast", "-o", out])
        #expect(r.code == 0 && r.error.contains("the simulated motion ended after") && r.error.contains("before the 60 s asked for"), "\(r.error)")
        let cal = NSTemporaryDirectory() + "cal-\(UUID()).json"
        let c = joltBinary(["calibrate", "--board", packageRoot + "/boards/sim.json", "-o", cal, "--fast"])
        #expect(c.code == 0 && c.error.contains("calibrating it at rest"), "\(c)")
        #expect(FileManager.default.fileExists(atPath: cal))
        // Writing through a link keeps the link and the file's mode (it may hold a password).
        let target = tempFile(try String(contentsOfFile: packageRoot + "/boards/sim.json", encoding: .utf8), name: "private.json")
        chmod(target, 0o640)
        let link = (target as NSString).deletingLastPathComponent + "/link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let k = joltBinary(["calibrate", "--board", link, "-o", link, "--fast"])
        #expect(k.code == 0, "\(k)")
        #expect((try FileManager.default.destinationOfSymbolicLink(atPath: link)) == target)
        var st = stat()
        #expect(stat(target, &st) == 0 && st.st_mode & 0o777 == 0o640, "mode \(String(st.st_mode & 0o777, radix: 8))")
        #expect(try String(contentsOfFile: target, encoding: .utf8).contains("\"offsets\""))
    }

    @Test("probe --all draws the bus as i2cdetect does and names the chip")
    func probeGrid() throws {
        let r = joltBinary(["probe", "--bus", "sim", "--all"])
        #expect(r.code == 0, "\(r)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.contains("     0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"))
        let row60 = try #require(lines.first { $0.hasPrefix("60:") })
        #expect(row60 == "60: -- -- -- -- -- -- -- -- 68 -- -- -- -- -- -- --", "\(row60)")
        #expect(lines.first { $0.hasPrefix("00:") } == "00:          -- -- -- -- -- -- -- -- -- -- -- -- --")
        #expect(r.out.contains("0x68  MPU6050"))
    }
}
