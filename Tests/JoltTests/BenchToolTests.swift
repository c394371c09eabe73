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
import JoltDrivers
import JoltCore
import JoltLinux
import JoltMotion
import JoltTrace
import JoltTestSupport
import Testing

/// A still device with gravity along `up` (device axes), `seconds` long, as a trace file.
func stillTrace(up: V3, seconds: Double = 5) -> String {
    var m = Motion(rate: 100, seed: 4)
    m.up = up.unit
    m.rest(seconds)
    var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
    for s in m.take() { text += TraceWriter.row(s, gyro: true) }
    return tempFile(text, name: "still.csv")
}

@Suite("jolt calibrate")
struct CalibrateTests {
    func board(_ extra: String = "", chip: String = "mpu6050") -> String {
        let rate = Hz.text(ChipRegistry.named(chip)?.info.rates.nearest(to: 100_000) ?? 100_000)
        return tempFile("""
        {
          "name": "bench", "bus": "sim", "rate_hz": \(rate), \(extra)
          "sim": { "chip": "\(chip)", "motion": "rest", "accel_bias_g": [0.05, -0.03, 0.02], "gyro_bias_dps": [1.5, -0.7, 0.2] }
        }
        """, name: "bench.json")
    }

    @Test("measures the simulated chip's bias as offsets and writes them; the written board loads and reads level", arguments: ChipRegistry.names)
    func offsets(chip: String) throws {
        let b = board(chip: chip)
        let out = NSTemporaryDirectory() + "cal-\(UUID().uuidString).json"
        let r = jolt(["calibrate", "--board", b, "-o", out, "--fast", "--json"])
        #expect(r.code == .ok, "\(r.error)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect(o["up"] as? String == "+z")
        let written = try BoardProfile.load(path: out)
        let a = written.mount.accelOffset
        #expect(abs(a.x - 50) <= 4 && abs(a.y + 30) <= 4 && abs(a.z - 20) <= 4, "accel offsets \(a) mg")
        if ChipRegistry.named(chip)?.info.hasGyro == true {
            let g = written.mount.gyroOffset
            #expect(abs(g.x - 1500) <= 30 && abs(g.y + 700) <= 30 && abs(g.z - 200) <= 30, "gyro offsets \(g) mdps")
        }
        // The rest of the file is kept: its name and its sim section.
        #expect(written.name == "bench" && written.sim.accelBias.x == 50)
        // Recorded through the written board, the device reads level: 0, 0, 1 g within the noise.
        let trace = NSTemporaryDirectory() + "cal-\(UUID().uuidString).csv"
        #expect(jolt(["record", "--board", out, "--seconds", "2", "--fast", "-o", trace]).code == .ok)
        let f = try TraceFile(path: trace)
        var sum = (0, 0, 0), n = 0
        while let s = try f.next() { sum.0 += Int(s.accel.x); sum.1 += Int(s.accel.y); sum.2 += Int(s.accel.z); n += 1 }
        #expect(abs(sum.0 / n) <= 4 && abs(sum.1 / n) <= 4 && abs(sum.2 / n - 1000) <= 4, "mean \(sum.0 / n), \(sum.1 / n), \(sum.2 / n) mg")
    }

