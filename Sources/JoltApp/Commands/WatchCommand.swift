#if canImport(Glibc)
import Glibc
#endif
import JoltCore
import JoltLinux
import JoltTrace
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltChips
import JoltConfig
import JoltControl
import JoltCorpus
import JoltDrivers
import JoltEngine
import JoltJSON
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport

/// `jolt watch`: what the sensor sees, live. On a terminal, a screen redrawn eight times a second
/// (80×24 is enough, over SSH too; it follows the terminal's width): each axis and the magnitude
/// as bars, the orientation, the detectors' levels against their thresholds, the last events.
/// Otherwise one plain line every half second and the events as they fire. The samples come from
/// the running `jolt run` when one holds the board (read only), else from `jolt run`'s own loop
/// started here (the same detectors, the same fault handling; outputs, alarm and actions left
/// alone): `LiveFeed`.
final class WatchCommand: LiveView {
    struct Options {
        var fast = false
        var trace: String?
        var limitMicros: Int64?
        /// Plain lines even on a terminal.
        var plain = false
        /// The control socket of a running jolt to attach to.
        var socket: String?
        /// Attach to a running jolt before anything else (`CLIBoard.attachFirst`).
        var attachFirst = false
    }

    /// What the screen shows, updated sample by sample.
    struct State {
        var title = ""
        var rangeG: Int32 = 4
        var gyroRangeDps: Int32 = 500
        var hasGyro = true
        var sample = Sample(t: 0, accel: Vec3(0, 0, 1000))
        var gravity = Vec3(0, 0, 1000)
        /// The largest dynamic acceleration since the last redraw, mg.
        var dynamicPeak: Int32 = 0
        var dynamic: Int32 = 0
        var progress: Int32 = 0
        /// Between a shake's `began` and its end.
        var shaking = false
        var faceDown = false
        /// Gravity when the view started (after 1 s): the tamper detector's reference.
        var reference: Vec3?
        /// While the tamper detector watches: the largest speed since the last redraw, mm/s, and
        /// the tilt from where it was armed, tenths of a degree.
        var tamper: (speedMMs: Int32, tiltDeci: Int32)?
        var speedPeak: Int32 = 0
        var events: [String] = []
        var samples = 0
        var sensorOK = true
        var faults = 0
        var periodMicros: Int64 = 10_000
        var settings = DetectionSettings(rateMilliHz: 100_000, gyro: true)
    }

    let board: BoardProfile
    let options: Options
    let out: TextOutput
    var state = State()
    var terminal: Terminal?
    var lastDraw: Int64 = 0
    var nextLine: Int64 = 0

    init(board: BoardProfile, options: Options, out: TextOutput) {
        self.board = board
        self.options = options
        self.out = out
        state.settings = board.detection
        state.gyroRangeDps = board.gyroRangeDps
    }

    func run() throws(JoltError) {
        // A live screen needs a terminal on both sides: keys in, frames out.
        terminal = options.plain || !out.isTerminal ? nil : Terminal(input: 0)
        if terminal != nil {
            out.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")   // alternate screen, no cursor
            out.flush()
        }
        defer {
            if let t = terminal {
                out.write("\u{1B}[?25h\u{1B}[?1049l")
                out.flush()
                t.restore()
            }
        }
        let wasVerbose = Log.verbose
        if terminal != nil { Log.verbose = false }   // log lines would tear the screen
        defer { Log.verbose = wasVerbose }
        var o = LiveFeed.Options(fast: options.fast, trace: options.trace, limitMicros: options.limitMicros, socket: options.socket)
        o.loop = true
        o.attachFirst = options.attachFirst
        o.watchTamper = true
        if try LiveFeed.run(board: board, options: o, view: self) == .serverGone {
            throw JoltError(.unavailable, "watch: the running jolt stopped")
        }
    }

    func started(_ info: LiveFeed.Info) {
        state.title = "jolt watch: \(info.identity) on \(info.bus), \(hz(info.rateMilliHz)) Hz\(info.attachedTo != nil ? " (the running jolt)" : "")"
        state.rangeG = max(info.rangeMilliG / 1000, 1)
        state.gyroRangeDps = info.gyroRangeDps
        state.hasGyro = info.hasGyro
        state.periodMicros = Units.periodMicros(rateMilliHz: info.rateMilliHz)
        state.settings.rateMilliHz = info.rateMilliHz
        state.settings.gyro = info.hasGyro
    }

