#if canImport(Glibc)
import Glibc
#endif

/// A kiosk on a shop counter: the thefts its alarm must catch as they start, and what a shop
/// does to it all day that must never sound it. World accelerations in g (gravity excluded),
/// rotations in rad/s, at the scene's 2 kHz; the scene's sensor model does the rest.
extension Scene {
    /// Slid `metres` (0.1–0.3) across the counter in `seconds` (1–3), in `jerks` stick-slip
    /// pushes: each a short one-signed push peaking at `peak` g (0.06–0.36) followed by the
    /// friction that stops it, so that the velocity returns to zero and the displacement does
    /// not. Rocks by under 1.5°.
    public mutating func slide(metres: Double, seconds: Double, jerks: Int, peak: Double, heading: Double) {
        let dir = V3(cos(heading), sin(heading), 0)
        let per = seconds / Double(jerks)
        // A half-sine push of duration p then a half-sine stop: displacement ≈ vmax × per / 2.
        let vmax = 2 * metres / Double(jerks) / per
        let p = min(vmax * Double.pi / (2 * peak * 9.81), per * 0.6)
        let q = per - p
        let pushPeak = vmax * Double.pi / (2 * p) / 9.81
        let stopPeak = vmax * Double.pi / (2 * q) / 9.81
        let rockAxis = V3(-dir.y, dir.x, 0)
        for _ in 0..<jerks {
            let rock = rng.uniform(0.2, 1.4) * Double.pi / 180
            for i in 0..<steps(per) {
                let t = Double(i) * dt
                let a = t < p ? pushPeak * sin(.pi * t / p) : -stopPeak * sin(.pi * (t - p) / q)
                // The kiosk rocks a little as it is pushed, and settles back.
                let w = rockAxis * (rock * Double.pi / per * sin(2 * Double.pi * t / per))
                advance(a: dir * a, w: orientation.applyInverse(w))
            }
        }
    }

    /// The counter shaken by a door slam or a bag set down on it: the kiosk rings with the
    /// counter and ends where it was — a displacement `X·(1 − e^(−t/τr))·e^(−t/τ)·sin ωt` that
    /// starts and ends at rest, differentiated twice — peaking at `peak` g (0.5–1.5), at `ringHz`
    /// (6–40), dying in `decay` s.
    public mutating func counterShock(peak: Double, ringHz: Double, decay: Double) {
        let w = 2 * Double.pi * ringHz
        let rise = 0.25 / ringHz
        let axis = V3(0.4 * rng.normal(), 0.4 * rng.normal(), 1).unit
        func x(_ t: Double) -> Double { t <= 0 ? 0 : (1 - exp(-t / rise)) * exp(-t / decay) * sin(w * t) }
        func a(_ t: Double) -> Double { (x(t + dt) - 2 * x(t) + x(t - dt)) / (dt * dt) }
        // Ten time constants: what is left (e^−10 of it) is well under a micrometre.
        let n = steps(max(10 * decay, 0.3))
        var biggest = 1e-12
        for i in 0..<n { biggest = max(biggest, abs(a(Double(i) * dt))) }
        let scale = peak * 9.81 / biggest
        for i in 0..<n { advance(a: axis * (scale * a(Double(i) * dt) / 9.81), w: .zero) }
    }

    /// Lifted `metres` (0.02–0.05) straight up, the vertical load rising by `peak` g (0.1–0.2)
    /// then falling as it stops, and held there for `hold`.
    public mutating func straightLift(metres: Double, peak: Double, hold: Double) {
        // a = P·sin(2πt/T) over T moves the kiosk P·g·T²/(2π): T from the height.
        let seconds = (metres * 2 * Double.pi / (peak * 9.81)).squareRoot()
        for i in 0..<steps(seconds) {
            let t = Double(i) * dt
            advance(a: V3(0, 0, peak * sin(2 * .pi * t / seconds)), w: .zero)
        }
        self.hold(hold, tremor: 0.01)
    }

    /// Tipped over: turned `degrees` (70–100) about a horizontal axis in `seconds`, then a
    /// landing bump.
    public mutating func tipOver(degrees: Double, seconds: Double, heading: Double) {
        let axis = orientation.applyInverse(V3(-sin(heading), cos(heading), 0))
        turn(axis: axis, degrees: degrees, seconds: seconds)
        impact(peak: rng.uniform(0.8, 2), ringHz: rng.uniform(15, 40), decay: rng.uniform(0.02, 0.05), axis: V3(0, 0, 1), seconds: 0.3)
    }

