import JoltCore
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltChips
import JoltConfig
import JoltControl
import JoltDrivers
import JoltEngine
import JoltJSON
import JoltLinux
import JoltSupport

/// The detectors' state after a sample, for a live view.
package struct LiveLevels {
    package var gravity: Vec3
    package var shakeProgress: Int32
    package var faceDown: Bool
    /// While the tamper detector watches: its speed, mm/s, and the tilt from where it was armed,
    /// tenths of a degree (what a lift or a slide is judged by, live).
    package var tamper: (speedMMs: Int32, tiltDeci: Int32)?

    package init(gravity: Vec3, shakeProgress: Int32, faceDown: Bool, tamper: (speedMMs: Int32, tiltDeci: Int32)? = nil) {
        self.gravity = gravity
        self.shakeProgress = shakeProgress
        self.faceDown = faceDown
        self.tamper = tamper
    }

    /// The levels of `d` after a sample.
    package init<D: SampleDetector>(_ d: borrowing D) {
        var tamper: (Int32, Int32)?
        if let reference = d.tamperReference {
            let v = d.tamperVelocityMMs
            let speed = (Double(v.x) * Double(v.x) + Double(v.y) * Double(v.y) + Double(v.z) * Double(v.z)).squareRoot()
            tamper = (Int32(speed.rounded()), Int32(TriggerReason.angle(d.gravity, reference).map(TriggerReason.deci) ?? 0))
        }
        self.init(gravity: d.gravity, shakeProgress: d.shakeProgress, faceDown: d.isFaceDown, tamper: tamper)
    }

    /// A sample and the levels, as the control socket's live stream carries them:
    /// `s T AX AY AZ GX GY GZ GRAVX GRAVY GRAVZ PROGRESS FACEDOWN` (µs, mg, mdps, mg; 0 or 1),
    /// then, while the tamper detector watches, `SPEED TILT` (mm/s, tenths of a degree).
    package func streamLine(_ s: Sample) -> String {
        "s \(s.t) \(s.accel.x) \(s.accel.y) \(s.accel.z) \(s.gyro.x) \(s.gyro.y) \(s.gyro.z) \(gravity.x) \(gravity.y) \(gravity.z) \(shakeProgress) \(faceDown ? 1 : 0)"
            + (tamper.map { " \($0.speedMMs) \($0.tiltDeci)" } ?? "")
    }

    /// Reads a stream line back; nil for anything else.
    package static func parse(_ line: Substring) -> (Sample, LiveLevels)? {
        let f = line.split(separator: " ")
        guard f.count == 13 || f.count == 15, f[0] == "s", let t = Int64(f[1]) else { return nil }
        var v: [Int32] = []
        for x in f[2...] {
            guard let n = Int32(x) else { return nil }
            v.append(n)
        }
        return (Sample(t: t, accel: Vec3(v[0], v[1], v[2]), gyro: Vec3(v[3], v[4], v[5])),
                LiveLevels(gravity: Vec3(v[6], v[7], v[8]), shakeProgress: v[9], faceDown: v[10] != 0, tamper: v.count == 13 ? (v[11], v[12]) : nil))
    }
}
