#if canImport(Glibc)
import Glibc
#endif
import JoltCore
import JoltEngine
import JoltTrace
import JoltActions
import JoltBaselines
import JoltBoard
import JoltBuildInfo
import JoltChips
import JoltConfig
import JoltControl
import JoltCorpus
import JoltDrivers
import JoltJSON
import JoltLinux
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport

/// `jolt plot`: a trace as an SVG picture — the three axes and the magnitude, the dynamic
/// acceleration against the shake thresholds, the rotation rate, and the events `jolt replay`
/// finds, marked and labelled — so that one can see why a shake fired or did not.
///
/// The trace is read twice, streaming: once for its span, once to draw. A long trace is drawn as
/// a min-max envelope per pixel column, so the picture stays small whatever the trace's length.
struct PlotCommand {
    var trace: String
    var output: String
    var board = BoardProfile()
    var arm = false

    // Geometry, px.
    static let width = 1200
    static let left = 78, right = 24
    static let top = 74, panelHeight = 210, gap = 46
    static var plotWidth: Int { width - left - right }

    /// Per pixel column: the lowest and highest value of each series.
    struct Envelope {
        var lo: [Int32], hi: [Int32], used: [Bool]
        init(_ n: Int) {
            lo = [Int32](repeating: .max, count: n)
            hi = [Int32](repeating: .min, count: n)
            used = [Bool](repeating: false, count: n)
        }
        mutating func add(_ c: Int, _ v: Int32) {
            lo[c] = min(lo[c], v)
            hi[c] = max(hi[c], v)
            used[c] = true
        }
    }

    /// The series drawn: acceleration x, y, z, magnitude, gravity z; dynamic magnitude;
    /// rotation x, y, z (mg, mg, mdps); armed (`--arm`), the tamper detector's speed and its
    /// tilt from where it was armed (mm/s, tenths of a degree).
    enum S: Int, CaseIterable { case ax, ay, az, mag, gz, dyn, rx, ry, rz, speed, tilt }

    struct Drawn {
        var envelopes: [Envelope]
        /// Up to twice the columns: every sample, drawn as a line through each.
        var points: [[(Int64, Int32)]]
        var events: [EventRecord] = []
        var samples = 0
        var first: Int64 = 0, last: Int64 = 0
        var hasGyro = false
        var rateMilliHz: Int32 = 0
        /// The tamper detector was armed: its speed and tilt are drawn.
        var armed = false
    }

    func run(out: TextOutput) throws(JoltError) {
        guard trace != "-" else { throw JoltError(.usage, "jolt plot: reads its trace twice, so it needs a file, not standard input") }
        // Pass 1: the span.
        let scan = try TraceFile(path: trace)
        var first: Int64?, last: Int64 = 0, count = 0
        while let s = try scan.next() {
            if first == nil { first = s.t }
            last = s.t
            count += 1
        }
        scan.close()
        guard let t0 = first, count >= 2 else { throw JoltError(.dataError, "\(trace): fewer than two samples to plot") }
        // Pass 2: envelopes, points, events.
        let file = try TraceFile(path: trace)
        let settings = file.detection(board.detection)
        var drawn = try withAnyDetectors(settings, Pass(file: file, settings: settings, first: t0, last: last, count: count, arm: arm))
        drawn.hasGyro = file.header.hasGyro
        drawn.rateMilliHz = file.rateMilliHz
        let svg = render(drawn, settings: settings)
        try AtomicFile.write(output, svg)
        Log.info("\(output): \(counted(drawn.samples, "sample")), \(counted(drawn.events.count, "event")), \(svg.utf8.count / 1024) KiB")
    }

    struct Pass: DetectorConsumer {
        let file: TraceFile
        let settings: DetectionSettings
        let first: Int64, last: Int64, count: Int
        let arm: Bool

