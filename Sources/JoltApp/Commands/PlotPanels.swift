#if canImport(Glibc)
import Glibc
#endif
import JoltCore
import JoltConfig

extension PlotCommand {
    /// The panels: acceleration, dynamic acceleration, and rotation when there is a gyro.
    static func panels(_ d: Drawn, settings: DetectionSettings) -> [Panel] {
        func range(_ ids: [S], scale: Double, floor: Double, symmetric: Bool) -> (Double, Double) {
            var lo = 0.0, hi = floor
            for id in ids {
                let e = d.envelopes[id.rawValue]
                for c in e.used.indices where e.used[c] {
                    lo = min(lo, Double(e.lo[c]) / scale)
                    hi = max(hi, Double(e.hi[c]) / scale)
                }
            }
            if symmetric {
                let m = max(-lo, hi, floor)
                return (-m * 1.05, m * 1.05)
            }
            return (min(lo, 0), hi * 1.08)
        }
        var panels: [Panel] = []
        var y = top
        let (alo, ahi) = range([.ax, .ay, .az, .mag], scale: 1000, floor: 1.2, symmetric: true)
        let faceDown = -cos(Double(settings.flip.faceDownAngleDeci) / 10 * Double.pi / 180)
        var accelLines: [(Double, String, String, Bool)] = [(faceDown, "face down below \(num(faceDown)) g (gravity z)", "#7b3294", true)]
        if settings.shakeAlgorithm == .threshold {
            let t = Double(settings.phoneShake.axisThresholdMilliG) / 1000
            accelLines += [(t, "threshold \(num(t)) g per axis", "#e66101", true), (-t, "", "#e66101", true)]
        }
        panels.append(Panel(title: "acceleration", unit: "g", top: y, lo: alo, hi: ahi,
                            series: [(.ax, "x", "#d7191c", 1000, false), (.ay, "y", "#1a9641", 1000, false), (.az, "z", "#2c7bb6", 1000, false),
                                     (.mag, "|a|", "#222222", 1000, false), (.gz, "gravity z", "#7b3294", 1000, true)],
                            lines: accelLines))
        y += panelHeight + gap
        let sh = settings.shake
        let strong = Double(sh.strongMilliG) / 1000, threshold = Double(sh.thresholdMilliG) / 1000, hysteresis = Double(sh.hysteresisMilliG) / 1000
        let (_, dhi) = range([.dyn], scale: 1000, floor: strong * 1.15, symmetric: false)
        panels.append(Panel(title: "dynamic acceleration |a − gravity|", unit: "g", top: y, lo: 0, hi: dhi,
                            series: [(.dyn, "|a − gravity|", "#222222", 1000, false)],
                            lines: [(strong, "strong \(num(strong)) g", "#d7191c", true),
                                    (threshold, "shake threshold \(num(threshold)) g", "#e66101", false),
                                    (hysteresis, "hysteresis \(num(hysteresis)) g", "#999999", true)]))
        if d.hasGyro {
            y += panelHeight + gap
            let (rlo, rhi) = range([.rx, .ry, .rz], scale: 1000, floor: 30, symmetric: true)
            panels.append(Panel(title: "rotation rate", unit: "°/s", top: y, lo: rlo, hi: rhi,
                                series: [(.rx, "x", "#d7191c", 1000, false), (.ry, "y", "#1a9641", 1000, false), (.rz, "z", "#2c7bb6", 1000, false)],
                                lines: []))
        }
        if d.armed { panels += tamperPanels(d, settings: settings, below: y, range: range) }
        return panels
    }

    /// Armed (`--arm`), what the tamper detector judges: its speed against move_mm_s, its tilt
    /// from where it was armed against tilt_deg.
    static func tamperPanels(_ d: Drawn, settings: DetectionSettings, below top: Int,
                             range: ([S], Double, Double, Bool) -> (Double, Double)) -> [Panel] {
        let t = settings.tamper, move = Double(t.moveSpeedMMs), tilt = Double(t.tiltDeci) / 10
        let y = top + panelHeight + gap
        let (_, shi) = range([.speed], 1, move * 2, false)
        let (_, thi) = range([.tilt], 10, tilt * 1.5, false)
        return [
            Panel(title: "tamper: speed", unit: "mm/s", top: y, lo: 0, hi: shi, series: [(.speed, "speed", "#d7191c", 1, false)],
                  lines: [(move, "move_mm_s \(t.moveSpeedMMs) (for \(t.moveMillis) ms)", "#e66101", false)]),
            Panel(title: "tamper: tilt from where it was armed", unit: "°", top: y + panelHeight + gap, lo: 0, hi: thi,
                  series: [(.tilt, "tilt", "#7b3294", 10, false)], lines: [(tilt, "tilt_deg \(num(tilt))", "#e66101", false)]),
        ]
    }
}
