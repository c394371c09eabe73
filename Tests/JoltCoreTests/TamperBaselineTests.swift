import JoltCore
import Testing

@Suite("Tamper baselines: the ADXL345's activity interrupt and a plain tilt rule")
struct TamperBaselineTests {
    func sample(_ t: Int64, _ x: Int32, _ y: Int32, _ z: Int32) -> Sample { Sample(t: t, accel: Vec3(x, y, z)) }

    @Test("activity: AC-coupled to the first reading after arming, any axis past 0.25 g")
    func activity() {
        var a = ActivityTamper()
        let unarmed = a.update(sample(0, 0, 500, 866))
        #expect(!unarmed, "not armed: nothing")
        a.arm()
        let seen = [sample(10_000, 0, 500, 866), sample(20_000, 240, 500, 866), sample(30_000, 0, 260, 1100),
                    sample(40_000, 0, 500, 1117), sample(50_000, -260, 500, 866)].map { a.update($0) }
        // The first is the reference; 0.24 g on x and 0.234 g on z are within; 0.251 g on z and
        // 0.26 g on x are past it.
        #expect(seen == [false, false, false, true, true], "\(seen)")
    }

    @Test("tilt: past 10 degrees from the armed gravity, not at 9")
    func tilt() {
        var t = TiltTamper()
        #expect(!t.tilted(Vec3(0, 0, 1000)), "not armed")
        t.arm(gravity: Vec3(0, 0, 1000))
        // sin 9° = 0.156, cos 9° = 0.988; sin 11° = 0.191, cos 11° = 0.982.
        #expect(!t.tilted(Vec3(156, 0, 988)))
        #expect(t.tilted(Vec3(191, 0, 982)))
        #expect(t.tilted(Vec3(0, 0, -1000)), "upside down")
        #expect(!t.tilted(Vec3(0, 0, 1300)), "heavier, not tilted")
    }
}
