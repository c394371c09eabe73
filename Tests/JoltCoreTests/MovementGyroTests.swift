import Foundation
import Testing
@testable import JoltCore
import JoltTestSupport

/// With a gyroscope, the movement measures a lean and takes it off (MovementGyro.swift): a lean
/// moves nothing, and a drag too gentle for the accelerometer alone is caught.
@Suite("Movement with a gyroscope: a lean is a turn, a drag is a drag")
struct MovementGyroTests {
    /// A level kiosk read at 100 Hz for `seconds`: from 1 s, turned about y by `tilt(t)` degrees
    /// (the gyroscope reads the rate, plus `bias` mdps on every axis) and pushed along x by
    /// `push(t)` mg, with a fixed ±3 mg pattern of noise. When `gyro` is false the detector
    /// reads the accelerometer alone; `blind` keeps the gyroscope but hides the turn from it.
    struct Kiosk {
        var seconds: Double
        var tilt: (Double) -> Double = { _ in 0 }
        var push: (Double) -> Double = { _ in 0 }
        var bias: Int32 = 0

        func run(gyro: Bool, blind: Bool = false) -> (fired: [Int64], topSpeed: Int64) {
            var m = Movement(periodMicros: 10_000, speedMMs: 20, holdMillis: 120, gyro: gyro)
            var fired: [Int64] = [], top: Int64 = 0
            let noise: [Int32] = [3, -1, 0, 2, -3, 1, -2, 0, 1, -1, 2, -2]
            for i in 0..<Int(seconds * 100) {
                let t = Double(i) / 100, u = t - 1
                let deg = u < 0 ? 0 : tilt(u), a = u < 0 ? 0 : push(u)
                let rate = u < 0 ? 0 : (tilt(u + 0.005) - tilt(u - 0.005)) / 0.01   // °/s
                let r = deg * .pi / 180
                let n = noise[i % noise.count]
                // Turned by +r about y, the chip's x axis tips down: gravity reads −sin r along it.
                let accel = Vec3(Int32((a - 1000 * sin(r)).rounded()) + n, n, Int32((1000 * cos(r)).rounded()) - n)
                let w = Vec3(bias, (blind ? 0 : Int32((rate * 1000).rounded())) + bias, bias)
                let s = Sample(t: Int64(i) * 10_000, accel: accel, gyro: w)
                if m.update(s) { fired.append(s.t) }
                let v = m.velocityMMs
                top = max(top, abs(v.x), abs(v.y), abs(v.z))
            }
            return (fired, top)
        }
    }

    /// A lean of `deg`, eased in over 0.4 s, held `hold` s and eased out.
    static func lean(_ deg: Double, hold: Double) -> (Double) -> Double {
        { u in deg * (MinimumJerk.ease(u / 0.4) - MinimumJerk.ease((u - 0.4 - hold) / 0.4)) }
    }

    @Test("a customer's 1.2° lean (21 mg across the chip) moves nothing when the gyroscope measures it; hidden from it, it reads as a push")
    func leanMovesNothing() {
        let k = Kiosk(seconds: 10, tilt: Self.lean(1.2, hold: 5))
        let measured = k.run(gyro: true)
        #expect(measured.fired.isEmpty, "fired at \(measured.fired)")
        #expect(measured.topSpeed < 5, "top speed \(measured.topSpeed) mm/s")
        let hidden = k.run(gyro: true, blind: true)
        #expect(!hidden.fired.isEmpty || hidden.topSpeed >= 20, "the same readings without the turn: \(hidden.topSpeed) mm/s")
    }

    @Test("a gyroscope 1 °/s off zero on every axis is learnt at rest: a minute armed, and a lean in it, fire nothing")
    func biasIsLearnt() {
        let k = Kiosk(seconds: 60, tilt: { u in u > 30 ? Self.lean(0.8, hold: 3)(u - 30) : 0 }, bias: 1000)
        let r = k.run(gyro: true)
        #expect(r.fired.isEmpty, "fired at \(r.fired)")
    }

    @Test("a customer's 0.6° lean, made within one of the baseline's 2 s batches and held 14 s, leaves the gyroscope's bias within 5 mdps and the lean taken off within 2 mg (3 if the bias followed it)")
    func leanDoesNotTeachTheBias() {
        // A batch that holds the lean's turn has a mean rate of 0.3 °/s; followed by the baseline's
        // gain, a tenth of it would stay in the bias and put a quarter of a degree into the
        // rotation in ten seconds: 5 mg of gravity across the chip that is not there. (The lean,
        // 10 mg, stays within the quiet band: the baseline is not put at the leaned reading.)
        var m = Movement(periodMicros: 10_000, speedMMs: 20, holdMillis: 120, gyro: true)
        let lean = Self.lean(0.6, hold: 14)
        var worstBias: Int32 = 0, worstLeft: Int64 = 0
        for i in 0..<2000 {
            let t = Double(i) / 100, u = t - 3
            let deg = u < 0 ? 0 : lean(u)
            let rate = u < 0 ? 0 : (lean(u + 0.005) - lean(u - 0.005)) / 0.01
            let r = deg * .pi / 180
            let accel = Vec3(Int32((-1000 * sin(r)).rounded()), 0, Int32((1000 * cos(r)).rounded()))
            _ = m.update(Sample(t: Int64(i) * 10_000, accel: accel, gyro: Vec3(0, Int32((rate * 1000).rounded()), 0)))
            worstBias = max(worstBias, abs(m.wby) >> 8)
            // Held, the reading's turn less what the rotation explains is what the velocity takes.
            if u > 1 && u < 14 {
                let (kx, _, _) = m.rotated()
                worstLeft = max(worstLeft, abs(Int64(accel.x) - Int64(m.baselineMilliG.x) - kx))
            }
        }
        #expect(worstBias <= 5, "the bias moved to \(worstBias) mdps")
        #expect(worstLeft <= 2, "\(worstLeft) mg of the lean left for the velocity")
    }

