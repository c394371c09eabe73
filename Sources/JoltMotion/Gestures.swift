#if canImport(Glibc)
import Glibc
#endif
import JoltCore

// The gestures and activities of the evaluation corpus, as physical models. Sources for the
// numbers are in Tests/Corpus/README.md; each model says what it takes from them.

/// Where a device is carried while its owner walks or runs.
public enum Carry: String, CaseIterable, Sendable {
    case hand, bag, pocket
}

extension Scene {
    /// A deliberate shake: the hand pushes the device back and forth along `axis` (world) at
    /// `freq` Hz with `amp` g of dynamic acceleration, for `seconds`; cycle-to-cycle jitter in
    /// frequency and amplitude, a second harmonic (human strokes are not pure sines), and a
    /// wrist twist of `twist` degrees in step with the strokes. Ramped in and out over a quarter
    /// cycle.
    public mutating func shake(freq: Double, amp: Double, axis: V3, seconds: Double, twist: Double = 10, harmonic: Double = 0.15, jitter: Double = 0.08) {
        let k = axis.unit
        let twistAxis = V3(rng.normal(), rng.normal(), rng.normal()).unit
        let ramp = min(0.25 / freq, seconds / 4)
        var phase = 0.0
        var cycleAmp = amp, cycleFreq = freq
        let hPhase = rng.uniform(0, 6.28)
        var lastCycle = -1
        for i in 0..<steps(seconds) {
            let t = Double(i) * dt
            let cycle = Int(phase / (2 * .pi))
            if cycle != lastCycle {
                lastCycle = cycle
                cycleAmp = amp * (1 + jitter * 1.5 * rng.normal())
                cycleFreq = freq * (1 + jitter * rng.normal())
            }
            let env = max(0, min(1, t / ramp, (seconds - t) / ramp))
            phase += 2 * .pi * cycleFreq * dt
            let s = sin(phase) + harmonic * sin(2 * phase + hPhase)
            let a = k * (cycleAmp * env * s)
            let w = twistAxis * (twist * Double.pi / 180 * 2 * .pi * cycleFreq * env * cos(phase))
            advance(a: a, w: w)
        }
    }

    /// Turns the device about `axis` (device axes) by `degrees` over `seconds`, with a raised-
    /// cosine speed profile, while the hand moves it a little (`lift` g up then down).
    public mutating func turn(axis: V3, degrees: Double, seconds: Double, lift: Double = 0) {
        let k = axis.unit
        let n = max(steps(seconds), 1)
        let total = degrees * .pi / 180
        for i in 0..<n {
            let f = Double(i) / Double(n)
            // ω(t) = total·π/(2T)·sin(πt/T) integrates to `total` over T.
            let w = total * .pi / (2 * seconds) * sin(.pi * f)
            let a = V3(0, 0, lift * sin(2 * .pi * f))
            advance(a: a, w: k * w)
        }
    }

    /// A device put down on a table: lowered (`lower` g down, then up to stop), and a contact
    /// bump of `bump` g that rings and dies in a few tens of milliseconds.
    public mutating func setDown(lower: Double = 0.15, seconds: Double = 0.5, bump: Double = 0.4) {
        let n = steps(seconds)
        for i in 0..<n {
            let f = Double(i) / Double(n)
            advance(a: V3(0, 0, -lower * sin(2 * .pi * f)), w: .zero)
        }
        impact(peak: bump, ringHz: rng.uniform(25, 45), decay: rng.uniform(0.008, 0.02), axis: V3(0, 0, 1), seconds: 0.15)
    }

    /// Picked up from a table: lifted `lift` g for a moment.
    public mutating func pickUp(lift: Double = 0.2, seconds: Double = 0.4) {
        let n = steps(seconds)
        for i in 0..<n {
            let f = Double(i) / Double(n)
            advance(a: V3(0, 0, lift * sin(2 * .pi * f)), w: .zero)
        }
    }