    func sample(_ s: Sample, _ levels: LiveLevels) {
        state.sample = s
        state.gravity = levels.gravity
        let d = s.accel - levels.gravity
        let dyn = Int32(clamping: Int64(Double(d.lengthSquared).squareRoot()))
        state.dynamic = dyn
        state.dynamicPeak = max(state.dynamicPeak, dyn)
        state.progress = levels.shakeProgress
        state.faceDown = levels.faceDown
        state.tamper = levels.tamper
        if let t = levels.tamper { state.speedPeak = max(state.speedPeak, t.speedMMs) }
        state.samples += 1
        if state.reference == nil && Int64(state.samples) * state.periodMicros >= 1_000_000 {
            state.reference = levels.gravity
        }
        if terminal == nil && s.t >= nextLine {
            nextLine = s.t + 500_000
            out.write(plainLine() + "\n")
            out.flush()
            state.dynamicPeak = 0
            state.speedPeak = 0
        }
    }

    func event(_ human: String, kind: String) {
        state.events.append(human)
        if state.events.count > 6 { state.events.removeFirst() }
        if kind == "fault" { state.sensorOK = false; state.faults += 1 }
        if kind == "recovered" { state.sensorOK = true }
        if kind == "shake.began" { state.shaking = true }
        if kind == "shake.ended" || kind == "shake.cancelled" { state.shaking = false }
        if terminal == nil {
            out.write(human + "\n")
            out.flush()
        }
    }

    func wake(now: Int64) -> Bool {
        guard let t = terminal else { return false }
        if t.keys().contains(where: { $0 == UInt8(ascii: "q") || $0 == UInt8(ascii: "Q") || $0 == 3 }) { return true }
        guard now - lastDraw >= 120_000 else { return false }
        lastDraw = now
        let size = Terminal.size(1) ?? (24, 80)
        out.write(Self.frame(render(width: size.columns, height: size.rows)))
        out.flush()
        state.dynamicPeak = 0
        state.speedPeak = 0
        return false
    }

    /// A whole screen: home, each line cleared to its end, and the rest of the screen cleared.
    static func frame(_ lines: [String]) -> String {
        "\u{1B}[H" + lines.joined(separator: "\u{1B}[K\r\n") + "\u{1B}[K\u{1B}[J"
    }

    // MARK: text

    /// mg as g with two decimals, rounded: 700 → "0.70".
    static func g2(_ mg: Int32) -> String { TraceWriter.decimal((Int64(mg) + (mg >= 0 ? 5 : -5)) / 10, places: 2, trim: false) }

    static func fixed(_ v: Int32, places: Int, sign: Bool = true) -> String {
        let s = TraceWriter.decimal(Int64(v), places: places, trim: false)
        return sign && v >= 0 ? "+" + s : s
    }

    /// A bar `width` characters wide for `value` in `lo...hi`: `#` filled from zero (marked `|`
    /// when zero is inside), `.` empty; `marks` put a character at values (thresholds).
    static func bar(_ value: Double, lo: Double, hi: Double, width: Int, marks: [(Double, Character)] = []) -> String {
        var cells = [Character](repeating: ".", count: width)
        func col(_ v: Double) -> Int { min(max(Int(((v - lo) / (hi - lo) * Double(width)).rounded(.down)), 0), width - 1) }
        let zero = col(max(lo, min(0, hi)))
        let at = col(value)
        if value >= 0 {
            if zero <= at { for i in zero...at { cells[i] = "#" } }
        } else {
            if at <= zero { for i in at...zero { cells[i] = "#" } }
        }
        for (v, c) in marks where v >= lo && v <= hi { cells[col(v)] = c }
        if lo < 0 && hi > 0 && cells[zero] != "#" { cells[zero] = "|" }
        return "[" + String(cells) + "]"
    }

    /// A bar's heading: `title`, then `lo`, `0` and `hi` over the bar's two ends and its middle
    /// (bars start at column 16).
    static func scale(_ title: String, lo: String, hi: String, width: Int) -> String {
        var cells = [Character](repeating: " ", count: 16 + width + 2)
        for (i, c) in title.enumerated() where i < cells.count { cells[i] = c }
        func put(_ text: String, at col: Int) { for (i, c) in text.enumerated() where col + i < cells.count && col + i >= 0 { cells[col + i] = c } }
        put(lo, at: 16)
        put("0", at: 17 + width / 2)
        put(hi, at: 17 + width - hi.count)
        return String(cells)
    }

