import Foundation
import JoltBaselines
import JoltCore
import JoltTrace
import JoltTestSupport
import Testing

@Suite("Fixed point")
struct FixedPointTests {
    @Test("sample periods at every supported rate", arguments: [
        (12_500, 80_000), (25_000, 40_000), (50_000, 20_000), (100_000, 10_000), (200_000, 5_000),
        (400_000, 2_500), (333_333, 3_000), (1_000_000, 1_000),
    ] as [(Int32, Int64)])
    func period(rate: Int32, micros: Int64) {
        #expect(Units.periodMicros(rateMilliHz: rate) == micros)
    }

    @Test("low-pass coefficient is Δt/(τ+Δt) in Q16 at every rate", arguments: [12.5, 25, 50, 100, 200, 400, 500, 1000])
    func lowPassAlpha(rate: Double) {
        let period = Int64((1e6 / rate).rounded())
        for tauMs in [50.0, 158.0, 500.0, 1000.0] {
            let alpha = LowPass3.alphaQ16(tauMicros: Int64(tauMs * 1000), periodMicros: period)
            let exact = (Double(period) / (tauMs * 1000 + Double(period))) * 65536
            #expect(abs(Double(alpha) - exact) <= 0.5 + 1e-9, "rate \(rate) τ \(tauMs)")
        }
    }

    @Test("low-pass settles on its input and matches the continuous step response", arguments: [12.5, 50, 100, 400, 1000])
    func lowPassStep(rate: Double) {
        let period = Int64((1e6 / rate).rounded())
        var f = LowPass3(tauMicros: 500_000, periodMicros: period)
        _ = f.update(Vec3(0, 0, 1000))
        var out = Vec3.zero
        let steps = Int(rate * 0.5)   // one time constant
        for _ in 0..<steps { out = f.update(Vec3(-1000, 500, -1000)) }
        // After one τ a first-order filter has covered 1 - 1/e of the step (discretisation
        // with α = Δt/(τ+Δt) covers slightly less at coarse rates).
        let covered = Double(1000 - out.z) / 2000
        #expect(covered > 0.55 && covered < 0.64, "rate \(rate): covered \(covered)")
        for _ in 0..<Int(rate * 20) { out = f.update(Vec3(-1000, 500, -1000)) }
        #expect(out == Vec3(-1000, 500, -1000), "rate \(rate): settled at \(out)")
    }

    @Test("integer cosine agrees with the library cosine")
    func cosine() {
        for d in stride(from: -3600, through: 3600, by: 7) {
            let q = Trig.cosQ15(deciDegrees: Int32(d))
            let exact = cos(Double(d) / 10 * .pi / 180) * 32768
            #expect(abs(Double(q) - exact) <= 2.5, "\(d) deci-degrees: \(q) vs \(exact)")
        }
        #expect(Trig.cosMilli(deciDegrees: 350) == 819)
        #expect(Trig.cosMilli(deciDegrees: 600) == 500)
        #expect(Trig.cosMilli(deciDegrees: 1800) == -1000)
    }

    @Test("decimal text to fixed point", arguments: [
        ("-1.0836", 3, -1084), ("1.0835", 3, 1084), ("1.0834999", 3, 1083), ("0.0005", 3, 1), ("-0.0005", 3, -1),
        ("0.00049", 3, 0), ("12.34", 6, 12_340_000), ("1e-3", 6, 1000), ("1.5E+2", 3, 150_000), ("+7", 3, 7000),
        ("0", 3, 0), ("-0.0", 3, 0), ("  2.5 ", 3, 2500), ("123456789.123456789", 6, 123_456_789_123_457),
        ("0.000000000000000000001", 3, 0), (".5", 3, 500), ("5.", 3, 5000),
    ] as [(String, Int, Int64)])
    func decimal(text: String, places: Int, expected: Int64) throws {
        var b = Array(text.utf8)
        let v = try b.withUnsafeMutableBufferPointer { p in
            try FixedDecimal.parse(UnsafeBufferPointer(p), from: 0, to: p.count, places: places)
        }
        #expect(v == expected)
    }

    @Test("text that is not a number", arguments: ["", "-", "nan", "NaN", "inf", "-inf", "1.2.3", "1e", "1e+", "0x10", "1,5", "abc", "1 2", "\u{FF}"])
    func notANumber(text: String) {
        var b = Array(text.utf8)
        #expect(throws: FixedDecimal.Failure.malformed) {
            try b.withUnsafeMutableBufferPointer { p in
                try FixedDecimal.parse(UnsafeBufferPointer(p), from: 0, to: p.count, places: 3)
            }
        }
    }

    @Test("numbers too large for the unit")
    func tooLarge() {
        var b = Array("1e30".utf8)
        #expect(throws: FixedDecimal.Failure.outOfRange) {
            try b.withUnsafeMutableBufferPointer { p in
                try FixedDecimal.parse(UnsafeBufferPointer(p), from: 0, to: p.count, places: 3)
            }
        }
    }

    @Test("the bit window keeps a running count over its last entries")
    func bitWindow() {
        var w = BitWindow(length: 100)
        var model: [Bool] = []
        var rng = SplitMix64(state: 7)
        for _ in 0..<1000 {
            let v = rng.uniform() < 0.3
            w.push(v)
            model.append(v)
            if model.count > 100 { model.removeFirst() }
            #expect(w.ones == Int32(model.filter { $0 }.count))
            #expect(w.count == Int32(model.count))
        }
    }

    @Test("mount: permutations and signs map axes; mirror images are refused")
    func mount() {
        let m = Mount(source: (1, 0, 2), sign: (1, -1, 1))!
        let s = m.apply(Sample(t: 0, accel: Vec3(10, 20, 30), gyro: Vec3(1, 2, 3)))
        #expect(s.accel == Vec3(20, -10, 30))
        #expect(s.gyro == Vec3(2, -1, 3))
        #expect(Mount(source: (0, 1, 2), sign: (1, 1, -1)) == nil, "z flipped alone is a mirror")
        #expect(Mount(source: (1, 0, 2), sign: (1, 1, 1)) == nil, "swapping two axes is a mirror")
        #expect(Mount(source: (0, 1, 2), sign: (-1, 1, -1)) != nil, "upside down is a rotation")
        #expect(Mount(source: (0, 0, 2), sign: (1, 1, 1)) == nil)
        var o = Mount.identity
        o.accelOffset = Vec3(5, -5, 20)
        #expect(o.apply(Sample(t: 0, accel: Vec3(5, -5, 1020))).accel == Vec3(0, 0, 1000))
    }
}
