import Foundation
@testable import JoltApp
@testable import JoltRun
@testable import JoltActions
import JoltCore
import JoltSupport
import Testing

/// The evidence of each alarm (docs/alarm.md, "Evidence"): the readings 10 s either side of a
/// trigger, as a jolt-trace in the state directory.
@Suite("The alarm's evidence")
struct EvidenceTests {
    @Test("the simulated kiosk lifted: the trigger names its evidence, a 0640 jolt-trace of the 10 s either side; replayed, it trips on the same reason; plotted, it shows it")
    func endToEnd() throws {
        let dir = NSTemporaryDirectory() + "jolt-evidence-\(UUID().uuidString.prefix(8))"
        // The board names no socket: it goes where clients look when not told.
        var r: (code: ExitCode, out: String, error: String) = (.ok, "", "")
        UsualSocketPlaces.shared.exclusively {
            r = jolt(["run", "--board", "boards/kiosk-alarm.json", "--state-dir", dir, "--fast", "--seconds", "30", "--json"])
        }
        #expect(r.code == .ok, "\(r.error)")
        let triggered = try #require(r.out.split(separator: "\n").compactMap { json(String($0)) }.first { $0["state"] as? String == "triggered" }, "\(r.out)")
        let path = try #require(triggered["evidence"] as? String)
        #expect(path.hasPrefix(dir + "/evidence/alarm-") && path.hasSuffix("Z.csv"), "\(path)")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[FileAttributeKey.posixPermissions] as? Int) == 0o640)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let t = try #require(triggered["t"] as? Double)
        #expect(text.contains("# trigger_t: \(EventRecord.seconds(Int64((t * 1e6).rounded())))") && text.contains("# evidence: the alarm triggered at"))
        let rows = text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("t,") }
        #expect(rows.count >= 1990 && rows.count <= 2010, "10 s either side at 100 Hz: \(rows.count) rows")
        let first = Double(String(rows.first!.split(separator: ",")[0]))!, last = Double(String(rows.last!.split(separator: ",")[0]))!
        #expect(abs(first - (t - 10)) < 0.02 && abs(last - (t + 10)) < 0.02, "\(first) … \(last) around \(t)")
        // Replayed armed from its first reading, the same theft trips it, for the same reason, at
        // the same moment within a few samples (the detector starts from the file's first reading).
        let replay = jolt(["replay", "--arm", "--json", "--config", "boards/kiosk-alarm.json", path])
        let tamper = try #require(replay.out.split(separator: "\n").compactMap { json(String($0)) }.first { $0["event"] as? String == "tamper" }, "\(replay.out)")
        #expect(tamper["reason"] as? String == triggered["reason"] as? String, "\(tamper) against \(triggered)")
        #expect(abs((tamper["t"] as? Double ?? 0) - t) <= 0.05, "\(tamper) against \(t)")
        let svg = dir + "/evidence.svg"
        #expect(jolt(["plot", "--arm", "--config", "boards/kiosk-alarm.json", path, "-o", svg]).code == .ok)
        #expect(try String(contentsOfFile: svg, encoding: .utf8).contains("moved "), "the plot labels the tamper with its reason")
    }

    @Test("bounded: the newest files kept, the oldest removed; a trigger while capturing extends that capture")
    func bounded() throws {
        let dir = NSTemporaryDirectory() + "jolt-evidence-\(UUID().uuidString.prefix(8))"
        let e = EvidenceRecorder(directory: dir, rateMilliHz: 100_000, gyro: false, keep: 2)
        var t: Int64 = 0
        func run(seconds: Int64) {
            for _ in 0..<(seconds * 100) {
                e.add(Sample(t: t, accel: Vec3(0, 0, 1000)))
                t += 10_000
            }
        }
        var paths: [String] = []
        for i in 0..<3 {
            run(seconds: 12)
            paths.append(try #require(e.triggered(at: t, wallMicros: 1_800_000_000_000_000 + Int64(i) * 60_000_000, why: "test \(i)")))
            run(seconds: 3)
            #expect(e.triggered(at: t, wallMicros: 0, why: "again") == paths.last, "a second trigger extends the capture")
            run(seconds: 11)
        }
        e.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(names == paths.dropFirst().map { String($0.split(separator: "/").last!) }, "\(names)")
        let kept = try String(contentsOfFile: paths[2], encoding: .utf8)
        let rows = kept.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("t,") }
        #expect(rows.count >= 2300 && rows.count <= 2310, "10 s before the first trigger, 10 s after the second: \(rows.count)")
        #expect(e.written == 3)
    }

    @Test("two captures in one second of the wall clock (simulated time): the second is named apart, both are kept, and the names sort in their order")
    func sameSecond() throws {
        let dir = NSTemporaryDirectory() + "jolt-evidence-\(UUID().uuidString.prefix(8))"
        let e = EvidenceRecorder(directory: dir, rateMilliHz: 100_000, gyro: false, keep: 3)
        var t: Int64 = 0
        func run(seconds: Int64, z: Int32) {
            for _ in 0..<(seconds * 100) {
                e.add(Sample(t: t, accel: Vec3(0, 0, z)))
                t += 10_000
            }
        }
        var paths: [String] = []
        // Four captures whose triggers fall in the same wall-clock second, then one in the next;
        // with keep 3, the oldest two go.
        for (i, wall) in [0, 100_000, 200_000, 300_000, 1_000_000].enumerated() {
            run(seconds: 11, z: 1000 + Int32(i))
            paths.append(try #require(e.triggered(at: t, wallMicros: 1_800_000_000_000_000 + Int64(wall), why: "test \(i)")))
        }
        run(seconds: 11, z: 1000)
        e.close()
        let names = paths.map { String($0.split(separator: "/").last!) }
        #expect(names == ["alarm-2027-01-15T08-00-00Z.csv", "alarm-2027-01-15T08-00-00Z_0002.csv", "alarm-2027-01-15T08-00-00Z_0003.csv",
                          "alarm-2027-01-15T08-00-00Z_0004.csv", "alarm-2027-01-15T08-00-01Z.csv"], "\(names)")
        #expect(names.sorted() == names, "the names sort in the order of the triggers")
        let kept = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(kept == Array(names.suffix(3)), "\(kept)")
        // Each file holds its own capture: the third's readings before its trigger are 1002 mg.
        let third = try String(contentsOfFile: paths[2], encoding: .utf8)
        #expect(third.contains("test 2") && third.contains(",1.002"), "\(third.prefix(300))")
    }

    @Test("capped: whole when it fits; else the readings nearest the trigger, about as many after as before, within the size, with a note; nil when not even the header fits")
    func capped() throws {
        let samples = (0..<2000).map { Sample(t: Int64($0) * 10_000, accel: Vec3(Int32($0 % 7), -3, 1000 + Int32($0 % 11)), gyro: Vec3(1, 2, 3)) }
        let about = [("evidence", "test"), ("trigger_t", "12")]
        let whole = try #require(EvidenceRecorder.capped(samples, trigger: 12_000_000, about: about, rateMilliHz: 100_000, gyro: true, maxBytes: 1 << 30))
        #expect(!whole.contains("# trimmed:"))
        #expect(whole.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("t,") }.count == 2000)
        for limit in [4096, 20_000] {
            let cut = try #require(EvidenceRecorder.capped(samples, trigger: 12_000_000, about: about, rateMilliHz: 100_000, gyro: true, maxBytes: limit))
            #expect(cut.utf8.count <= limit, "\(cut.utf8.count) > \(limit)")
            #expect(cut.utf8.count > limit - 200, "fills the room: \(cut.utf8.count) of \(limit)")
            let times = cut.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("t,") }.compactMap { Double(String($0.split(separator: ",")[0])) }
            let before = 12 - (times.first ?? 99), after = (times.last ?? -99) - 12
            #expect(before >= 0 && after >= 0 && abs(before - after) <= 0.011, "\(before) s before, \(after) s after")
            #expect(cut.contains("# trimmed: kept \(EventRecord.seconds(Int64((before * 1e6).rounded()))) s before the trigger"), "\(cut.prefix(400))")
        }
        #expect(EvidenceRecorder.capped(samples, trigger: 12_000_000, about: about, rateMilliHz: 100_000, gyro: true, maxBytes: 100) == nil)
    }
}
