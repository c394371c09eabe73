import Foundation
@testable import JoltConfig
@testable import JoltSupport
@testable import JoltControl
import JoltTestSupport
import JoltLinux
import Testing

@Suite("An owner's mistakes are refused, not run")
struct OwnerMistakeTests {
    func load(_ alarm: String, actions: String = "") throws(JoltError) -> BoardProfile {
        let text = #"{"bus": "sim", "chip": "mpu6050", "outputs": {"buzzer": {"line": "GPIO17"}},"# + actions + #" "alarm": {\#(alarm)}}"#
        return try BoardProfile.parse(Array(text.utf8), file: "kiosk.json")
    }

    @Test("an alarm with nothing to sound is refused at load, with the fix; an output, a bound output or command, or silent on purpose loads")
    func alarmMustSound() throws {
        for (alarm, actions) in [(#""triggers": ["tamper"]"#, ""),
                                 (#""triggers": ["tamper"]"#, #" "actions": {"alarm.triggered": [{"stdout": true}], "shake.began": [{"output": "buzzer", "pulse_ms": 100}]},"#)] {
            do throws(JoltError) {
                _ = try load(alarm, actions: actions)
                Issue.record("an alarm that cannot sound loaded: \(actions)")
            } catch {
                #expect(error.code == .config && error.message.hasPrefix("kiosk.json:1: alarm: nothing sounds"), "\(error.message)")
                #expect(error.message.contains("\"silent\": true") && error.message.contains("\"output\""), "\(error.message)")
            }
        }
        #expect(try load(#""output": "buzzer""#).alarm?.output == "buzzer")
        #expect(try load("", actions: #" "actions": {"alarm.triggered": [{"output": "buzzer", "pulse_ms": 2000}]},"#).alarm != nil)
        #expect(try load("", actions: #" "actions": {"alarm.triggered": [{"command": ["/usr/local/bin/siren"]}]},"#).alarm != nil)
        #expect(try load(#""silent": true"#).alarm?.silent == true)
    }

    @Test("a profile that names no bus is for the Pi's I2C bus, never the simulator: a kiosk's file that forgot the key does not quietly play a demo")
    func noBusIsThePi() throws {
        let text = #"{"chip": "mpu6050", "sim": {"motion": "lift"}, "outputs": {"buzzer": {"line": "GPIO17"}}, "alarm": {"output": "buzzer"}}"#
        let b = try BoardProfile.parse(Array(text.utf8), file: "kiosk.json")
        #expect(b.bus == "/dev/i2c-1" && !b.isSimulated)
        // Here, with no I2C bus: refused with the fix, where the simulated bus would have run.
        let r = jolt(["run", "--board", tempFile(text, name: "kiosk.json"), "--seconds", "1"])
        #expect(r.code == .unavailable && r.error.contains("no I2C bus /dev/i2c-1: enable I2C"), "\(r.code) \(r.error)")
    }

    @Test("the bench checks what the Pi would: a chip at an address it cannot answer at, a line the Pi's header lacks; an address out of range says what it found")
    func benchChecksThePi() throws {
        func refused(_ text: String) -> String {
            do throws(JoltError) {
                _ = try BoardProfile.parse(Array(text.utf8), file: "kiosk.json")
                return "loaded"
            } catch { return error.message }
        }
        #expect(refused(#"{"bus": "sim", "chip": "adxl345", "address": "0x68"}"#).contains("an ADXL345 answers at 0x53 or 0x1d only (found 0x68)"))
        #expect(refused(#"{"bus": "/dev/i2c-1", "chip": "mpu6050", "address": "0x53"}"#).contains("an MPU6050 answers at 0x68 or 0x69 only (found 0x53)"))
        #expect(refused(#"{"bus": "sim", "chip": "mpu6050", "address": "0x69"}"#) == "loaded", "the MPU6050's other address, its AD0 pin high")
        let gpio = refused(#"{"bus": "sim", "outputs": {"buzzer": {"line": "GPIO99"}}, "alarm": {"output": "buzzer"}}"#)
        #expect(gpio.contains("buzzer: line \"GPIO99\" is not on a Raspberry Pi's header (GPIO0 to GPIO27)"), "\(gpio)")
        #expect(refused(#"{"bus": "/dev/i2c-1", "outputs": {"buzzer": {"line": "EXP_LINE_3"}}, "alarm": {"output": "buzzer"}}"#) == "loaded",
                "a real board may name another GPIO chip's lines")
        #expect(refused(#"{"bus": "sim", "address": "0x99"}"#).contains("(found \"0x99\")"))
    }

    @Test("jolt run on the kiosk board less its buzzer and its triggered action: exit 78 before anything starts")
    func kioskWithoutBuzzer() throws {
        var text = try String(contentsOfFile: packageRoot + "/boards/kiosk-alarm.json", encoding: .utf8)
        text = text.edited("    \"output\": \"buzzer\",\n", "")
        text = text.edited("    \"alarm.triggered\": [{ \"stdout\": true }],\n", "")
        let r = joltBinary(["run", "--board", tempFile(text, name: "kiosk-silent.json"), "--fast", "--seconds", "5"])
        #expect(r.code == 78 && r.error.contains("nothing sounds when the alarm triggers"), "\(r)")
    }
}

@Suite("Recordings survive a crash", .serialized)
struct CrashedRecordingTests {
    /// A real trace of 10 s at rest, as jolt writes one.
    func trace() -> String { try! String(contentsOfFile: restTrace(seconds: 10), encoding: .utf8) }

    @Test("a last row cut short is left out with a warning by replay; a bad row before the end is still refused with its line")
    func partialLastRow() throws {
        let whole = trace()
        let cut = tempFile(String(whole.dropLast(9)), name: "cut.csv")
        let r = joltBinary(["replay", cut])
        #expect(r.code == 0 && r.error.contains("cut.csv:") && r.error.contains("the last row is cut short"), "\(r)")
        var lines = whole.split(separator: "\n", omittingEmptySubsequences: false)
        lines[40] = lines[40].prefix(12)
        let damaged = tempFile(lines.joined(separator: "\n"), name: "damaged.csv")
        let d = jolt(["replay", damaged])
        #expect(d.code == .dataError && d.error.contains("damaged.csv:41:"), "\(d)")
    }

    @Test("jolt record killed while it records: the file holds the seconds before, not an empty buffer")
    func recordKilled() throws {
        let path = NSTemporaryDirectory() + "killed-\(UUID()).csv"
        let rec = try BackgroundJolt(["record", "--board", packageRoot + "/boards/sim.json", "--seconds", "60", "-o", path])
        func rows() -> [Substring] {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.first?.isNumber == true }
        }
        // Flushed every second of the recording: 1.5 s of 100 Hz rows reach the disk long before
        // the minute is over (a recording flushed only at its end would have none).
        #expect(eventually(seconds: 20) { rows().count >= 150 }, "\(rows().count) rows on disk")
        kill(rec.process.processIdentifier, SIGKILL)
        rec.process.waitUntilExit()
        #expect(rows().count >= 150, "\(rows().count) rows after the kill")
        let r = jolt(["replay", path])
        #expect(r.code == .ok, "\(r)")
    }

    @Test("tune over a folder with a damaged recording: the damage reported, the other recordings used")
    func tuneFolder() throws {
        let dir = NSTemporaryDirectory() + "tune-damaged-\(UUID())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try trace().write(toFile: dir + "/rest.csv", atomically: true, encoding: .utf8)
        try "# jolt-trace v1\nt,ax,ay,az\n0.00,0,0,1\nnot a row\n0.02,0,0,1\n".write(toFile: dir + "/broken.csv", atomically: true, encoding: .utf8)
        let r = joltBinary(["tune", "--board", packageRoot + "/boards/kiosk-alarm.json", dir])
        #expect(r.code == 0 && r.error.contains("broken.csv:4:") && r.error.contains("left out"), "\(r)")
        let alone = jolt(["tune", "--board", packageRoot + "/boards/kiosk-alarm.json", dir + "/broken.csv"])
        #expect(alone.code == .dataError, "\(alone)")
    }
}

@Suite("jolt reload", .serialized)
struct ReloadCommandTests {
    @Test("jolt reload: what changed, or why it was refused and the running profile kept")
    func reload() throws {
        let sock = socketPath()
        let text = try String(contentsOfFile: try kioskBoard(socket: sock), encoding: .utf8).edited("\"motion\": \"lift\"", "\"motion\": \"rest\"")
        let path = tempFile(text, name: "kiosk-reload.json")
        let run = try BackgroundJolt(["run", "--board", path, "--seconds", "30"])
        defer { _ = run.stop() }
        #expect(waitForAlarm(sock, "armed"), "\(run.stderr)")
        let same = joltBinary(["reload", "--socket", sock])
        #expect(same.code == 0 && same.out.contains("reloaded \(path): nothing changed"), "\(same)")
        try text.edited("\"sensitivity\": \"medium\"", "\"sensitivity\": \"high\"").write(toFile: path, atomically: true, encoding: .utf8)
        let changed = joltBinary(["reload", "--socket", sock])
        #expect(changed.code == 0 && changed.out.contains("detection.sensitivity"), "\(changed)")
        try text.edited("\"rate_hz\": 100", "\"rate_hz\": 200").write(toFile: path, atomically: true, encoding: .utf8)
        let refused = joltBinary(["reload", "--socket", sock])
        #expect(refused.code != 0 && refused.error.contains("rate_hz changed") && refused.error.contains("only a restart applies"), "\(refused)")
        #expect(alarmState(sock) == "armed", "the alarm kept its state through the reloads")
    }
}

@Suite("One way to name the profile")
struct ProfileNamingTests {
    @Test("every command that reads a profile takes --board FILE and says so in its help; replay and plot keep --config as its other name")
    func helps() {
        for command in ["run", "watch", "record", "calibrate", "output", "safe", "tune", "replay", "plot"] {
            let h = joltBinary([command, "--help"])
            #expect(h.code == 0 && h.out.contains("--board FILE"), "jolt \(command) --help: \(h)")
        }
        for command in ["replay", "plot", "tune"] {
            let both = joltBinary([command, "--board", "a.json", "--config", "b.json", "-o", "x.svg", "x.csv"].filter { command == "plot" || ($0 != "-o" && $0 != "x.svg") })
            #expect(both.code == 64 && both.error.contains("--config is --board by another name"), "jolt \(command): \(both)")
        }
    }

