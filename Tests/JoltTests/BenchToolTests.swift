import Foundation
@testable import JoltApp
import JoltCore
import JoltMotion
import JoltTrace
import Testing

/// A still device with gravity along `up` (device axes), `seconds` long, as a trace file.
func stillTrace(up: V3, seconds: Double = 5) -> String {
    var m = Motion(rate: 100, seed: 4)
    m.up = up.unit
    m.rest(seconds)
    var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
    for s in m.take() { text += TraceWriter.row(s, gyro: true) }
    return tempFile(text, name: "still.csv")
}

@Suite("jolt calibrate")
struct CalibrateTests {
    func board(_ extra: String = "", chip: String = "mpu6050") -> String {
        tempFile("""
        {
          "name": "bench", "bus": "sim", "rate_hz": 100, \(extra)
          "sim": { "chip": "\(chip)", "motion": "rest", "accel_bias_g": [0.05, -0.03, 0.02], "gyro_bias_dps": [1.5, -0.7, 0.2] }
        }
        """, name: "bench.json")
    }

    @Test("measures the simulated chip's bias as offsets and writes them; the written board loads and reads level", arguments: ["mpu6050", "adxl345"])
    func offsets(chip: String) throws {
        let b = board(chip: chip)
        let out = NSTemporaryDirectory() + "cal-\(UUID().uuidString).json"
        let r = jolt(["calibrate", "--board", b, "-o", out, "--fast", "--json"])
        #expect(r.code == .ok, "\(r.error)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect(o["up"] as? String == "+z")
        let written = try BoardProfile.load(path: out)
        let a = written.mount.accelOffset
        #expect(abs(a.x - 50) <= 4 && abs(a.y + 30) <= 4 && abs(a.z - 20) <= 4, "accel offsets \(a) mg")
        if chip == "mpu6050" {
            let g = written.mount.gyroOffset
            #expect(abs(g.x - 1500) <= 30 && abs(g.y + 700) <= 30 && abs(g.z - 200) <= 30, "gyro offsets \(g) mdps")
        }
        // The rest of the file is kept: its name and its sim section.
        #expect(written.name == "bench" && written.sim.accelBias.x == 50)
        // Recorded through the written board, the device reads level: 0, 0, 1 g within the noise.
        let trace = NSTemporaryDirectory() + "cal-\(UUID().uuidString).csv"
        #expect(jolt(["record", "--board", out, "--seconds", "2", "--fast", "-o", trace]).code == .ok)
        let f = try TraceFile(path: trace)
        var sum = (0, 0, 0), n = 0
        while let s = try f.next() { sum.0 += Int(s.accel.x); sum.1 += Int(s.accel.y); sum.2 += Int(s.accel.z); n += 1 }
        #expect(abs(sum.0 / n) <= 4 && abs(sum.1 / n) <= 4 && abs(sum.2 / n - 1000) <= 4, "mean \(sum.0 / n), \(sum.1 / n), \(sum.2 / n) mg")
    }

    @Test("a device lying on its side: the mount that makes z point up is written where the board had none, suggested where it had one")
    func mount() throws {
        let trace = stillTrace(up: V3(0, -1, 0))
        let out = NSTemporaryDirectory() + "cal-\(UUID().uuidString).json"
        let r = jolt(["calibrate", "--board", board(), "-o", out, "--fast", "--trace", trace])
        #expect(r.code == .ok, "\(r.error)")
        #expect(r.out.contains("chip -y up") && r.out.contains("wrote \"mount\""), "\(r.out)")
        let b = try BoardProfile.load(path: out)
        // Through the new mount, gravity is on the board's +z.
        var mapping = b.mount
        mapping.accelOffset = .zero
        #expect(mapping.apply(Sample(t: 0, accel: Vec3(0, -1000, 0))).accel == Vec3(0, 0, 1000))
        let kept = NSTemporaryDirectory() + "cal-\(UUID().uuidString).json"
        let r2 = jolt(["calibrate", "--board", board(#""mount": {"x": "+x", "y": "+y", "z": "+z"},"#), "-o", kept, "--fast", "--trace", trace])
        #expect(r2.code == .ok && r2.out.contains("left as it is"), "\(r2.out)")
        var keptMount = try BoardProfile.load(path: kept).mount
        keptMount.accelOffset = .zero
        keptMount.gyroOffset = .zero
        #expect(keptMount == .identity)
    }

    @Test("refuses, writing nothing, when the device moves, is tilted, or the options are wrong")
    func refuses() throws {
        let out = NSTemporaryDirectory() + "cal-\(UUID().uuidString).json"
        var m = Motion(rate: 100, seed: 2)
        m.rest(1)
        m.shake(freq: 4, amp: 1, seconds: 1)
        m.rest(2)
        var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
        for s in m.take() { text += TraceWriter.row(s, gyro: true) }
        let moved = jolt(["calibrate", "--board", board(), "-o", out, "--fast", "--trace", tempFile(text)])
        #expect(moved.code == .tempFailure && moved.error.contains("the device moved during the measurement"), "\(moved.error)")
        let tilted = jolt(["calibrate", "--board", board(), "-o", out, "--fast", "--trace", stillTrace(up: V3(0.5, 0, 0.87))])
        #expect(tilted.code == .tempFailure && tilted.error.contains("is tilted 3"), "\(tilted.error)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(jolt(["calibrate", "--board", board()]).code == .usage)
        #expect(jolt(["calibrate", "-o", out]).code == .usage)
        #expect(jolt(["calibrate", "--board", board(), "-o", out, "--seconds", "0"]).code == .usage)
        #expect(jolt(["calibrate", "--board", board(), "-o", "/nonexistent/dir/b.json", "--fast"]).code == .cannotCreate)
    }

    @Test("the judgement on its own: a sleeping chip's zeros, a reading far from 1 g")
    func judge() {
        var r = CalibrateCommand.Result()
        r.accelMean = [0, 0, 0]
        #expect(throws: JoltError.self) { try CalibrateCommand.judge(&r) }
        r.accelMean = [0, 0, 2000]
        do { try CalibrateCommand.judge(&r); Issue.record("2 g accepted") } catch { #expect(error.code == .unavailable && error.message.contains("2.000 g")) }
        r.accelMean = [10, -1000, 5]
        #expect(throws: Never.self) { try CalibrateCommand.judge(&r) }
        #expect(r.upAxis == 1 && r.upSign == -1 && r.accelOffset == [10, 0, 5])
    }
}
