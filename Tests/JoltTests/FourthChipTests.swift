import Foundation
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltChips
import JoltDrivers
import JoltSim
import JoltTestSupport
import Testing

/// The LSM6DSO, the registry's fourth chip, end to end on the simulated board: every command that
/// touches a chip works with it through its folder, its registry line and its twin, and the
/// configuration knows its rates and ranges from its facts alone.
@Suite("A fourth chip: the LSM6DSO on the simulated board")
struct FourthChipTests {
    func board(motion: String = "demo", extra: String = "") -> String {
        tempFile(#"{"name": "bench LSM6DSO", "bus": "sim", "chip": "lsm6dso", "address": "0x6b", "rate_hz": 104, "accel_range_g": 8, "gyro_range_dps": 125, \#(extra) "sim": {"chip": "lsm6dso", "motion": "\#(motion)"}}"#, name: "lsm6dso.json")
    }

    func kinds(_ out: String) -> [String] {
        out.split(separator: "\n").compactMap { line -> String? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return "\(o["event"] ?? "")\((o["phase"] ?? o["state"]).map { ".\($0)" } ?? "")"
        }
    }

    @Test("run: the demo's shake and flip through an LSM6DSO at 104 Hz and ±125 °/s, FIFO and not")
    func run() throws {
        for fifo in [true, false] {
            let r = joltBinary(["run", "--board", board(extra: #""fifo": \#(fifo),"#), "--fast", "--json"])
            #expect(r.code == 0, "\(r.error)")
            #expect(r.error.contains("LSM6DSO (WHO_AM_I 0x6C) at 0x6B on the simulated bus: 104 Hz, ±8 g, ±125 °/s, \(fifo ? "FIFO drained every 200 ms" : "read every sample")"), "\(r.error)")
            let k = kinds(r.out)
            #expect(k.contains("shake.began") && k.contains("flip.face_down") && k.contains("flip.face_up"), "\(k)")
        }
    }

    @Test("probe finds it at 0x6B with its facts; the profile's rate and range refused at their line, from its facts")
    func probeAndConfig() {
        let r = joltBinary(["probe", "--bus", "sim", "--board", board()])
        #expect(r.code == 0, "\(r)")
        #expect(r.out.contains("0x6b  LSM6DSO (WHO_AM_I 0x6C)") && r.out.contains("gyroscope ±125-2000 °/s") && r.out.contains("FIFO of 256 readings"), "\(r.out)")
        let rate = joltBinary(["run", "--board", tempFile("{\"bus\": \"sim\", \"chip\": \"lsm6dso\",\n \"rate_hz\": 100}", name: "lsm6dso-100.json"), "--fast"])
        #expect(rate.code == 78 && rate.error.contains("lsm6dso-100.json:2: rate_hz: the LSM6DSO cannot sample at 100 Hz (its rates: 12.5, 26, 52, 104, 208, 416, 833"), "\(rate.error)")
        let missing = joltBinary(["run", "--board", tempFile(#"{"bus": "sim", "chip": "lsm6dso"}"#, name: "lsm6dso-default.json"), "--fast"])
        #expect(missing.code == 78 && missing.error.contains("chip: the LSM6DSO cannot sample at 100 Hz") && missing.error.contains("give rate_hz (the default is 100 Hz)"), "\(missing.error)")
        let gyro = joltBinary(["run", "--board", tempFile(#"{"bus": "sim", "chip": "mpu6050", "gyro_range_dps": 125}"#, name: "mpu-125.json"), "--fast"])
        #expect(gyro.code == 78 && gyro.error.contains("gyro_range_dps: must be 250, 500, 1000 or 2000 (°/s) on the MPU6050, found 125"), "\(gyro.error)")
    }

    @Test("record writes a trace from it, gyroscope included, that replays to the same events as run")
    func record() throws {
        let out = NSTemporaryDirectory() + "lsm6dso-\(UUID()).csv"
        let r = joltBinary(["record", "--board", board(), "--seconds", "12", "--fast", "-o", out])
        #expect(r.code == 0, "\(r.error)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.contains("# source: jolt record, LSM6DSO (WHO_AM_I 0x6C) at 0x6B on the simulated bus") && text.contains("# range_g: 8"), "\(text.prefix(300))")
        let rows = text.split(separator: "\n").filter { $0.first?.isNumber == true }
        // The fewest readings that cover 12 s at 104 Hz (9615 µs each), not the rest of the last read.
        #expect(rows.count == 1249, "\(rows.count) rows for 12 s at 104 Hz")
        #expect(rows.first?.split(separator: ",").count == 7, "t, three accelerometer and three gyroscope axes")
        let replay = joltBinary(["replay", out])
        #expect(replay.code == 0 && replay.out.contains("shake began"), "\(replay)")
    }

    @Test("calibrate and watch on it")
    func calibrateAndWatch() throws {
        let out = NSTemporaryDirectory() + "cal-\(UUID()).json"
        let c = joltBinary(["calibrate", "--board", board(motion: "rest"), "-o", out, "--fast"])
        #expect(c.code == 0, "\(c.error)")
        #expect(try BoardProfile.load(path: out).chip == "lsm6dso")
        let w = joltBinary(["watch", "--board", board(), "--fast", "--seconds", "14"])
        #expect(w.code == 0, "\(w.error)")
        #expect(w.out.contains("shake began") && w.out.contains("face down"), "\(w.out.suffix(400))")
    }

    @Test("every chip of the registry has its simulated twin, joined by the plug-in's own facts")
    func twins() throws {
        for chip in ChipRegistry.all {
            let twin = try #require(SimulatedChips.twin(of: chip.name), "no twin for \(chip.name)")
            #expect(twin.chipInfo.part == chip.info.part && twin.chipInfo.id == chip.info.id)
        }
        #expect(SimulatedChips.all.count == ChipRegistry.all.count)
    }
}