    @Test("replay reads $JOLT_BOARD when no profile is named, and --board or --config when one is")
    func replayReadsTheBoard() throws {
        let trace = restTrace(seconds: 2)
        let missing = joltBinary(["replay", trace], environment: ["JOLT_BOARD": "/nonexistent/kiosk.json"])
        #expect(missing.code == 66 && missing.error.contains("/nonexistent/kiosk.json"), "\(missing)")
        let kiosk = packageRoot + "/boards/kiosk-alarm.json"
        for option in ["--board", "--config"] {
            let r = joltBinary(["replay", option, kiosk, "--arm", trace])
            #expect(r.code == 0, "\(option): \(r)")
        }
        let tune = joltBinary(["tune", "--config", kiosk, trace])
        #expect(tune.code == 0 && tune.out.contains("now (medium)"), "\(tune)")
    }
}

@Suite("tune never weakens an alarm quietly")
struct TuneGuardTests {
    @Test("a lift among the site's recordings: the suggestion is shown rule by rule against today's, and not written without --force")
    func liftInTheSite() throws {
        let dir = NSTemporaryDirectory() + "tune-lift-\(UUID())"
        for sub in ["site", "walk"] { try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true) }
        let lift = try String(contentsOfFile: liftTrace(), encoding: .utf8)
        try lift.write(toFile: dir + "/walk/lift.csv", atomically: true, encoding: .utf8)
        try lift.write(toFile: dir + "/site/lift.csv", atomically: true, encoding: .utf8)
        try String(contentsOfFile: restTrace(seconds: 20), encoding: .utf8).write(toFile: dir + "/site/rest.csv", atomically: true, encoding: .utf8)
        let board = packageRoot + "/boards/kiosk-alarm.json", out = dir + "/tuned.json"
        let r = joltBinary(["tune", "--board", board, "--moves", dir + "/walk", dir + "/site", "-o", out])
        #expect(r.code == 1 && r.error.contains("not written") && r.error.contains("--force"), "\(r)")
        #expect(r.error.contains("it would miss the test move") || r.error.contains("would still trigger") || r.error.contains("falls short"), "\(r.error)")
        #expect(r.out.contains("against today's profile (a setting raised N× is N times harder to trip): tamper.move_mm_s 20 → "), "\(r.out)")
        #expect(r.out.contains("test moves, with the suggestion, rule by rule:\n  \(dir)/walk/lift.csv: "), "\(r.out)")
        #expect(!FileManager.default.fileExists(atPath: out), "written without --force")
        let forced = joltBinary(["tune", "--board", board, "--moves", dir + "/walk", dir + "/site", "-o", out, "--force"])
        #expect(forced.code == 0 && forced.error.contains("jolt tune --force: writing \(out) although"), "\(forced)")
        #expect(FileManager.default.fileExists(atPath: out))
    }
}

