import Foundation
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltTestSupport
import Testing

/// The LIS3DH, the registry's third chip, end to end on the simulated board: every command that
/// touches a chip works with it, through the registry and nothing else.
@Suite("A third chip: the LIS3DH on the simulated board")
struct ThirdChipTests {
    func board(motion: String = "demo", extra: String = "") -> String {
        tempFile(#"{"name": "bench LIS3DH", "bus": "sim", "chip": "lis3dh", "rate_hz": 100, "accel_range_g": 8, \#(extra) "sim": {"chip": "lis3dh", "motion": "\#(motion)"}}"#, name: "lis3dh.json")
    }

    @Test("run: the demo's shake and flip through a LIS3DH, with the chip named in the start-up line")
    func run() throws {
        let r = joltBinary(["run", "--board", board(), "--fast", "--json"])
        #expect(r.code == 0, "\(r.error)")
        #expect(r.error.contains("LIS3DH (WHO_AM_I 0x33) at 0x18 on the simulated bus: 100 Hz, ±8 g"), "\(r.error)")
        let kinds = r.out.split(separator: "\n").compactMap { line -> String? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return "\(o["event"] ?? "")\((o["phase"] ?? o["state"]).map { ".\($0)" } ?? "")"
        }
        #expect(kinds.contains("shake.began") && kinds.contains("flip.face_down") && kinds.contains("flip.face_up"), "\(kinds)")
    }

    @Test("probe finds it at 0x18 on the simulated bus, and says an LIS3DH rate it cannot do")
    func probe() {
        let r = joltBinary(["probe", "--bus", "sim", "--board", board()])
        #expect(r.code == 0, "\(r)")
        #expect(r.out.contains("0x18  LIS3DH (WHO_AM_I 0x33)") && r.out.contains("0x68  -"), "\(r.out)")
        let wrong = joltBinary(["run", "--board", tempFile(#"{"bus": "sim", "chip": "lis3dh", "rate_hz": 800, "sim": {"chip": "lis3dh"}}"#, name: "fast.json"), "--fast"])
        #expect(wrong.code == 78 && wrong.error.contains("the LIS3DH cannot sample at 800 Hz (its rates: 1, 10, 25, 50, 100, 200, 400, 1344 Hz)"), "\(wrong.error)")
    }

    @Test("record writes a trace from it that replays to the same events as run")
    func record() throws {
        let out = NSTemporaryDirectory() + "lis3dh-\(UUID()).csv"
        let r = joltBinary(["record", "--board", board(), "--seconds", "12", "--fast", "-o", out])
        #expect(r.code == 0, "\(r.error)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.contains("# source: jolt record, LIS3DH (WHO_AM_I 0x33) at 0x18 on the simulated bus") && text.contains("# range_g: 8"), "\(text.prefix(300))")
        let rows = text.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(rows.count == 1200, "\(rows.count) rows for 12 s at 100 Hz")
        #expect(rows.first?.split(separator: ",").count == 4, "accelerometer only: t, x, y, z")
        let replay = joltBinary(["replay", out])
        #expect(replay.code == 0 && replay.out.contains("shake began"), "\(replay)")
    }

    @Test("watch shows its readings and events, without a gyro")
    func watch() {
        let r = joltBinary(["watch", "--board", board(), "--fast", "--seconds", "14"])
        #expect(r.code == 0, "\(r.error)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains(" |a| ") }.count == 28, "\(lines.prefix(5))")
        #expect(lines.contains { $0.contains("shake began") } && lines.contains { $0.contains("face down") })
    }
}