    /// Taps and jabs on the touchscreen for `seconds`: 1–3 a second, each a short press of
    /// 0.05–0.5 g into the screen that the kiosk's mounting gives back (in and back out,
    /// `X·(1 − cos 2πt/w)²/4`, whose acceleration peaks at `X·(2π/w)²`), then a small ring of the
    /// mount (a tenth of the peak, 35 Hz, dying in 15 ms): each leaves the kiosk at rest where it
    /// was.
    /// With `pressTilt`, each press also tips the kiosk by that many degrees (drawn from the
    /// range; 0.01–0.1° on a real counter) and back; with `drift`, the chip's offset drifts by that
    /// many mg a second meanwhile (seen as a slow turn of the reading; 20 mg in 10 minutes is
    /// 0.033).
    public mutating func taps(seconds: Double, screenNormal: V3, pressTilt: ClosedRange<Double>? = nil, drift: Double = 0) {
        var left = seconds
        let driftAxis = drift == 0 ? V3(0, 0, 0) : V3(rng.normal(), rng.normal(), 0).unit * (drift / 1000)
        while left > 0 {
            let gap = 1 / rng.uniform(1, 3)
            let peak = rng.uniform(0.05, 0.5)
            let width = rng.uniform(0.01, 0.03)
            let k = (screenNormal + V3(0.2 * rng.normal(), 0.2 * rng.normal(), 0.2 * rng.normal())).unit
            let press = peak * 9.80665 * width * width / (4 * .pi * .pi)
            let ringW = 2 * Double.pi * 35
            let ring = 0.1 * peak * 9.80665 / (ringW * ringW)
            // The press tips the kiosk about the horizontal axis across the push, by the same
            // in-and-back shape: it ends as it was.
            let tilt = pressTilt.map { rng.uniform($0.lowerBound, $0.upperBound) * .pi / 180 } ?? 0
            let tipAxis = orientation.applyInverse(V3(0, 0, 1).cross(k).length > 1e-6 ? V3(0, 0, 1).cross(k).unit : V3(1, 0, 0))
            // The press and its ring are over before the next tap (at least 0.1 s after the press).
            displace(seconds: max(min(gap, left), width + 0.1), turn: { t in
                let shape = t < width ? pow(1 - cos(2 * .pi * t / width), 2) / 4 : 0
                return tipAxis * (tilt * shape) + driftAxis * t
            }) { t in
                var x = t < width ? press * pow(1 - cos(2 * .pi * t / width), 2) / 4 : 0
                if t > width {
                    let u = t - width
                    x += ring * (1 - exp(-u / 0.003)) * exp(-u / 0.015) * sin(ringW * u)
                }
                return k * x
            }
            left -= gap
        }
    }

    /// Moves the kiosk through `x(t)`, a displacement (m, world axes) over `seconds` that starts
    /// and ends at rest, by the acceleration it takes (its second difference at the physics
    /// step): what it does integrates back to where the kiosk was, speed and place.
    /// `turn`, a rotation (rad, device axes, a small angle) over the same time, turns it as well.
    mutating func displace(seconds: Double, turn: ((Double) -> V3)? = nil, _ x: (Double) -> V3) {
        func at(_ t: Double) -> V3 { t <= 0 ? V3(0, 0, 0) : x(t) }
        func angle(_ t: Double) -> V3 { t <= 0 ? V3(0, 0, 0) : turn!(t) }
        let k = 1 / (dt * dt * 9.80665)
        for i in 0..<steps(seconds) {
            let t = Double(i) * dt
            let w = turn == nil ? V3(0, 0, 0) : (angle(t + dt) - angle(t)) * (1 / dt)
            advance(a: (at(t + dt) - at(t) * 2 + at(t - dt)) * k, w: w)
        }
    }

    /// A customer leaning on the kiosk: tilted by under a degree over a second, held, and back.
    public mutating func lean(degrees: Double, hold: Double) {
        let axis = V3(rng.normal(), rng.normal(), 0).unit
        turn(axis: axis, degrees: degrees, seconds: rng.uniform(0.5, 1.5))
        rest(hold)
        turn(axis: axis, degrees: -degrees, seconds: rng.uniform(0.5, 1.5))
    }

    /// The floor and the building for `seconds`: footsteps and a passing lorry (0.01–0.05 g at
    /// 2–30 Hz, swelling and fading) and an air conditioner's hum (0.02 g at 25–50 Hz). Each
    /// shakes the kiosk about where it stands (a displacement `−A/ω² · sin ωt`, so an acceleration
    /// `A · sin ωt`), coming from and going back to nothing (`sin²` at either end): the floor
    /// leaves it where it was.
    public mutating func building(seconds: Double, hum: Bool) {
        let f1 = rng.uniform(2, 30), f2 = rng.uniform(2, 30), fh = rng.uniform(25, 50)
        let a1 = rng.uniform(0.01, 0.05), a2 = rng.uniform(0.01, 0.03)
        let swell = rng.uniform(0.05, 0.3), p = rng.uniform(0, 6.3)
        let w1 = 2 * Double.pi * f1, w2 = 2 * Double.pi * f2, wh = 2 * Double.pi * fh
        let g = 9.80665
        displace(seconds: seconds) { t in
            let ends = pow(sin(.pi * t / seconds), 2)
            let env = ends * (0.5 + 0.5 * sin(2 * .pi * swell * t + p))
            let v = -env * g * (a1 * sin(w1 * t) / (w1 * w1) + a2 * sin(w2 * t + 1) / (w2 * w2))
            var x = V3(0.3 * v, 0.3 * v, v)
            if hum { x = x + V3(0.005, 0.005, 0.02) * (-ends * g * sin(wh * t) / (wh * wh)) }
            return x
        }
    }

    /// The sensor's offsets drifting with the shop's temperature, seen as a slow turn of the
    /// reading: `degrees` (a few tenths) over `seconds`.
    public mutating func drift(degrees: Double, seconds: Double) {
        let axis = V3(rng.normal(), rng.normal(), 0).unit
        let w = degrees * Double.pi / 180 / seconds
        for _ in 0..<steps(seconds) { advance(a: .zero, w: axis * w) }
    }
}