        func consume<D: SampleDetector>(_ d: inout D) throws(JoltError) -> Drawn {
            let cols = PlotCommand.plotWidth
            let raw = count <= 2 * cols
            var out = Drawn(envelopes: S.allCases.map { _ in Envelope(cols) }, points: S.allCases.map { _ in [] })
            out.first = first
            out.last = last
            out.armed = arm
            var records: [EventRecord] = []
            let span = max(last - first, 1)
            while let s = try file.next() {
                let e = d.update(s)
                if out.samples == 0 && arm { d.armTamper() }
                out.samples += 1
                let g = d.gravity
                let dx = Int64(s.accel.x) - Int64(g.x), dy = Int64(s.accel.y) - Int64(g.y), dz = Int64(s.accel.z) - Int64(g.z)
                let dyn = Int32(clamping: Int64(Double(dx * dx + dy * dy + dz * dz).squareRoot()))
                let a2 = Int64(s.accel.x) * Int64(s.accel.x) + Int64(s.accel.y) * Int64(s.accel.y) + Int64(s.accel.z) * Int64(s.accel.z)
                let levels = LiveLevels(d).tamper
                let values: [Int32] = [s.accel.x, s.accel.y, s.accel.z, Int32(clamping: Int64(Double(a2).squareRoot())), g.z, dyn, s.gyro.x, s.gyro.y, s.gyro.z,
                                       levels?.speedMMs ?? 0, levels?.tiltDeci ?? 0]
                let c = min(Int((s.t - first) * Int64(cols) / span), cols - 1)
                for (i, v) in values.enumerated() {
                    out.envelopes[i].add(c, v)
                    if raw { out.points[i].append((s.t, v)) }
                }
                if !e.isEmpty {
                    records.removeAll(keepingCapacity: true)
                    EventBuilder.records(e, at: s.t, detectors: d, settings: settings, into: &records)
                    out.events += records
                }
            }
            return out
        }
    }

    // MARK: drawing

    /// 1, 2 or 5 × 10^k: the tick step that gives about `target` ticks over `span`.
    static func niceStep(_ span: Double, target: Double) -> Double {
        let raw = max(span / target, 1e-9)
        var p = 1.0
        while p * 10 <= raw { p *= 10 }
        while p > raw { p /= 10 }
        for m in [1.0, 2.0, 5.0, 10.0] where p * m >= raw { return p * m }
        return p * 10
    }

    static func num(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        if r == r.rounded() { return String(Int(r)) }
        return String(r)
    }

    static func escape(_ s: String) -> String {
        var o = ""
        for c in s {
            switch c {
            case "&": o += "&amp;"
            case "<": o += "&lt;"
            case ">": o += "&gt;"
            case "\"": o += "&quot;"
            default: o.append(c)
            }
        }
        return o
    }

    struct Panel {
        var title: String, unit: String, top: Int
        var lo: Double, hi: Double
        /// Series: id, legend, colour, scale (value / scale = plotted unit), dashed.
        var series: [(S, String, String, Double, Bool)]
        /// Horizontal lines: value, label, colour, dashed.
        var lines: [(Double, String, String, Bool)]
    }

    /// Where things go: time to x, and the panels' bottom edge.
    struct Canvas {
        let d: Drawn
        let span: Double
        var bottom = 0
        init(_ d: Drawn) {
            self.d = d
            span = Double(max(d.last - d.first, 1)) / 1e6
        }
        func x(_ t: Int64) -> Double { Double(PlotCommand.left) + Double(t - d.first) / 1e6 / span * Double(PlotCommand.plotWidth) }
    }