    @Test("a gentle drag, 15 cm over 1.8 s tilting the kiosk 0.5°, is caught with the gyroscope while the kiosk still speeds up, far sooner than by the accelerometer alone")
    func gentleDrag() throws {
        // The push peaks at 27 mg; the tilt takes 9 mg off it on the chip's x axis, under the
        // accelerometer's 25 mg dead zone.
        let T = GentleDrag.seconds
        let k = Kiosk(seconds: 6, tilt: GentleDrag.tilt, push: GentleDrag.push)
        let with = k.run(gyro: true)
        let first = try #require(with.fired.first, "missed; top speed \(with.topSpeed) mm/s")
        #expect(first < 1_000_000 + Int64(T / 2 * 1_000_000), "fired at \(first) µs, once the kiosk slowed")
        // Alone, the accelerometer sees the push less the tilt, under its dead zone, until the
        // kiosk brakes and the two add up.
        let alone = k.run(gyro: false).fired.first ?? .max
        #expect(alone >= first + 400_000, "the accelerometer alone fired at \(alone) µs, the gyroscope at \(first)")
    }

    @Test("taps read without the chip's low-pass, each a single reading of 0.1 g with the give-back between two, five a second for 6 s: nothing moves")
    func unfilteredTapsMoveNothing() {
        // An MPU6050 left at its reset bandwidth (260 Hz) and read at 100 Hz catches a tap's 10 ms
        // press on one sample and misses its give-back. Through a dead zone on single readings
        // each spike was a 9 mm/s shove, and five a second passed the speed (27 mm/s). Low-passed,
        // a spike is spread over a few readings, which the dead zone trims each time: 15 mm/s.
        let r = Kiosk(seconds: 8, push: { u in
            guard u > 0 && u < 6 else { return 0 }
            return Int((u * 100).rounded()) % 20 == 0 ? 100 : 0
        }).run(gyro: true)
        #expect(r.fired.isEmpty, "fired at \(r.fired.first ?? 0) µs")
        #expect(r.topSpeed < 20, "top speed \(r.topSpeed) mm/s")
    }

    @Test("a building's hum of ±40 mg at 23 Hz under a drag of 10 cm in 1.8 s: the velocity is not held as if the counter rang, and the drag is caught while the kiosk still moves")
    func humDoesNotHoldADrag() throws {
        // The hum reverses past the readings' 25 mg every half-cycle, as a slammed door's ring
        // does, and a ring's hold kept the velocity at zero through the whole drag. Low-passed
        // (τ 20 ms) the hum is a quarter of that, and the ring is judged there.
        let T = 1.8
        let hum: (Double) -> Double = { u in 40 * sin(2 * .pi * 23 * (u + 1)) }
        let drag: (Double) -> Double = { u in hum(u) + MinimumJerk.acceleration(metres: 0.10, seconds: T, at: u) }
        let caught = try #require(Kiosk(seconds: 6, push: drag).run(gyro: true).fired.first, "the drag was missed")
        #expect(caught < 1_000_000 + Int64(T * 1_000_000), "fired at \(caught) µs, after the drag ended")
        #expect(Kiosk(seconds: 6, push: hum).run(gyro: true).fired.isEmpty, "the hum alone fired")
    }

    @Test("a kiosk rocked ±30 mg at 1.5 Hz passes the speed each half-cycle but travels 3 mm: not a theft")
    func wobbleIsNotTravel() {
        let r = Kiosk(seconds: 8, push: { u in u < 4 ? 30 * sin(2 * .pi * 1.5 * u) : 0 }).run(gyro: true)
        #expect(r.topSpeed >= 20, "top speed \(r.topSpeed) mm/s: the speed alone would not have been passed")
        #expect(r.fired.isEmpty, "fired at \(r.fired)")
    }

    @Test("a customer's 0.9° lean that sways the kiosk ±18 mg at 1.5 Hz as it leans: the gyroscope takes the lean off the turn, and nothing fires; a tilt to 2° fires as it passes 1.7°")
    func swayingLeanIsNotATilt() throws {
        let sway = { (u: Double) in u < 2 ? 18 * sin(2 * .pi * 1.5 * u) : 0 }
        let lean = Kiosk(seconds: 8, tilt: Self.lean(0.9, hold: 4), push: sway)
        // Read as it is, the lean and the sway add to 34 mg across gravity: past the turn's 30.
        #expect(lean.run(gyro: true, blind: true).fired.count > 0, "the reading alone did not pass the turn")
        #expect(lean.run(gyro: true).fired.isEmpty, "fired at \(lean.run(gyro: true).fired)")
        // 2° over 1 s; 1.7° is reached 0.64 s in (the lean's ease, stretched).
        let tilt = Kiosk(seconds: 5, tilt: { u in 2 * MinimumJerk.ease(u) })
        let caught = try #require(tilt.run(gyro: true).fired.first, "the tilt to 2° was missed")
        #expect(caught >= 1_600_000 && caught <= 1_750_000, "fired at \(caught) µs")
    }
}