    /// Where gravity points, in words.
    func orientation() -> String {
        let g = state.gravity
        let m = Double(max(g.lengthSquared, 1)).squareRoot()
        let level = acos(min(max(Double(g.z) / m, -1), 1)) * 180 / Double.pi
        let comps = [("x", g.x), ("y", g.y), ("z", g.z)]
        let (axis, v) = comps.max { abs($0.1) < abs($1.1) }!
        let words: String
        if axis == "z" {
            words = v > 0 ? "face up" : "face down"
        } else {
            words = "on its side (\(v > 0 ? "+" : "-")\(axis) up)"
        }
        return "\(words), \(Int(level.rounded()))° from face up (gravity z \(Self.fixed(g.z, places: 3)) g)"
    }

    func tamperTilt() -> Double? {
        guard let r = state.reference else { return nil }
        let g = state.gravity
        let dot = Double(r.x) * Double(g.x) + Double(r.y) * Double(g.y) + Double(r.z) * Double(g.z)
        let m = (Double(r.lengthSquared) * Double(g.lengthSquared)).squareRoot()
        guard m > 0 else { return nil }
        return acos(min(max(dot / m, -1), 1)) * 180 / Double.pi
    }

    /// One plain line: time, axes, magnitude, rotation, orientation, the shake level.
    func plainLine() -> String {
        let s = state.sample
        let a = Int32(clamping: Int64(Double(s.accel.lengthSquared).squareRoot()))
        var line = "\(EventRecord.seconds(s.t / 10_000 * 10_000)) s  x \(Self.fixed(s.accel.x, places: 3)) y \(Self.fixed(s.accel.y, places: 3)) z \(Self.fixed(s.accel.z, places: 3)) |a| \(Self.fixed(a, places: 3, sign: false)) g"
        if state.hasGyro {
            line += "  rot \(Self.fixed(s.gyro.x / 100, places: 1)) \(Self.fixed(s.gyro.y / 100, places: 1)) \(Self.fixed(s.gyro.z / 100, places: 1)) °/s"
        }
        line += "  \(state.faceDown ? "face down" : "face up")  shake peak \(Self.g2(state.dynamicPeak))/\(Self.g2(state.settings.shake.thresholdMilliG)) g"
        if state.settings.shakeAlgorithm == .jolt {
            line += state.shaking ? " shaking" : " lobes \(min(state.progress, state.settings.shake.minLobes))/\(state.settings.shake.minLobes)"
        }
        if let t = state.tamper {
            line += "  tamper speed \(state.speedPeak)/\(state.settings.tamper.moveSpeedMMs) mm/s tilt \(format1(Double(t.tiltDeci) / 10))/\(format1(Double(state.settings.tamper.tiltDeci) / 10))°"
        }
        return line
    }

    /// The accelerometer bars' scale, g: ±2 g shows rest (1 g) at half a bar and a shake's
    /// lobes; beyond it a bar ends in `>` or `<`. Never more than the chip's range.
    var accelScale: Double { Double(min(state.rangeG, 2)) }
    /// The rotation bars' scale, °/s.
    var gyroScale: Double { Double(min(state.gyroRangeDps, 500)) }