    /// The SVG of a drawn trace: title, shakes shaded, time ticks, the panels, the events.
    func render(_ d: Drawn, settings: DetectionSettings) -> String {
        let panels = Self.panels(d, settings: settings)
        var c = Canvas(d)
        c.bottom = (panels.last?.top ?? Self.top) + Self.panelHeight
        let W = Self.width, H = c.bottom + 56
        var s = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(W)" height="\(H)" viewBox="0 0 \(W) \(H)" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">
        <title>\(Self.escape(trace))</title>
        <rect width="\(W)" height="\(H)" fill="white"/>

        """
        let name = trace.split(separator: "/").last.map(String.init) ?? trace
        let alg = "\(settings.shakeAlgorithm.name) shake, \(settings.flipAlgorithm.name) flip"
        s += "<text id=\"title\" x=\"\(Self.left)\" y=\"22\" font-size=\"16\" font-weight=\"bold\">\(Self.escape(name))</text>\n"
        s += "<text id=\"subtitle\" x=\"\(Self.left)\" y=\"40\" fill=\"#555\">\(d.samples) samples, \(Self.num(c.span)) s at \(hz(d.rateMilliHz)) Hz · \(Self.escape(alg)) · \(d.events.count) event\(d.events.count == 1 ? "" : "s")</text>\n"
        s += Self.shakeSpans(c) + Self.timeTicks(c)
        for (i, p) in panels.enumerated() { s += Self.panel(p, index: i, c) }
        return s + Self.events(c) + "</svg>\n"
    }

    /// Shakes as shaded spans, under everything.
    static func shakeSpans(_ c: Canvas) -> String {
        var s = ""
        var began: Int64?
        for e in c.d.events {
            switch e.kind {
            case .shake(.began): began = e.t
            case .shake(.ended), .shake(.cancelled):
                if let b = began {
                    let colour = e.kind == .shake(.cancelled) ? "#f4cccc" : "#fff2cc"
                    s += "<rect class=\"shake-span\" x=\"\(num(c.x(b)))\" y=\"\(top)\" width=\"\(num(max(c.x(e.t) - c.x(b), 1)))\" height=\"\(c.bottom - top)\" fill=\"\(colour)\"/>\n"
                }
                began = nil
            default: break
            }
        }
        return s
    }

    /// The time axis: a grid line and a label at round seconds.
    static func timeTicks(_ c: Canvas) -> String {
        var s = ""
        let step = niceStep(c.span, target: 12)
        var tick = (Double(c.d.first) / 1e6 / step).rounded(.up) * step
        while tick <= Double(c.d.last) / 1e6 + 1e-9 {
            let tx = c.x(Int64((tick * 1e6).rounded()))
            s += "<line class=\"grid\" x1=\"\(num(tx))\" y1=\"\(top)\" x2=\"\(num(tx))\" y2=\"\(c.bottom)\" stroke=\"#eeeeee\"/>\n"
            s += "<text class=\"tick\" x=\"\(num(tx))\" y=\"\(c.bottom + 16)\" text-anchor=\"middle\">\(num(tick))</text>\n"
            tick += step
        }
        return s + "<text id=\"x-label\" x=\"\(left + plotWidth / 2)\" y=\"\(c.bottom + 38)\" text-anchor=\"middle\">time (s)</text>\n"
    }

    /// One panel: its frame and grid, its threshold lines, its series and its legend.
    static func panel(_ p: Panel, index: Int, _ c: Canvas) -> String {
        let L = left, PW = plotWidth, PH = panelHeight
        func py(_ v: Double) -> Double { Double(p.top + PH) - (v - p.lo) / max(p.hi - p.lo, 1e-9) * Double(PH) }
        var s = "<g class=\"panel\" id=\"panel-\(index)\">\n"
        s += "<text class=\"panel-title\" x=\"\(L)\" y=\"\(p.top - 8)\" font-weight=\"bold\">\(escape(p.title)) (\(p.unit))</text>\n"
        s += "<text class=\"y-label\" transform=\"translate(18 \(p.top + PH / 2)) rotate(-90)\" text-anchor=\"middle\">\(escape(p.unit))</text>\n"
        let ystep = niceStep(p.hi - p.lo, target: 5)
        var v = (p.lo / ystep).rounded(.up) * ystep
        while v <= p.hi + 1e-9 {
            let yy = py(v)
            s += "<line class=\"grid\" x1=\"\(L)\" y1=\"\(num(yy))\" x2=\"\(L + PW)\" y2=\"\(num(yy))\" stroke=\"\(abs(v) < 1e-9 ? "#bbbbbb" : "#eeeeee")\"/>\n"
            s += "<text class=\"tick\" x=\"\(L - 6)\" y=\"\(num(yy + 4))\" text-anchor=\"end\">\(num(v))</text>\n"
            v += ystep
        }
        s += "<rect x=\"\(L)\" y=\"\(p.top)\" width=\"\(PW)\" height=\"\(PH)\" fill=\"none\" stroke=\"#888888\"/>\n"
        for (value, label, colour, dashed) in p.lines where value >= p.lo && value <= p.hi {
            let yy = num(py(value))
            s += "<line class=\"threshold\" x1=\"\(L)\" y1=\"\(yy)\" x2=\"\(L + PW)\" y2=\"\(yy)\" stroke=\"\(colour)\" stroke-width=\"1.2\"\(dashed ? " stroke-dasharray=\"6 4\"" : "")/>\n"
            if !label.isEmpty {
                s += "<text class=\"threshold-label\" x=\"\(L + PW - 4)\" y=\"\(num(py(value) - 4))\" text-anchor=\"end\" fill=\"\(colour)\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">\(escape(label))</text>\n"
            }
        }
        for (id, _, colour, scale, dashed) in p.series {
            let path = seriesPath(c.d, id, scale: scale, x: c.x, y: py)
            s += "<path class=\"series\" id=\"series-\(id)\" d=\"\(path)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"\(dashed ? "1.5" : "1")\" stroke-linejoin=\"round\"\(dashed ? " stroke-dasharray=\"4 3\"" : "")/>\n"
        }
        // Legend, top right.
        var lx = L + PW - 8
        for (_, legend, colour, _, dashed) in p.series.reversed() {
            lx -= 26 + legend.count * 7
            s += "<line x1=\"\(lx)\" y1=\"\(p.top - 12)\" x2=\"\(lx + 16)\" y2=\"\(p.top - 12)\" stroke=\"\(colour)\" stroke-width=\"2\"\(dashed ? " stroke-dasharray=\"4 3\"" : "")/>\n"
            s += "<text class=\"legend\" x=\"\(lx + 20)\" y=\"\(p.top - 8)\">\(escape(legend))</text>\n"
        }
        return s + "</g>\n"
    }

    /// A series as a path: every point when there are few, else each column's envelope (down
    /// each column's range, then on to the next column).
    static func seriesPath(_ d: Drawn, _ id: S, scale: Double, x: (Int64) -> Double, y: (Double) -> Double) -> String {
        var path = ""
        if !d.points[id.rawValue].isEmpty {
            for (i, (t, v)) in d.points[id.rawValue].enumerated() {
                path += (i == 0 ? "M" : "L") + num(x(t)) + " " + num(y(Double(v) / scale))
            }
            return path
        }
        let e = d.envelopes[id.rawValue]
        var started = false
        for c in e.used.indices where e.used[c] {
            let cx = num(Double(left) + Double(c) + 0.5)
            path += (started ? "L" : "M") + cx + " " + num(y(Double(e.hi[c]) / scale)) + "L" + cx + " " + num(y(Double(e.lo[c]) / scale))
            started = true
        }
        return path
    }

    /// Events: a line through every panel and a label above the first, in up to three rows.
    static func events(_ c: Canvas) -> String {
        var rowEnd = [Double](repeating: -1e9, count: 3)
        var s = "<g id=\"events\">\n"
        for e in c.d.events {
            let ex = c.x(e.t)
            let (label, colour) = describe(e)
            s += "<line class=\"event\" data-event=\"\(e.bindingName)\" data-t=\"\(EventRecord.seconds(e.t))\" x1=\"\(num(ex))\" y1=\"\(top)\" x2=\"\(num(ex))\" y2=\"\(c.bottom)\" stroke=\"\(colour)\" stroke-width=\"1.5\"/>\n"
            if let row = rowEnd.indices.first(where: { rowEnd[$0] < ex - 4 }) {
                rowEnd[row] = ex + Double(label.count) * 6.5
                s += "<text class=\"event-label\" x=\"\(num(ex + 3))\" y=\"\(top + 14 + row * 14)\" fill=\"\(colour)\" font-size=\"11\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">\(escape(label))</text>\n"
            }
        }
        return s + "</g>\n"
    }

    /// An event's label and colour.
    static func describe(_ e: EventRecord) -> (String, String) {
        switch e.kind {
        case .shake(.began): return ("shake began" + (e.peakMilliG.map { " \(EventRecord.g($0)) g" } ?? ""), "#e66101")
        case .shake(.ended): return ("shake ended", "#b35806")
        case .shake(.cancelled): return ("shake cancelled", "#d7191c")
        case .flip(.faceDown): return ("face down", "#7b3294")
        case .flip(.faceUp): return ("face up", "#7b3294")
        case .tamper: return ("tamper" + (e.reason.map { ": " + $0.text } ?? ""), "#d7191c")
        default: return (e.bindingName, "#555555")
        }
    }
}
