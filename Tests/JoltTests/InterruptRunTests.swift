import Foundation
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltChips
import JoltCore
import JoltEngine
import JoltTestSupport
import Testing

/// `int` on the simulated board: the loop sleeps until the twin raises its INT pin. All on
/// simulated time (`--fast`), so the figures are exact and the wall clock plays no part.
@Suite("The chip's INT pin, end to end on the simulated board")
struct InterruptRunTests {
    /// The kiosk board on `chip`, its motion `motion`, with INT wired (or polled), the self-test off.
    func board(chip: String, motion: String, wired: Bool) throws -> BoardProfile {
        var b = try BoardProfile.load(path: packageRoot + "/boards/kiosk-alarm.json")
        let info = try #require(ChipRegistry.named(chip)).info
        b.chip = chip
        b.address = info.addresses[0]
        b.sim.chip = chip
        b.sim.motion = motion
        b.rateMilliHz = info.rates.nearest(to: 100_000)
        b.gyroRangeDps = info.gyroRangesDps.first ?? b.gyroRangeDps
        b.alarm?.selfTest = "off"
        b.interrupt = wired ? InterruptLine(line: LineSpec(name: "GPIO4")) : nil
        return b
    }

    struct Outcome {
        var samples = 0, wakeups = 0, overflows = 0, gaps = 0
        var seconds = 0.0
        var interrupts = InterruptCounts()
        /// The trigger's sample time, and how long after the chip made it the loop had it, µs.
        var triggerAt: Int64?
        var triggerAge: Int64?
    }

    func run(_ b: BoardProfile, seconds: Int64) throws -> Outcome {
        var options = RunCommand.Options(json: true, limitMicros: seconds * 1_000_000)
        options.control = false
        var o = Outcome()
        let sim = try SimBoard.open(b, fast: true)
        let hooks = Hooks(event: { r, now in
            if r.kind == .recovered { o.gaps += 1 }
            guard case .alarm(let change) = r.kind, change.to == .triggered, o.triggerAt == nil, let start = sim.world.sourceStart else { return }
            // Stream sample i (time i × period) is source sample i, made at start + (i + 1) × period.
            let period = sim.sensor.periodMicros
            o.triggerAt = r.t
            o.triggerAge = now - (start + (r.t / period + 1) * period)
        })
        let run = try RunCommand(board: b, hardware: sim, options: options, out: TextOutput.capturing(),
                                 outputs: ["buzzer": SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))], watcher: hooks).run()
        o.samples = run.samples
        o.wakeups = run.wakeups
        o.overflows = run.overflows
        o.seconds = Double(run.streamMicros) / 1e6
        o.interrupts = run.interrupts ?? InterruptCounts()
        return o
    }

    @Test("at rest: the MPU6050 woken under twice a second (its FIFO three quarters full), the ADXL345 and LIS3DH at their watermarks, the LSM6DSO once a second; every sample kept", arguments: [
        ("mpu6050", 2.0), ("adxl345", 4.5), ("lis3dh", 4.5), ("lsm6dso", 1.1),
    ])
    func rest(chip: String, most: Double) throws {
        let wired = try run(try board(chip: chip, motion: "rest", wired: true), seconds: 20)
        let polled = try run(try board(chip: chip, motion: "rest", wired: false), seconds: 20)
        let w = Double(wired.wakeups) / wired.seconds, p = Double(polled.wakeups) / polled.seconds
        print("INT \(chip) at rest: \(String(format: "%.2f", w)) wake-ups/s with INT, \(String(format: "%.2f", p)) polled; \(wired.interrupts)")
        #expect(w <= most && p >= 9.5, "\(w) wake-ups/s with INT, \(p) polled")
        #expect(wired.overflows == 0 && wired.gaps == 0)
        let rate = Double(try board(chip: chip, motion: "rest", wired: true).rateMilliHz) / 1000
        #expect(abs(Double(wired.samples) - wired.seconds * rate) <= 1.5, "\(wired.samples) samples in \(wired.seconds) s")
        if chip != "mpu6050" {
            #expect(Double(wired.interrupts.watermark) >= Double(wired.wakeups) * 0.9, "\(wired.interrupts), \(wired.wakeups) wake-ups")
        }
    }

    @Test("a lift: the same trigger as polled, and the loop has the sample within 20 ms of the chip making it (polled: up to the drain interval)", arguments: ["mpu6050", "adxl345", "lis3dh", "lsm6dso"])
    func lift(chip: String) throws {
        let wired = try run(try board(chip: chip, motion: "lift", wired: true), seconds: 16)
        let polled = try run(try board(chip: chip, motion: "lift", wired: false), seconds: 16)
        let at = try #require(wired.triggerAt), age = try #require(wired.triggerAge), polledAge = try #require(polled.triggerAge)
        print("INT \(chip) lift: triggered at \(at) µs; the sample \(age) µs old with INT, \(polledAge) µs polled; \(wired.interrupts)")
        #expect(at == polled.triggerAt)
        #expect(wired.interrupts.motion >= 1)
        #expect(age >= 0 && age <= 20_000, "\(age) µs")
        #expect(polledAge >= 0 && polledAge <= 100_000, "\(polledAge) µs")
    }

    @Test("the start's log line says what wakes the loop", arguments: [
        ("mpu6050", true, "woken by the chip's INT pin (int (simulated GPIO4)) on motion, FIFO drained at least every 637 ms"),
        ("adxl345", true, "woken by the chip's INT pin (int (simulated GPIO4)) on its FIFO's watermark (24 readings) or motion, FIFO drained at least every 280 ms"),
        ("adxl345", false, "read when the chip's INT pin (int (simulated GPIO4)) says a reading is ready, or on motion"),
    ])
    func startLine(chip: String, fifo: Bool, line: String) throws {
        let info = try #require(ChipRegistry.named(chip)).info
        var text = BoardProfile.builtInSimText.edited("\"chip\": \"mpu6050\"", "\"chip\": \"\(chip)\"")
            .edited("\"address\": \"0x68\"", "\"address\": \"0x\(String(info.addresses[0], radix: 16))\"")
            .edited("\"fifo\": true,", "\"fifo\": \(fifo), \"int\": { \"line\": \"GPIO4\" },")
        if !info.hasGyro { text = text.edited("\"gyro_range_dps\": 2000,", "") }
        let r = joltBinary(["run", "--board", tempFile(text, name: "int-\(chip)-\(fifo).json"), "--fast", "--seconds", "1"])
        #expect(r.code == 0, "\(r.error)")
        #expect(r.error.contains(line), "\(r.error)")
    }

    @Test("a reload that wires or unwires INT is refused: only a restart applies it")
    func reload() throws {
        let polled = try board(chip: "mpu6050", motion: "rest", wired: false), wired = try board(chip: "mpu6050", motion: "rest", wired: true)
        #expect(polled.onlyRestartChanges(to: wired) == ["int"])
        #expect(wired.onlyRestartChanges(to: wired) == [])
    }
}
