import Foundation
@testable import JoltApp
import Testing

/// Runs the built `jolt` binary with `args` in `directory` and an environment of its own (none
/// of the test runner's JOLT_ variables), and returns its exit status, stdout and stderr.
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
            #expect(safe.code == 64 && safe.error.contains("JOLT_BOARD") && safe.error.contains("/etc/jolt/jolt.json"), "\(safe)")
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

    @Test("docs/config.md is what jolt help --config prints (regenerate: .build/debug/jolt help --config > docs/config.md)")
    func current() throws {
        let file = try String(contentsOfFile: packageRoot + "/docs/config.md", encoding: .utf8)
        #expect(file == ConfigDoc.markdown)
        #expect(file.contains("`detection.tamper.tilt_deg` | number, 0.5 to 90 degrees | 10 (low: 20, high: 5)"))
    }
}