    /// The screen as lines, fitted to `width` × `height` (made for 80×24; wider terminals get
    /// wider bars).
    func render(width: Int = 80, height: Int = 24) -> [String] {
        let s = state.sample
        let w = max(20, min(width - 28, 120))
        let range = accelScale
        func clipped(_ v: Double, _ lim: Double) -> String {
            var b = Self.bar(max(-lim, min(lim, v)), lo: -lim, hi: lim, width: w)
            if v > lim { b = String(b.dropLast(2)) + ">]" }
            if v < -lim { b = "[<" + String(b.dropFirst(2)) }
            return b
        }
        var lines: [String] = []
        // The title gives way to "q quits" on a narrow terminal (80 columns): it ends in "…".
        let room = max(1, width - 9)
        let head = state.title.count > room ? String(state.title.prefix(room - 1)) + "…" : state.title
        lines.append(head + String(repeating: " ", count: max(1, width - head.count - 9)) + "q quits")
        lines.append("")
        lines.append(Self.scale(" accel (g)", lo: "-\(Int(range))", hi: "+\(Int(range))", width: w))
        for (name, v) in [("x", s.accel.x), ("y", s.accel.y), ("z", s.accel.z)] {
            lines.append("   \(name)  \(Self.fixed(v, places: 3).leftPadded(7))  " + clipped(Double(v) / 1000, range))
        }
        let a = Int32(clamping: Int64(Double(s.accel.lengthSquared).squareRoot()))
        lines.append(" |a|  \(Self.fixed(a, places: 3, sign: false).leftPadded(7))  " + clipped(Double(a) / 1000, range))
        if state.hasGyro {
            let r = gyroScale
            lines.append(Self.scale(" rotation (°/s)", lo: "-\(Int(r))", hi: "+\(Int(r))", width: w))
            for (name, v) in [("x", s.gyro.x), ("y", s.gyro.y), ("z", s.gyro.z)] {
                lines.append("   \(name)  \(Self.fixed(v / 100, places: 1).leftPadded(7))  " + clipped(Double(v) / 1000, r))
            }
        }
        lines.append(" orientation  " + orientation())
        lines.append("")
        let sh = state.settings.shake
        let top = Double(max(sh.strongMilliG * 3 / 2, 2000)) / 1000
        lines.append(" shake   peak |a - gravity| \(Self.g2(state.dynamicPeak).leftPadded(5)) g " + Self.bar(Double(state.dynamicPeak) / 1000, lo: 0, hi: top, width: max(20, w - 24), marks: [(Double(sh.thresholdMilliG) / 1000, ":"), (Double(sh.strongMilliG) / 1000, "!")]))
        var detail = ": threshold \(Self.g2(sh.thresholdMilliG)) g, ! strong \(Self.g2(sh.strongMilliG)) g"
        if state.settings.shakeAlgorithm == .jolt {
            detail += state.shaking ? ", shaking" : ", lobes in a row \(min(state.progress, sh.minLobes)) of \(sh.minLobes)"
        } else {
            detail += " (\(state.settings.shakeAlgorithm.name) algorithm)"
        }
        lines.append("         " + detail)
        let fd = -cos(Double(state.settings.flip.faceDownAngleDeci) / 10 * Double.pi / 180)
        lines.append(" flip    \(state.faceDown ? "face down" : "face up"); face down when gravity z < \(Self.g2(Int32((fd * 1000).rounded()))) g (now \(state.gravity.z >= 0 ? "+" : "")\(Self.g2(state.gravity.z)) g)")
        lines += tamperLines(barWidth: max(20, w - 24))
        lines.append("")
        lines.append(" last events")
        let shown = max(0, height - lines.count - 1)
        let recent = state.events.suffix(min(shown, 6))
        for e in recent { lines.append("  " + e) }
        if recent.isEmpty { lines.append("   (none yet)") }
        while lines.count < height - 1 { lines.append("") }
        lines.append(" t \(EventRecord.seconds(s.t / 100_000 * 100_000)) s   \(state.samples) samples   sensor \(state.sensorOK ? "ok" : "FAULT")   faults \(state.faults)")
        return lines.prefix(height).map { String($0.prefix(width)) }
    }

    /// The tamper lines: while its detector watches, its speed as a bar against move_mm_s and its
    /// tilt; otherwise the tilt from where the kiosk lay when the view started.
    func tamperLines(barWidth: Int) -> [String] {
        var out: [String] = []
        let ts = state.settings.tamper, limit = Double(ts.tiltDeci) / 10
        if let t = state.tamper {
            // As the armed detector judges it: its speed against move_mm_s, its tilt against tilt_deg.
            let top = Double(max(ts.moveSpeedMMs * 3, 60))
            out.append(" tamper  speed \(String(state.speedPeak).leftPadded(4)) mm/s " + Self.bar(Double(state.speedPeak), lo: 0, hi: top, width: barWidth, marks: [(Double(ts.moveSpeedMMs), ":")]))
            out.append("         : move_mm_s \(ts.moveSpeedMMs) for \(ts.moveMillis) ms; tilt \(format1(Double(t.tiltDeci) / 10))° of \(format1(limit))° since armed")
        } else {
            out.append(" tamper  " + (tamperTilt().map { "tilt \(format1($0))° of \(format1(limit))° from where it lay at the start (not armed)" } ?? "taking the reference…"))
        }
        return out
    }

    func format1(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return TraceWriter.decimal(Int64((r * 10).rounded()), places: 1, trim: false)
    }
}