    /// An impact on the surface the device lies on: a damped ring of `peak` g at `ringHz` Hz
    /// with time constant `decay` s along `axis` (world), for `seconds`.
    public mutating func impact(peak: Double, ringHz: Double, decay: Double, axis: V3, seconds: Double = 0.3) {
        let k = axis.unit
        let phase = rng.uniform(0, 0.5)
        for i in 0..<steps(seconds) {
            let t = Double(i) * dt
            advance(a: k * (peak * exp(-t / decay) * sin(2 * .pi * ringHz * t + phase)), w: .zero)
        }
    }

    /// A knock (or a few) on the table: sharp rings, 20–60 Hz, dying in 10–40 ms, `count` of
    /// them `spacing` s apart.
    public mutating func knocks(count: Int, peak: Double, spacing: Double) {
        for _ in 0..<count {
            let axis = V3(0.2 * rng.normal(), 0.2 * rng.normal(), 1)
            impact(peak: peak * rng.uniform(0.7, 1.1), ringHz: rng.uniform(20, 60), decay: rng.uniform(0.01, 0.04), axis: axis, seconds: spacing)
        }
    }

    /// A door slammed nearby, or a bump against the table: a slower ring (6–15 Hz) of the table
    /// or floor, dying in 80–200 ms.
    public mutating func slam(peak: Double) {
        let axis = V3(rng.normal(), rng.normal(), 1.5 * rng.normal())
        impact(peak: peak, ringHz: rng.uniform(6, 15), decay: rng.uniform(0.08, 0.2), axis: axis, seconds: 0.8)
    }

    /// Walking or running with the device carried in a hand, a bag or a trouser pocket, for
    /// `seconds` at `cadence` steps per second, starting from standing (the first stride ramps up).
    /// The device keeps the attitude it has in the pocket, hand or bag (`orientation`).
    ///
    /// The body's centre of mass moves up and down once per step: walking as a smooth
    /// oscillation (±0.2–0.35 g) with a heel-strike jolt; running as a stance phase (duty `c`,
    /// ground force peaking at π/(2c) body weights so that the mean vertical force is one body
    /// weight) and a flight phase in free fall (−1 g). A foot strike rings through the leg. The
    /// carry adds its own motion: a thigh swinging ±`swing`° once per stride with the pocket 25 cm
    /// from the hip (tangential and centripetal acceleration, gravity turning with the thigh); an
    /// arm swinging from the shoulder with the hand 65 cm out; a bag damping the body's motion
    /// and swaying at about 1 Hz.
    public mutating func gait(run: Bool, carry: Carry, seconds: Double, cadence: Double) {
        let (swing, r): (Double, Double) = switch carry {
        case .pocket: (run ? rng.uniform(35, 50) : rng.uniform(20, 30), 0.25)
        case .hand: (run ? rng.uniform(25, 40) : rng.uniform(12, 25), 0.65)
        case .bag: (rng.uniform(4, 10), 0.4)
        }
        let duty = rng.uniform(0.55, 0.7)
        let swingRad = swing * .pi / 180
        let lateral = V3(0, 1, 0)   // the limb swings about the walker's left-right axis
        var stepPhase = 0.0
        var stride = 0.0           // stride phase, radians
        var bag = 0.0, bagV = 0.0
        var ring = 0.0, ringT = 1.0
        var stepRate = cadence * (1 + 0.03 * rng.normal())
        var prevTheta = 0.0
        let ramp = 1.0 / cadence * 2   // the first stride builds up
        for i in 0..<steps(seconds) {
            let t = Double(i) * dt
            let env = min(1, t / ramp)
            stepPhase += stepRate * dt
            if stepPhase >= 1 {
                stepPhase -= 1
                stepRate = cadence * (1 + 0.03 * rng.normal())
                ring = env * (run ? rng.uniform(1.0, 2.5) : rng.uniform(0.3, 0.8)) * (carry == .pocket ? 1 : (carry == .hand ? 0.35 : 0.2))
                ringT = 0
            }
            let strideRate = 2 * Double.pi * stepRate / 2
            stride += strideRate * dt
            // Vertical acceleration of the body, g.
            let av = Self.vertical(run: run, stepPhase: stepPhase, duty: duty) * env
            let forward = env * (run ? 0.3 : 0.15) * sin(2 * .pi * stepPhase + 1.2)
            let side = env * 0.05 * sin(stride)
            ringT += dt
            let strike = ring * exp(-ringT / 0.015) * sin(2 * .pi * 18 * ringT)
            var a = V3(forward, side, av + strike)
            // The limb's angle θ about the lateral axis, and its rate and acceleration.
            let (theta, omega, alpha): (Double, Double, Double)
            if carry == .bag {
                (theta, omega, alpha) = Self.pendulum(&bag, &bagV, drive: forward * 9.81 / r, dt: dt)
                a = a * 0.6
            } else {
                let amp = swingRad * env
                theta = amp * sin(stride)
                omega = amp * strideRate * cos(stride)
                alpha = -amp * strideRate * strideRate * sin(stride)
            }
            // Tangential (r·α) and centripetal (r·ω², toward the pivot above) acceleration of the
            // pocket or hand, in g; the limb hangs down from the hip or shoulder.
            let tangential = r * alpha / 9.81
            let centripetal = r * omega * omega / 9.81
            a = a + V3(tangential * cos(theta), 0, tangential * sin(theta)) + V3(-centripetal * sin(theta), 0, centripetal * cos(theta))
            // The device turns with the limb.
            let turn = theta - prevTheta
            prevTheta = theta
            advance(a: a, w: orientation.applyInverse(lateral) * (turn / dt))
        }
    }

