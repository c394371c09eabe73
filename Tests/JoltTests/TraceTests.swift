import Foundation
import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltCore
import JoltTrace
import JoltTestSupport
import Testing

/// Writes `text` to a temporary file and returns its path.
func tempFile(_ text: String, name: String = "trace.csv") -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jolt-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let url = dir.appendingPathComponent(name)
    _ = FileManager.default.createFile(atPath: url.path, contents: Data(text.utf8))
    return url.path
}

func tempFile(bytes: [UInt8], name: String = "trace.csv") -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jolt-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let url = dir.appendingPathComponent(name)
    _ = FileManager.default.createFile(atPath: url.path, contents: Data(bytes))
    return url.path
}

/// Runs `jolt ARGS` in process and returns (exit code, stdout, error message).
func jolt(_ args: [String]) -> (code: ExitCode, out: String, error: String) {
    let out = TextOutput.capturing()
    do {
        try JoltCLI.dispatch(args, out: out)
        return (.ok, out.text, "")
    } catch {
        return (error.code, out.text, error.message)
    }
}

@Suite("Traces and replay")
struct TraceTests {
    @Test("parses a trace with columns in any order, CRLF endings and metadata")
    func parse() throws {
        let p = tempFile("# jolt-trace v1\r\n# rate_hz: 50\r\n# source: test\r\n\r\naz, t ,ax,gz,ay,gx,gy,extra\r\n1.0,0.00,0.1,3.5,0.2,1.5,2.5,x\r\n-1.0,0.02,0.1,0,0.2,0,0,y\r\n")
        let f = try TraceFile(path: p)
        #expect(f.rateMilliHz == 50_000)
        #expect(f.header.hasGyro)
        #expect(f.header.metadata.map(\.key) == ["rate_hz", "source"])
        let s0 = try #require(try f.next())
        #expect(s0 == Sample(t: 0, accel: Vec3(100, 200, 1000), gyro: Vec3(1500, 2500, 3500)))
        let s1 = try #require(try f.next())
        #expect(s1.t == 20_000 && s1.accel.z == -1000)
        #expect(try f.next() == nil)
    }

    @Test("replay --samples prints the samples as the detectors get them, in whole numbers, after the set-up line")
    func samples() {
        let p = tempFile("# jolt-trace v1\n# rate_hz: 50\n# range_g: 4\nt,ax,ay,az,gx,gy,gz\n0.00,0.1,0.2,1.0,1.5,2.5,3.5\n0.02,-0.0005,0.2,-1.0,0,0,-0.001\n")
        let r = jolt(["replay", "--samples", p])
        #expect(r.code == .ok, "\(r.error)")
        // 50 Hz, and no word that Jolt recorded it: its taps may be folded into spikes.
        #expect(r.out == "# jolt samples: rate_mhz=50000 gyro=1 range_mg=4000 may_alias=1\n0 100 200 1000 1500 2500 3500\n20000 -1 200 -1000 0 0 -1\n", "\(r.out)")
        let accelOnly = jolt(["replay", "--samples", tempFile("t,ax,ay,az\n0,0,0,1\n0.01,0,0,1\n")])
        #expect(accelOnly.out.hasPrefix("# jolt samples: rate_mhz=100000 gyro=0 range_mg=0\n0 0 0 1000 0 0 0\n"), "\(accelOnly.out)")
    }

    @Test("measures the rate when the trace does not give it")
    func inferredRate() throws {
        let f = try TraceFile(path: tempFile("t,ax,ay,az\n0,0,0,1\n0.01,0,0,1\n0.02,0,0,1\n"))
        #expect(f.rateMilliHz == 100_000)
        #expect(!f.header.hasGyro)
        var n = 0
        while try f.next() != nil { n += 1 }
        #expect(n == 3, "the samples read to measure the rate are not lost")
    }

    static let bad: [(String, String, ExitCode)] = [
        ("", "the file is empty", .dataError),
        ("# only a comment\n", "no header row", .dataError),
        ("t,ax,ay\n0,0,0\n", "lacks column az", .dataError),
        ("ax,ay,az\n0,0,0\n", "lacks column t", .dataError),
        ("t,ax,ay,az,gx\n", "only some of gx,gy,gz", .dataError),
        ("t,ax,ax,ay,az\n", "appears twice", .dataError),
        ("0.0,1,2,3\n0.1,1,2,3\n", "found data", .dataError),
        ("# rate_hz: 50\nt,ax,ay,az\n0,0,0,1\n0.02,0,zero,1\n", "4: column ay: 'zero' is not a number", .dataError),
        ("# rate_hz: 50\nt,ax,ay,az\n0,0,0,1\n0.02,0,0\n", "4: row has 3 columns, the header has 4", .dataError),
        ("# rate_hz: 50\nt,ax,ay,az\n0,0,0,1,5\n", "3: row has more than the header's 4 columns", .dataError),
        ("# rate_hz: 50\nt,ax,ay,az\n0.1,0,0,1\n0.1,0,0,1\n", "4: time does not increase: t=0.1 after t=0.1 on line 3", .dataError),
        ("# rate_hz: 50\nt,ax,ay,az\n0.1,0,0,1\n0.05,0,0,1\n", "time does not increase", .dataError),
        ("# rate_hz: 50\nt,ax,ay,az\n0,nan,0,1\n", "'nan' is not a number", .dataError),
        ("# rate_hz: 50\nt,ax,ay,az\n0,-inf,0,1\n", "is not a number", .dataError),
        ("# rate_hz: 50\nt,ax,ay,az\n0,5000,0,1\n", "out of range", .dataError),
        ("# rate_hz: 5\nt,ax,ay,az\n0,0,0,1\n", "rate 5.0 Hz is outside the supported 12.5-1000 Hz", .dataError),
        ("t,ax,ay,az\n0,0,0,1\n", "fewer than two samples", .dataError),
    ]

