import Foundation
import Testing
import JoltActions
import JoltCore
import JoltTestSupport

@Suite("Every trigger says why: moved, tilting, tilt, shake, flip, panic, with its figure")
struct TriggerReasonTests {
    /// The tamper readings of each firing, for a kiosk at rest 2 s (armed at 1.5 s), then `build`,
    /// then at rest `after` seconds.
    func readings(gyro: Bool = true, after: Double = 1, _ build: (inout SignalBuilder) -> Void) -> [TamperReading] {
        var g = SignalBuilder(rate: 100)
        g.rest(2)
        build(&g)
        g.rest(after)
        var d = DefaultDetectors(settings(rate: 100, gyro: gyro))
        var out: [TamperReading] = []
        for (i, s) in g.samples.enumerated() {
            if d.update(s).contains(.tamper) {
                if let r = d.tamperReading(at: s.t) { out.append(r) } else { Issue.record("a tamper at \(s.t) µs without a reading") }
            }
            if i == 150 { d.armTamper() }
        }
        return out
    }

    @Test("a slide: moved, at about the speed the push reached, and for how long it had been past the speed")
    func slide() throws {
        for gyro in [true, false] {
            // Pushed at 0.1 g along x for 0.4 s (0.075 g past the dead zone), then braked.
            let r = readings(gyro: gyro) { g in
                for _ in 0..<40 { g.emit((0.1, 0, 1)) }
                for _ in 0..<40 { g.emit((-0.1, 0, 1)) }
            }
            let first = try #require(r.first, "the slide fired (gyro: \(gyro))")
            #expect(first.cause == .moved)
            let reason = TriggerReason(first)
            #expect(reason.kind == .moved)
            // A push sideways turns the reading across gravity too: the turn (30 mg low-passed with
            // τ 40 ms, held 60 ms) fires about 80 ms into the push, before the speed's 120 ms hold
            // ends; by then it moves at 0.7 m/s² × 80 ms less the leak, about 55 mm/s, and has been
            // past 20 mm/s (the medium setting) for about 50 ms. Moving, so it says moved.
            let speed = try #require(reason.speedMMs), held = try #require(reason.millis)
            #expect((35...90).contains(speed), "\(speed) mm/s (gyro: \(gyro))")
            #expect((20...120).contains(held), "past the speed for \(held) ms (gyro: \(gyro))")
            #expect(reason.deciDegrees == nil)
        }
    }

    @Test("a tilt: the start of it as tilting, by a couple of degrees; then tilted, by the angle it stands at")
    func tilt() throws {
        for gyro in [true, false] {
            let r = readings(gyro: gyro, after: 6) { $0.rotate(axis: (1, 0, 0), degrees: 20, seconds: 4) }
            let first = try #require(r.first, "the tilt fired (gyro: \(gyro))")
            #expect(first.cause == .tilting, "\(first.cause) (gyro: \(gyro))")
            let start = try #require(TriggerReason(first).deciDegrees)
            #expect((15...50).contains(start), "tilting \(start) tenths of a degree (gyro: \(gyro))")
            // Past the holdoff, a kiosk that stands tilted fires again, as a tilt of its angle.
            let tilted = try #require(r.last { $0.cause == .tilted }, "\(r.map(\.cause)) (gyro: \(gyro))")
            let reason = TriggerReason(tilted)
            #expect(reason.kind == .tilt)
            let deg = try #require(reason.deciDegrees)
            #expect((190...210).contains(deg), "tilted \(deg) tenths of a degree, 200 made (gyro: \(gyro))")
        }
    }

    @Test("the JSON keys are added after the schema's, the human line says it; alarm reasons for each cause")
    func records() {
        let moved = TriggerReason(.moved, speedMMs: 61, millis: 180)
        #expect(EventRecord(t: 31_000_000, kind: .tamper, reason: moved).json == #"{"t":31.0,"event":"tamper","reason":"moved","mm_s":61,"ms":180}"#)
        #expect(EventRecord(t: 31_000_000, kind: .tamper, reason: moved).human == "   31.000 s  tamper: moved 61 mm/s for 180 ms")
        let tr = AlarmTransition(from: .armed, to: .triggered, cause: .tamper)
        let tilt = TriggerReason(.tilt, deciDegrees: 124)
        #expect(EventRecord(t: 31_000_000, kind: .alarm(tr), reason: tilt).json
                == #"{"t":31.0,"event":"alarm","state":"triggered","from":"armed","cause":"tamper","reason":"tilt","deg":12.4}"#)
        #expect(EventRecord(t: 31_000_000, kind: .alarm(tr), reason: tilt).human.hasSuffix("alarm triggered (was armed, tamper: tilted 12.4°)"))
        #expect(EventRecord(t: 31_000_000, kind: .tamper).json == #"{"t":31.0,"event":"tamper"}"#, "no reason, no key")

        #expect(TriggerReason(cause: .shake, tamper: nil, shakePeak2: 2410 * 2410)?.jsonFields.map(\.0) == ["reason", "peak_g"])
        #expect(TriggerReason(cause: .flip, tamper: nil, shakePeak2: 0)?.text == "turned face down")
        #expect(TriggerReason(cause: .panic, tamper: nil, shakePeak2: 0)?.kind == .panic)
        #expect(TriggerReason(cause: .timeout, tamper: nil, shakePeak2: 0) == nil)
        #expect(LastTrigger(cause: .tamper, reason: moved, wallMicros: 0).text == "tamper: moved 61 mm/s for 180 ms")
        #expect(LastTrigger(cause: .shake, reason: TriggerReason(.shake, peakMilliG: 2410), wallMicros: 0).text == "shaken (peak 2.41 g)")
    }
}