@Suite("A state folder Jolt may not write", .serialized)
struct ReadOnlyStateTests {
    @Test("as the service's user over a folder it may not write: the trouble and the evidence say permission, and no event names a file never written")
    func readOnlyStateFolder() throws {
        let state = NSTemporaryDirectory() + "jolt-ro-\(UUID())"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let sock = NSTemporaryDirectory() + "jolt-ro-\(UUID().uuidString.prefix(6)).sock"
        let board = try kioskBoard(socket: sock)
        for f in [board, liftTrace()] { chmod(f, 0o644); chmod((f as NSString).deletingLastPathComponent, 0o755) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", packageRoot + "/.build/debug/jolt",
                       "run", "--board", board, "--trace", liftTrace(), "--fast", "--seconds", "20", "--json", "--state-dir", state]
        p.currentDirectoryURL = URL(fileURLWithPath: "/")
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let triggered = stdout.split(separator: "\n").compactMap { json(String($0)) }.filter { $0["event"] as? String == "alarm" && $0["state"] as? String == "triggered" }
        #expect(!triggered.isEmpty, "the lift never triggered: \(stderr)")
        #expect(triggered.allSatisfy { $0["evidence"] == nil }, "\(triggered)")
        #expect(stderr.contains("alarm: no evidence is kept: \(state)/evidence does not exist and \(state) is not writable by this process (EACCES)"), "\(stderr)")
        #expect(stderr.contains("trouble: the alarm's state is not saved") && stderr.contains("permission denied"), "\(stderr)")
    }
}