    @Test("a device lying on its side: the mount that makes z point up is written where the board had none, suggested where it had one")
    func mount() throws {
        let trace = stillTrace(up: V3(0, -1, 0))
        let out = NSTemporaryDirectory() + "cal-\(UUID().uuidString).json"
        let r = jolt(["calibrate", "--board", board(), "-o", out, "--fast", "--trace", trace])
        #expect(r.code == .ok, "\(r.error)")
        #expect(r.out.contains("chip -y up") && r.out.contains("wrote \"mount\""), "\(r.out)")
        let b = try BoardProfile.load(path: out)
        // Through the new mount, gravity is on the board's +z.
        var mapping = b.mount
        mapping.accelOffset = .zero
        #expect(mapping.apply(Sample(t: 0, accel: Vec3(0, -1000, 0))).accel == Vec3(0, 0, 1000))
        let kept = NSTemporaryDirectory() + "cal-\(UUID().uuidString).json"
        let r2 = jolt(["calibrate", "--board", board(#""mount": {"x": "+x", "y": "+y", "z": "+z"},"#), "-o", kept, "--fast", "--trace", trace])
        #expect(r2.code == .ok && r2.out.contains("left as it is"), "\(r2.out)")
        var keptMount = try BoardProfile.load(path: kept).mount
        keptMount.accelOffset = .zero
        keptMount.gyroOffset = .zero
        #expect(keptMount == .identity)
    }

    @Test("refuses, writing nothing, when the device moves, is tilted, or the options are wrong")
    func refuses() throws {
        let out = NSTemporaryDirectory() + "cal-\(UUID().uuidString).json"
        var m = Motion(rate: 100, seed: 2)
        m.rest(1)
        m.shake(freq: 4, amp: 1, seconds: 1)
        m.rest(2)
        var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
        for s in m.take() { text += TraceWriter.row(s, gyro: true) }
        let moved = jolt(["calibrate", "--board", board(), "-o", out, "--fast", "--trace", tempFile(text)])
        #expect(moved.code == .tempFailure && moved.error.contains("the device moved during the measurement"), "\(moved.error)")
        let tilted = jolt(["calibrate", "--board", board(), "-o", out, "--fast", "--trace", stillTrace(up: V3(0.5, 0, 0.87))])
        #expect(tilted.code == .tempFailure && tilted.error.contains("is tilted 3"), "\(tilted.error)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(jolt(["calibrate", "--board", board()]).code == .usage)
        #expect(jolt(["calibrate", "-o", out]).code == .noInput, "no profile named, none installed")
        #expect(jolt(["calibrate", "--board", board(), "-o", out, "--seconds", "0"]).code == .usage)
        #expect(jolt(["calibrate", "--board", board(), "-o", "/nonexistent/dir/b.json", "--fast"]).code == .cannotCreate)
    }

    @Test("the judgement on its own: a sleeping chip's zeros, a reading far from 1 g")
    func judge() {
        var r = CalibrateCommand.Result()
        r.accelMean = [0, 0, 0]
        #expect(throws: JoltError.self) { try CalibrateCommand.judge(&r) }
        r.accelMean = [0, 0, 2000]
        do { try CalibrateCommand.judge(&r); Issue.record("2 g accepted") } catch { #expect(error.code == .unavailable && error.message.contains("2.000 g")) }
        r.accelMean = [10, -1000, 5]
        #expect(throws: Never.self) { try CalibrateCommand.judge(&r) }
        #expect(r.upAxis == 1 && r.upSign == -1 && r.accelOffset == [10, 0, 5])
    }
}

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The elements of an SVG file, parsed as XML: (name, attributes, text).
final class SVGElements: NSObject, XMLParserDelegate {
    var elements: [(String, [String: String], String)] = []
    var stack: [Int] = []
    var root: String?

    static func parse(_ path: String) throws -> SVGElements {
        let p = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        let d = SVGElements()
        p.delegate = d
        #expect(p.parse(), "well-formed XML: \(p.parserError.map { "\($0)" } ?? "")")
        return d
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if root == nil { root = name }
        elements.append((name, attributes, ""))
        stack.append(elements.count - 1)
    }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { stack.removeLast() }
    func parser(_ parser: XMLParser, foundCharacters s: String) { if let i = stack.last { elements[i].2 += s } }

    func all(_ name: String, _ attr: String? = nil, _ value: String? = nil) -> [(String, [String: String], String)] {
        elements.filter { $0.0 == name && (attr == nil || $0.1[attr!] == value) }
    }
}

@Suite("jolt plot")
struct PlotTests {
    func replayEvents(_ trace: String) throws -> [String] {
        let r = jolt(["replay", "--json", trace])
        return try r.out.split(separator: "\n").map { l in
            let o = try #require(try JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any])
            return "\(o["event"]!)\(o["phase"].map { ".\($0)" } ?? "")\(o["state"].map { ".\($0)" } ?? "")"
        }
    }

    @Test("the demo: an SVG with three panels, labelled axes, every series, the thresholds, and replay's events marked")
    func demo() throws {
        let trace = NSTemporaryDirectory() + "plot-\(UUID().uuidString).csv"
        #expect(jolt(["record", "--seconds", "14", "--fast", "-o", trace]).code == .ok)
        let svg = NSTemporaryDirectory() + "plot-\(UUID().uuidString).svg"
        let r = jolt(["plot", trace, "-o", svg])
        #expect(r.code == .ok, "\(r.error)")
        let x = try SVGElements.parse(svg)
        #expect(x.root == "svg")
        let root = try #require(x.elements.first)
        #expect(root.1["width"] == "1200" && root.1["viewBox"] != nil)
        #expect(x.all("title").first?.2 == trace)
        #expect(x.all("g", "class", "panel").count == 3)
        let titles = x.all("text", "class", "panel-title").map(\.2)
        #expect(titles == ["acceleration (g)", "dynamic acceleration |a − gravity| (g)", "rotation rate (°/s)"])
        #expect(x.all("text", "id", "x-label").first?.2 == "time (s)")
        #expect(x.all("text", "class", "tick").count >= 15)
        for s in ["ax", "ay", "az", "mag", "gz", "dyn", "rx", "ry", "rz"] {
            let path = try #require(x.all("path", "id", "series-\(s)").first, "series \(s)")
            #expect((path.1["d"] ?? "").count > 1000, "series \(s) is drawn")
        }
        let thresholds = x.all("text", "class", "threshold-label").map(\.2)
        #expect(thresholds.contains("shake threshold 0.7 g") && thresholds.contains("strong 1.2 g") && thresholds.contains { $0.hasPrefix("face down below") })
        let marked = x.all("line", "class", "event").map { $0.1["data-event"]! }
        let replay = try replayEvents(trace)
        #expect(marked == ["shake.began", "shake.ended", "flip.face_down", "flip.face_up"])
        #expect(marked == replay, "the same events as jolt replay: \(replay)")
        #expect(x.all("text", "class", "event-label").map(\.2).first?.hasPrefix("shake began") == true)
        #expect(x.all("rect", "class", "shake-span").count == 1)
    }

    @Test("an hour of trace stays a small picture (a min-max envelope per pixel) with every event; an accelerometer-only trace has two panels")
    func long() throws {
        var m = Motion(rate: 100, seed: 9)
        for i in 0..<40 {
            m.rest(85)
            if i % 2 == 0 { m.shake(freq: 5, amp: 2.2, seconds: 1.5) } else { m.rotate(axis: V3(1, 0, 0), degrees: 180, seconds: 0.7); m.rest(3); m.rotate(axis: V3(1, 0, 0), degrees: -180, seconds: 0.7) }
        }
        var text = TraceWriter.header(rateMilliHz: 100_000, gyro: false)
        for s in m.take() { text += TraceWriter.row(s, gyro: false) }
        let trace = tempFile(text, name: "hour.csv")
        let svg = NSTemporaryDirectory() + "plot-\(UUID().uuidString).svg"
        #expect(jolt(["plot", trace, "-o", svg, "--sensitivity", "high"]).code == .ok)
        let size = try FileManager.default.attributesOfItem(atPath: svg)[.size] as! Int
        #expect(size < 1_000_000, "\(size) bytes")
        let x = try SVGElements.parse(svg)
        #expect(x.all("g", "class", "panel").count == 2)
        let replay = jolt(["replay", "--json", "--sensitivity", "high", trace]).out.split(separator: "\n").count
        #expect(x.all("line", "class", "event").count == replay && replay >= 60, "\(replay) events")
    }

    @Test("--arm: two more panels, the tamper detector's speed against move_mm_s and its tilt against tilt_deg, and each tamper labelled with its reason")
    func armed() throws {
        let trace = NSTemporaryDirectory() + "plot-\(UUID().uuidString).csv"
        #expect(jolt(["record", "--board", packageRoot + "/boards/kiosk-alarm.json", "--seconds", "20", "--fast", "-o", trace]).code == .ok)
        let svg = NSTemporaryDirectory() + "plot-\(UUID().uuidString).svg"
        let r = jolt(["plot", trace, "-o", svg, "--arm"])
        #expect(r.code == .ok, "\(r.error)")
        let x = try SVGElements.parse(svg)
        let titles = x.all("text", "class", "panel-title").map(\.2)
        #expect(titles.suffix(2) == ["tamper: speed (mm/s)", "tamper: tilt from where it was armed (°)"], "\(titles)")
        for s in ["speed", "tilt"] {
            #expect((x.all("path", "id", "series-\(s)").first?.1["d"] ?? "").count > 1000, "series \(s) is drawn")
        }
        let thresholds = x.all("text", "class", "threshold-label").map(\.2)
        #expect(thresholds.contains("move_mm_s 20 (for 120 ms)") && thresholds.contains("tilt_deg 10"), "\(thresholds)")
        let labels = x.all("text", "class", "event-label").map(\.2)
        #expect(labels.first(where: { $0.hasPrefix("tamper") })?.hasPrefix("tamper: moved ") == true, "the lift, with its reason: \(labels)")
        // Not armed: three panels, as before.
        #expect(jolt(["plot", trace, "-o", svg]).code == .ok)
        #expect(try SVGElements.parse(svg).all("g", "class", "panel").count == 3)
    }

    @Test("bad uses: no -o, two traces, standard input, a missing file, a trace of one sample")
    func bad() {
        #expect(jolt(["plot", "x.csv"]).code == .usage)
        #expect(jolt(["plot", "a.csv", "b.csv", "-o", "x.svg"]).code == .usage)
        #expect(jolt(["plot", "-", "-o", "x.svg"]).code == .usage)
        #expect(jolt(["plot", "/nonexistent/t.csv", "-o", "x.svg"]).code == .noInput)
        let one = jolt(["plot", tempFile("# rate_hz: 50\nt,ax,ay,az\n0,0,0,1\n"), "-o", NSTemporaryDirectory() + "one.svg"])
        #expect(one.code == .dataError, "\(one.error)")
    }
}

@Suite("jolt watch")
struct WatchTests {
    @Test("not on a terminal: a plain line every half second and each event as it fires")
    func plain() {
        let r = jolt(["watch", "--fast", "--seconds", "14"])
        #expect(r.code == .ok, "\(r.error)")
        let lines = r.out.split(separator: "\n").map(String.init)
        let ticks = lines.filter { $0.contains(" |a| ") }
        #expect(ticks.count == 28, "\(ticks.count) lines")
        #expect(ticks.first?.hasPrefix("0.0 s  x ") == true && ticks.allSatisfy { $0.contains("face") && $0.contains("shake") })
        let events = lines.filter { !$0.contains(" |a| ") }
        #expect(events.count == 4 && events[0].contains("shake began") && events[2].contains("flip: face down"), "\(events)")
        #expect(ticks.contains { $0.contains("face down") })
    }

    @Test("on an alarm's board, without the service: the tamper detector watches a second in, the lift is a tamper with its reason, speed and tilt shown against their settings")
    func kioskWalk() {
        let r = jolt(["watch", "--board", packageRoot + "/boards/kiosk-alarm.json", "--fast", "--seconds", "20"])
        #expect(r.code == .ok, "\(r.error)")
        let lines = r.out.split(separator: "\n").map(String.init)
        let ticks = lines.filter { $0.contains(" |a| ") }
        #expect(!ticks[0].contains("tamper speed") && ticks[3].contains("tamper speed 0/20 mm/s tilt "), "armed after a second: \(ticks.prefix(4))")
        #expect(ticks.contains { l in l.split(separator: " ").contains { $0.hasSuffix("/20") && (Int($0.dropLast(3)) ?? 0) > 100 } }, "the lift's speed shows")
        let events = lines.filter { !$0.contains(" |a| ") }
        #expect(events.first?.contains("tamper: moved ") == true, "\(events)")
        // A board without an alarm arms nothing.
        let plain = jolt(["watch", "--fast", "--seconds", "3"])
        #expect(!plain.out.contains("tamper"))
    }

    @Test("the screen is 24 lines of at most 80 characters, with every part in it")
    func screen() {
        let w = WatchCommand(board: BoardProfile.builtInSim, options: WatchCommand.Options(), out: TextOutput.capturing())
        w.state.title = "jolt watch: MPU6050 (WHO_AM_I 0x68) on /dev/i2c-1, 100 Hz, ±4 g"
        w.state.sample = Sample(t: 12_340_000, accel: Vec3(120, -3400, -980), gyro: Vec3(45_000, 0, -1000))
        w.state.gravity = Vec3(0, 0, -1000)
        w.state.faceDown = true
        w.state.dynamicPeak = 900
        w.state.progress = 2
        w.state.reference = Vec3(0, 0, 1000)
        w.state.events = (0..<9).map { EventRecord(t: Int64($0) * 1_000_000, kind: .shake(.began), peakMilliG: 1500).human }
        let lines = w.render()
        #expect(lines.count == 24)
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines.map(\.count))")
        let text = lines.joined(separator: "\n")
        for part in ["q quits", "accel (g)", "rotation (°/s)", "orientation  face down", "peak |a - gravity|  0.90 g", "lobes in a row 2 of 3", "tilt 180.0°", "last events", "8.000 s  shake began"] {
            #expect(text.contains(part), "\(part) in\n\(text)")
        }
        // The bars span ±2 g: -3.4 g runs off the left end, marked "<"; 1 g fills half of +.
        let y = try! #require(lines.first { $0.hasPrefix("   y") })
        #expect(y.contains("-3.400") && y.contains("[<#####"), "\(y)")
        w.state.sample = Sample(t: 0, accel: Vec3(0, 0, 1000))
        let z = try! #require(w.render().first { $0.hasPrefix("   z") })
        let filled = z.filter { $0 == "#" }.count
        #expect(filled >= 12 && filled <= 15, "rest is a quarter of the bar, not one #: \(z)")
        // After a shake the count of lobes never runs past what makes one.
        w.state.progress = 12
        #expect(w.render().joined().contains("lobes in a row 3 of 3"))
        w.state.shaking = true
        #expect(w.render().joined().contains(", shaking"))
        // A wider terminal gets wider bars.
        let wide = w.render(width: 132, height: 24)
        #expect(wide.contains { $0.count > 100 } && wide.allSatisfy { $0.count <= 132 })
        // A frame is home, each line cleared to its end, the rest of the screen cleared:
        // no escape sequence is cut.
        let frame = WatchCommand.frame(["a", "b"])
        #expect(frame == "\u{1B}[Ha\u{1B}[K\r\nb\u{1B}[K\u{1B}[J")
        // At 80 columns a long title gives way to "q quits".
        w.state.title = "jolt watch: MPU6050 (WHO_AM_I 0x68) on /dev/i2c-1, 100 Hz (the running jolt) at the counter"
        let head = w.render(width: 80, height: 24).first ?? ""
        #expect(head.count <= 80 && head.hasSuffix("q quits") && head.contains("…"), "\(head)")
        // A small terminal gets the top of the screen, cut to its width.
        #expect(w.render(width: 40, height: 10).count == 10 && w.render(width: 40, height: 10).allSatisfy { $0.count <= 40 })
        // While the tamper detector watches: its speed as a bar against move_mm_s, its tilt.
        w.state.tamper = (speedMMs: 35, tiltDeci: 124)
        w.state.speedPeak = 35
        let armed = w.render(width: 80, height: 24)
        #expect(armed.count == 24 && armed.allSatisfy { $0.count <= 80 })
        let text2 = armed.joined(separator: "\n")
        for part in ["tamper  speed   35 mm/s [", "move_mm_s 20 for 120 ms; tilt 12.4° of 10.0° since armed", "last events"] {
            #expect(text2.contains(part), "\(part) in\n\(text2)")
        }
    }

    /// q typed, or the SIGINT a terminal sends its foreground program for Ctrl-C (this pty is
    /// not the program's controlling terminal, so the test sends the signal itself).
    @Test("on a terminal: the live screen, then q or Ctrl-C quits with status 0 and the terminal given back", arguments: ["q", "ctrl-c"])
    func terminal(quit: String) throws {
        let (master, slaveName) = try #require(Terminal.openPseudoTerminal())
        let slave = try #require(FileHandle(forUpdatingAtPath: slaveName))
        var before = termios()
        #expect(tcgetattr(slave.fileDescriptor, &before) == 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: packageRoot + "/.build/debug/jolt")
        p.arguments = ["watch"]
        p.standardInput = slave
        p.standardOutput = slave
        p.standardError = slave
        try p.run()
        var screen: [UInt8] = []
        func drain(_ seconds: Double) {
            let end = Date().addingTimeInterval(seconds)
            var buf = [UInt8](repeating: 0, count: 65536)
            while Date() < end {
                var fds = [pollfd(fd: master, events: Int16(POLLIN), revents: 0)]
                if poll(&fds, 1, 50) > 0 {
                    let n = read(master, &buf, buf.count)
                    if n > 0 { screen += buf[0..<n] }
                }
            }
        }
        drain(3.5)
        if quit == "q" {
            var k = UInt8(ascii: "q")
            _ = write(master, &k, 1)
        } else {
            kill(p.processIdentifier, SIGINT)
        }
        let asked = Date()
        while p.isRunning && Date().timeIntervalSince(asked) < 5 { drain(0.1) }
        drain(0.2)
        let text = String(decoding: screen, as: UTF8.self)
        if p.isRunning {
            Issue.record("still running 5 s after the key; the screen ended: \(text.suffix(300).debugDescription)")
            p.terminate()
            p.waitUntilExit()
        }
        #expect(p.terminationStatus == 0, "status \(p.terminationStatus)")
        #expect(text.contains("\u{1B}[?1049h"), "the alternate screen")
        #expect(text.contains("shake began"), "the demo's shake on the screen")
        #expect(text.contains("accel (g)") && text.contains("orientation"))
        #expect(!text.contains("\u{1B}[\u{1B}"), "no broken escape sequence")
        // Eight frames a second, as documented (the first comes after start-up).
        let frames = text.components(separatedBy: "\u{1B}[H").count - 1
        #expect(frames >= 16, "\(frames) frames in 3.5 s")
        #expect(text.hasSuffix("\u{1B}[?25h\u{1B}[?1049l"), "cursor and screen given back: \(text.suffix(60).debugDescription)")
        var after = termios()
        #expect(tcgetattr(slave.fileDescriptor, &after) == 0)
        #expect(after.c_lflag == before.c_lflag, "echo and line mode back as they were")
        close(master)
    }
}

@Suite("Bench tools on real recordings")
struct BenchToolsOnRecordings {
    static let traces = ["s1_003_TRAP.csv", "s3_006_FEL.csv", "s2_043_PEN.csv"]

    @Test("plot marks what replay finds; watch plays it; calibrate refuses a moving wrist", arguments: traces)
    func recording(name: String) throws {
        let trace = testData + "/wrist-imu/" + name
        let svg = NSTemporaryDirectory() + "plot-\(UUID().uuidString).svg"
        #expect(jolt(["plot", trace, "-o", svg, "--sensitivity", "high"]).code == .ok)
        let marked = try SVGElements.parse(svg).all("line", "class", "event").count
        let replay = jolt(["replay", "--json", "--sensitivity", "high", trace]).out.split(separator: "\n").count
        #expect(marked == replay)
        let w = jolt(["watch", "--board", packageRoot + "/boards/sim.json", "--trace", trace, "--fast", "--seconds", "10"])
        #expect(w.code == .ok && w.out.split(separator: "\n").filter { $0.contains(" |a| ") }.count == 20, "\(w.error)")
        let out = NSTemporaryDirectory() + "cal-\(UUID().uuidString).json"
        let c = jolt(["calibrate", "--board", packageRoot + "/boards/sim.json", "-o", out, "--fast", "--trace", trace])
        #expect(c.code == .tempFailure && c.error.contains("moved"), "\(c.error)")
    }
}
