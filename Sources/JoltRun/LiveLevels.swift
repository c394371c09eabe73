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

/// The numbers Home Assistant shows beside the panel: the kiosk's tilt from level, and, while
/// the tamper detector watches, its movement speed as the alarm judges it. Looked at once a
/// second and published only on a change of at least 0.5° (or 2 mm/s): a still kiosk costs the
/// broker nothing.
package struct LiveMeasures {
    /// When they are next looked at, sample time µs.
    package var nextAt: Int64 = .min
    var last: (tiltDeci: Int32, speedMMs: Int32?)?
    static let intervalMicros: Int64 = 1_000_000
    static let tiltStepDeci: Int32 = 5
    static let speedStepMMs: Int32 = 2

    package init() {}

    /// At a sample at `t` past `nextAt`: the tilt (tenths of a degree) and speed (mm/s; nil
    /// while the tamper detector does not watch) to publish, or nil when neither moved enough.
    package mutating func due<D: SampleDetector>(at t: Int64, _ d: borrowing D) -> (tiltDeci: Int32, speedMMs: Int32?)? {
        nextAt = t + Self.intervalMicros
        let tilt = Int32(TriggerReason.angle(d.gravity, Vec3(0, 0, 1000)).map(TriggerReason.deci) ?? 0)
        let speed = d.tamperArmed ? LiveLevels(d).tamper?.speedMMs : nil
        if let last, abs(last.tiltDeci - tilt) < Self.tiltStepDeci, (last.speedMMs == nil) == (speed == nil),
           abs((last.speedMMs ?? 0) - (speed ?? 0)) < Self.speedStepMMs { return nil }
        last = (tilt, speed)
        return (tilt, speed)
    }
}

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