@Suite("Small words an owner reads")
struct OwnerWordsTests {
    @Test("a mistyped choice gets a did-you-mean; one beep is not 'apart'")
    func words() {
        do throws(JoltError) {
            _ = try BoardProfile.parse(Array(#"{"bus": "sim", "detection": {"sensitivity": "meduim"}}"#.utf8), file: "b.json")
            Issue.record("meduim loaded")
        } catch {
            #expect(error.message.contains("found \"meduim\" (did you mean \"medium\"?)"), "\(error.message)")
        }
        #expect(Pattern.beeps(on: 200, off: 200, count: 1).text == "1 beep of 200 ms")
        #expect(Pattern.beeps(on: 200, off: 100, count: 3).text == "3 beeps of 200 ms, 100 ms apart")
    }

    @Test("on a terminal, record's progress bar is cleared before a log line: no line starts after the bar")
    func barThenLog() throws {
        // script(1) gives jolt a terminal; the demo ends before the 30 s asked, so jolt says so
        // while the bar is drawn.
        let out = tempFile("", name: "bar.csv")
        let p = Process(), pipe = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qec", "\(packageRoot)/.build/debug/jolt record --board \(packageRoot)/boards/sim.json --seconds 30 -o \(out)", "/dev/null"]
        p.standardOutput = pipe
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0 && text.contains("recording ") && text.contains("jolt: stopped: "), "\(text)")
        // What comes before each "jolt: ": the start, a line's end, or the bar cleared.
        let before = text.components(separatedBy: "jolt: ").dropLast()
        #expect(before.count >= 2)
        for b in before {
            #expect(b.isEmpty || b.unicodeScalars.last == "\n" || b.hasSuffix("\u{1B}[K"), "a log line after \(b.suffix(60).debugDescription)")
        }
    }
}

@Suite("watch shows a walk test's margin")
struct WatchMarginTests {
    @Test("jolt watch on the simulated kiosk: its lift shows as a tamper with its margin over the setting it passed")
    func lift() {
        let w = joltBinary(["watch", "--board", packageRoot + "/boards/kiosk-alarm.json", "--plain", "--fast", "--seconds", "14"])
        let tamper = w.out.split(separator: "\n").first { $0.contains("tamper: moved") }.map(String.init) ?? ""
        #expect(w.code == 0 && tamper.contains("× move_mm_s 20 mm/s)"), "\(tamper) \(w.error)")
    }
}

@Suite("calibrate checks where it writes before it measures")
struct CalibrateWritableTests {
    @Test("calibrate onto a file it may not write: refused at once, naming the file and the permission")
    func readOnlyTarget() throws {
        let dir = NSTemporaryDirectory() + "jolt-cal-\(UUID())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let target = dir + "/kiosk.json"
        try String(contentsOfFile: packageRoot + "/boards/sim.json", encoding: .utf8).write(toFile: target, atomically: true, encoding: .utf8)
        chmod(target, 0o644)
        let t0 = Date()
        let r = joltAsNobody(["calibrate", "--board", target, "-o", target, "--seconds", "5"])
        #expect(r.code == 77 && r.error.contains("\(target): not writable (EACCES)"), "\(r)")
        #expect(Date().timeIntervalSince(t0) < 4, "it measured for 5 s before refusing")
    }
}

@Suite("jolt status: running without a socket, or nothing running")
struct StatusWithoutSocketTests {
    @Test("a made-up /proc: jolt run is found, swift run's parent, jolt status and other programs are not")
    func findsRuns() throws {
        let proc = NSTemporaryDirectory() + "jolt-proc-\(UUID())"
        let rows: [(String, [String])] = [("31", ["/usr/bin/jolt", "run", "--board", "sim.json"]), ("7", [".build/debug/jolt", "run"]),
                                          ("40", ["swift", "run", "jolt", "run"]), ("41", ["jolt", "status"]), ("42", ["/bin/joltish", "run"]), ("self", ["jolt", "run"])]
        for (pid, args) in rows {
            try FileManager.default.createDirectory(atPath: proc + "/" + pid, withIntermediateDirectories: true)
            let bytes: [UInt8] = args.flatMap { Array($0.utf8) + [0] }
            #expect(FileManager.default.createFile(atPath: proc + "/\(pid)/cmdline", contents: Data(bytes)))
        }
        let found = JoltProcess.all(proc: proc)
        #expect(found == [JoltProcess(pid: 7, command: ".build/debug/jolt run"), JoltProcess(pid: 31, command: "/usr/bin/jolt run --board sim.json")], "\(found)")
        #expect(JoltProcess.all(proc: proc + "/none").isEmpty)
    }

    @Test("a simulated board without an alarm opens no socket: jolt status says a jolt runs, with its pid and why it cannot be reached")
    func runningWithoutSocket() throws {
        try UsualSocketPlaces.shared.withRuntimeFolder { _, env in
            let text = try String(contentsOfFile: packageRoot + "/boards/sim.json", encoding: .utf8).edited("\"motion\": \"demo\"", "\"motion\": \"rest\"")
            let run = try BackgroundJolt(["run", "--board", tempFile(text, name: "quiet-sim.json"), "--seconds", "60"], environment: env)
            defer { _ = run.stop() }
            #expect(run.wait(for: "MPU6050"), "\(run.stderr)")
            try #require(!FileManager.default.fileExists(atPath: "/run/jolt/jolt.sock"), "a jolt service runs on this machine")
            let r = joltBinary(["status"], environment: env)
            #expect(r.code == ExitCode.unavailable.rawValue, "\(r)")
            #expect(r.error.contains("a jolt runs (pid ") && r.error.contains("no control socket") && r.error.contains("control.socket"), "\(r.error)")
            #expect(JoltProcess.all().contains { $0.pid == run.process.processIdentifier && $0.command.hasSuffix("--seconds 60") })
        }
    }
}