    @Test("bad traces give one line naming the file and line", arguments: bad)
    func badTrace(text: String, message: String, code: ExitCode) {
        let p = tempFile(text)
        let r = jolt(["replay", p])
        #expect(r.code == code)
        #expect(r.error.contains(p), "names the file: \(r.error)")
        #expect(r.error.contains(message), "\(r.error)")
        #expect(!r.error.contains("\n"))
    }

    @Test("deep in a long trace (replay's bulk reader): a bad row is named by its line; no final newline loses nothing")
    func deepRows() {
        var rows = "# rate_hz: 100\nt,ax,ay,az\n"
        for i in 0..<30_000 { rows += "\(Double(i) / 100),0.001,0.002,\(i % 2 == 0 ? "1.000" : "0.998")\n" }
        let bad = tempFile(rows.edited("\n250.0,", "\n250.0,x"))
        let r = jolt(["replay", bad])
        #expect(r.code == .dataError)
        #expect(r.error.contains("\(bad):25003: "), "\(r.error)")
        let whole = jolt(["replay", "--samples", tempFile(rows)])
        let cut = jolt(["replay", "--samples", tempFile(String(rows.dropLast()))])
        #expect(whole.code == .ok && cut.code == .ok)
        #expect(whole.out.split(separator: "\n").count >= 30_000 && whole.out == cut.out)
    }

    @Test("binary garbage, non-UTF-8 and a 100 MB line are refused cleanly")
    func garbage() {
        var rng = SplitMix64(state: 3)
        let bin = tempFile(bytes: (0..<100_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        let r1 = jolt(["replay", bin])
        #expect(r1.code == .dataError, "\(r1.error)")
        let utf = tempFile(bytes: Array("# rate_hz: 50\nt,ax,ay,az\n0,0,0,1\n0.02,\u{0}".utf8) + [0xFF, 0xFE] + Array(",0,1\n".utf8))
        let r2 = jolt(["replay", utf])
        #expect(r2.code == .dataError)
        #expect(r2.error.contains(":4: column ax"), "\(r2.error)")
        let long = tempFile(bytes: Array("t,ax,ay,az\n".utf8) + [UInt8](repeating: 0x31, count: 100_000_000))
        let r3 = jolt(["replay", long])
        #expect(r3.code == .dataError)
        #expect(r3.error.contains("longer than"), "\(r3.error)")
    }

    @Test("a missing file, a directory, a wrong argument")
    func missing() {
        let r = jolt(["replay", "/nonexistent/trace.csv"])
        #expect(r.code == .noInput)
        #expect(r.error == "/nonexistent/trace.csv: no such file (check the path)")
        #expect(jolt(["replay", NSTemporaryDirectory()]).code == .noInput)
        #expect(jolt(["replay"]).code == .usage)
        #expect(jolt(["replay", "--bogus", "x.csv"]).code == .usage)
        #expect(jolt(["replay", "--algorithm", "magic", "x.csv"]).code == .usage)
        #expect(jolt(["replay", "--sensitivity"]).code == .usage)
        #expect(jolt(["frobnicate"]).code == .usage)
    }

    @Test("replay --json prints one JSON object per line and nothing else")
    func replayJSON() throws {
        var g = SignalBuilder(rate: 100)
        g.rest(1)
        g.shake(freq: 4, amp: 2, seconds: 1.5)
        g.rest(1.5)
        g.rotate(axis: (0, 1, 0), degrees: 180, seconds: 0.8)
        g.rest(2)
        g.rotate(axis: (0, 1, 0), degrees: 180, seconds: 0.8)
        g.rest(1)
        var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
        for s in g.samples { text += TraceWriter.row(s, gyro: true) }
        let p = tempFile(text)
        let r = jolt(["replay", "--json", p])
        #expect(r.code == .ok)
        let lines = r.out.split(separator: "\n").map(String.init)
        var kinds: [String] = []
        for l in lines {
            let obj = try #require(try JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any])
            #expect(obj["t"] is NSNumber)
            let e = try #require(obj["event"] as? String)
            kinds.append(e + "." + ((obj["phase"] as? String) ?? (obj["state"] as? String) ?? ""))
        }
        #expect(kinds == ["shake.began", "shake.ended", "flip.face_down", "flip.face_up"])
        // The human form says the same in words.
        let h = jolt(["replay", p])
        #expect(h.out.contains("shake began"))
        #expect(h.out.contains("flip: face down"))
    }

    @Test("a trace written by the writer reads back exactly")
    func roundTrip() throws {
        var g = SignalBuilder(rate: 400)
        g.shake(freq: 5, amp: 3, axis: (1, 1, 1), seconds: 0.5)
        var text = TraceWriter.header(rateMilliHz: 400_000, gyro: true)
        for s in g.samples { text += TraceWriter.row(s, gyro: true) }
        let f = try TraceFile(path: tempFile(text))
        for s in g.samples { #expect(try f.next() == s) }
    }

    @Test("replay --json works on every real recording in Tests/Data/wrist-imu")
    func wristData() throws {
        let dir = testData + "/wrist-imu"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".csv") }.sorted()
        #expect(files.count == 70)
        let r = jolt(["replay", "--json"] + files.map { dir + "/" + $0 })
        #expect(r.code == .ok, "\(r.error)")
        for l in r.out.split(separator: "\n") {
            let obj = try #require(try JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any])
            #expect(obj["event"] != nil && obj["t"] != nil && obj["file"] != nil)
        }
    }
}