    /// The body's vertical acceleration at a step phase, g: running as a stance phase of duty
    /// `duty` and a flight in free fall; walking as a smooth oscillation.
    static func vertical(run: Bool, stepPhase: Double, duty: Double) -> Double {
        if run { return stepPhase < duty ? (Double.pi / (2 * duty)) * sin(.pi * stepPhase / duty) - 1 : -1 }
        return 0.28 * sin(2 * .pi * stepPhase - 0.4) + 0.08 * sin(4 * .pi * stepPhase + 0.7)
    }

    /// One step of a pendulum bag (about 1 Hz, damped) driven by the body's forward motion:
    /// its angle, rate and acceleration.
    static func pendulum(_ angle: inout Double, _ rate: inout Double, drive: Double, dt: Double) -> (Double, Double, Double) {
        let w0 = 2 * Double.pi * 1.0
        let acc = -w0 * w0 * angle - 1.5 * rate - drive
        rate += acc * dt
        angle += rate * dt
        return (angle, rate, acc)
    }

    /// A kiosk lifted (`lift` g up for 0.4 s, then stopped), carried at a walk for `carry`
    /// seconds, and set down tilted by `tilt` degrees.
    public mutating func liftAndCarry(lift: Double, carry: Double, tilt: Double) {
        let n = steps(0.6)
        for i in 0..<n {
            let t = Double(i) * dt
            let a = t < 0.4 ? lift * sin(Double.pi * t / 0.4) : -lift * 0.7 * sin(Double.pi * (t - 0.4) / 0.2)
            advance(a: V3(0, 0, a), w: .zero)
        }
        let f = rng.uniform(1.6, 2.0)
        for i in 0..<steps(carry) {
            let t = Double(i) * dt
            advance(a: V3(0.05 * sin(2 * .pi * f / 2 * t), 0.03 * sin(.pi * f * t + 1), 0.15 * sin(2 * .pi * f * t)), w: V3(0.1 * sin(2 * .pi * f / 2 * t), 0, 0))
        }
        turn(axis: V3(1, 0, 0), degrees: tilt, seconds: 1)
        setDown(lower: 0.1, seconds: 0.5, bump: 0.3)
    }
}
