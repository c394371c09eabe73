import Foundation
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltCore
import JoltDrivers
import JoltLinux
import JoltMotion
import JoltSim
import JoltTrace
import JoltTestSupport
import Testing

/// A simulated board at 100 Hz with `faults` (entries of `sim.faults`), lying still unless a
/// trace is given.
func faultBoard(chip: String = "mpu6050", fifo: Bool = true, faults: String, motion: String = "rest", extra: String = "") -> String {
    tempFile("""
    {
      "name": "faults", "bus": "sim", "rate_hz": 100, "fifo": \(fifo), \(extra)
      "sim": { "chip": "\(chip)", "motion": "\(motion)", "loop": true, "faults": [\(faults)] }
    }
    """, name: "faults.json")
}

/// Runs a board in simulated time and returns its report and its JSON lines.
func runFast(_ path: String, seconds: Double, trace: String? = nil, outputs: [String: OutputLine] = [:]) throws -> (RunReport, [[String: Any]]) {
    let board = try BoardProfile.load(path: path)
    var o = RunCommand.Options(json: true, limitMicros: Int64(seconds * 1e6))
    o.control = false
    let play = Playback(fast: true, trace: trace)
    let out = TextOutput.capturing()
    let report = try RunCommand(board: board, playing: play, options: o, out: out, outputs: outputs).run()
    let lines = try out.text.split(separator: "\n").map { l in
        try #require(try JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any])
    }
    return (report, lines)
}

@Suite("Bus and chip faults, end to end on the simulated board")
struct FaultRunTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var kind: String, chip: String, fifo: Bool
        var testDescription: String { "\(kind) on the \(chip)\(fifo ? " with its FIFO" : " without a FIFO")" }
    }
    static let cases: [Case] = ["unplug", "io_error", "timeout", "reset", "frozen"].flatMap { k in
        [Case(kind: k, chip: "mpu6050", fifo: true), Case(kind: k, chip: "mpu6050", fifo: false),
         Case(kind: k, chip: "adxl345", fifo: true), Case(kind: k, chip: "adxl345", fifo: false)]
    }

    @Test("a fault lasting 3 s is detected within 1 s, reported once, recovered once, with the gap; no gesture invented", arguments: cases)
    func faultAndRecovery(c: Case) throws {
        let spec = c.kind == "reset" ? #"{"kind": "reset", "at_s": 10}"# : #"{"kind": "\#(c.kind)", "at_s": 10, "for_s": 3}"#
        let (run, lines) = try runFast(faultBoard(chip: c.chip, fifo: c.fifo, faults: spec), seconds: 30)
        let faults = lines.filter { $0["event"] as? String == "fault" }
        let recovered = lines.filter { $0["event"] as? String == "recovered" }
        #expect(faults.count == 1 && recovered.count == 1, "\(lines)")
        #expect(lines.count == 2, "only the fault and its recovery: \(lines)")
        #expect(run.chip.faultedAt - 10_000_000 <= 1_000_000, "detected \(Double(run.chip.faultedAt) / 1e6 - 10) s after it began")
        let gap = try #require(recovered.first?["gap_s"] as? Double)
        let t0 = try #require(faults.first?["t"] as? Double), t1 = try #require(recovered.first?["t"] as? Double)
        #expect(Swift.abs((t1 - t0) - gap) < 0.02, "the gap is the time between the last and the next data")
        if c.kind == "reset" {
            #expect(gap > 0.1 && gap < 2, "gap \(gap) s")
        } else if c.kind == "frozen" {
            // Frozen data looks like data until it has been the same for 0.6 s.
            #expect(gap > 2.1 && gap < 8.5, "gap \(gap) s for a 3 s freeze")
        } else {
            #expect(gap > 2.5 && gap < 8.5, "gap \(gap) s for a 3 s fault")
        }
        #expect(run.chip.phase == .running)
        #expect(run.streamMicros >= 29_000_000)
    }

    @Test("errors shorter than the retries are ridden out: no fault, no event; without a FIFO the skipped samples are counted", arguments: [true, false])
    func transient(fifo: Bool) throws {
        // 30 ms errors, one a second: the retries (after 5, 15 and 35 ms) outlast each.
        let spec = (0..<100).map { #"{"kind": "\#($0 % 2 == 0 ? "io_error" : "timeout")", "at_s": \#(1 + Double($0) * 1.01), "for_s": 0.03}"# }.joined(separator: ",")
        let (run, lines) = try runFast(faultBoard(fifo: fifo, faults: spec), seconds: 110)
        #expect(lines.isEmpty, "\(lines)")
        #expect(run.chip.faults == 0)
        if fifo {
            #expect(run.chip.transientErrors >= 10, "\(run.chip.transientErrors) errors")
            #expect(run.skipped == 0)
            #expect(run.samples >= 10_990, "the FIFO kept every sample: \(run.samples)")
        } else {
            #expect(run.chip.transientErrors >= 300, "\(run.chip.transientErrors) errors")
            #expect(run.skipped >= 200 && run.skipped <= 500, "\(run.skipped) samples skipped")
        }
    }

    @Test("a chip unplugged for 10 minutes: one fault, one recovery, re-probed at a slow pace, then it carries on by itself")
    func longUnplug() throws {
        let (run, lines) = try runFast(faultBoard(faults: #"{"kind": "unplug", "at_s": 5, "for_s": 600}"#, motion: "demo"), seconds: 660)
        let kinds = lines.map { $0["event"] as! String }
        #expect(kinds.filter { $0 == "fault" }.count == 1 && kinds.filter { $0 == "recovered" }.count == 1)
        // 100 ms doubling to 5 s: about 120 re-probes in 10 minutes, not one per poll.
        #expect(run.chip.attempts >= 110 && run.chip.attempts <= 130, "\(run.chip.attempts) re-probes")
        let gap = try #require(lines.first { $0["event"] as? String == "recovered" }?["gap_s"] as? Double)
        #expect(gap >= 600 && gap < 606)
        // The demo keeps playing after the recovery, and its shakes are detected.
        let recoveredAt = try #require(lines.first { $0["event"] as? String == "recovered" }?["t"] as? Double)
        let shakes = lines.filter { $0["event"] as? String == "shake" && $0["phase"] as? String == "began" && ($0["t"] as! Double) > recoveredAt }
        #expect(shakes.count >= 3, "\(shakes.count) shakes in the 55 s after recovery")
    }

    @Test("a FIFO overflow (the host stalled 2 s): reported as a fault with the samples lost, the FIFO reset, the gap given", arguments: ["mpu6050", "adxl345"])
    func overflow(chip: String) throws {
        let (run, lines) = try runFast(faultBoard(chip: chip, faults: #"{"kind": "stall", "at_s": 8, "for_s": 2}"#), seconds: 20)
        #expect(lines.count == 2, "\(lines)")
        let fault = try #require(lines.first)
        #expect((fault["detail"] as? String)?.contains("FIFO overflow") == true)
        let gap = try #require(lines.last?["gap_s"] as? Double)
        #expect(gap > 1.5 && gap < 2.5, "gap \(gap)")
        #expect(run.overflows == 1 && run.chip.faults == 0)
    }

    @Test("a stall without a FIFO is a break in the data, reported the same way")
    func stallWithoutFIFO() throws {
        let (_, lines) = try runFast(faultBoard(fifo: false, faults: #"{"kind": "stall", "at_s": 8, "for_s": 2}"#), seconds: 20)
        #expect(lines.map { $0["event"] as! String } == ["fault", "recovered"])
        let gap = try #require(lines.last?["gap_s"] as? Double)
        #expect(gap > 1.9 && gap < 2.1)
    }

    /// A kiosk trace: still for 6 s, then (while its sensor is unplugged, 5.5 to 10 s) shaken and,
    /// if `tilt`, left leaning by 30°; then still.
    func kioskTrace(tilt: Bool) -> String {
        var m = Motion(rate: 100, seed: 5)
        m.rest(6)
        m.shake(freq: 5, amp: 2.5, axis: V3(1, 0, 0), seconds: 1.5)
        if tilt { m.rotate(axis: V3(0, 1, 0), degrees: 30, seconds: 0.6) }
        m.rest(16)
        var text = TraceWriter.header(rateMilliHz: 100_000, gyro: true)
        for s in m.take() { text += TraceWriter.row(s, gyro: true) }
        return tempFile(text, name: "kiosk.csv")
    }

    @Test("sensor_lost_ms longer than the silence (the 4.5 s unplug, then the re-probes' back-off: 6.5 s): an armed alarm stays armed through a fault; a kiosk moved while its sensor was out triggers it on recovery", arguments: [false, true])
    func alarmThroughFault(tilt: Bool) throws {
        let (run, names, buzzer, lines) = try kioskThroughOutage(tilt: tilt, sensorLostMillis: 10_000)
        #expect(names.filter { $0 == "fault" }.count == 1 && names.filter { $0 == "recovered" }.count == 1, "\(lines)")
        #expect(!names.contains("shake"), "the shake happened while the sensor was out: \(names)")
        if tilt {
            #expect(names.contains("tamper") && names.contains("alarm.triggered"), "\(names)")
            #expect(run.alarm == .triggered)
            #expect(buzzer.changes.first?.1 == true)
        } else {
            #expect(names == ["alarm.arming", "alarm.armed", "fault", "recovered"], "\(names)")
            #expect(run.alarm == .armed)
            #expect(buzzer.changes.isEmpty)
        }
        #expect(buzzer.isReleased && !buzzer.isActive)
    }

    @Test("a cut sensor is an alarm: armed, 2 s without data triggers it with reason sensor, once; 0 turns that off", arguments: [false, true])
    func sensorLostTriggers(tilt: Bool) throws {
        let (run, names, buzzer, lines) = try kioskThroughOutage(tilt: tilt, sensorLostMillis: 2000)
        #expect(Array(names.prefix(5)) == ["alarm.arming", "alarm.armed", "fault", "alarm.triggered", "recovered"], "\(names)")
        #expect(names.filter { $0 == "alarm.triggered" }.count == 1, "one trigger for one loss: \(names)")
        let fault = try #require(lines.first { $0["event"] as? String == "fault" })
        let trig = try #require(lines.first { $0["state"] as? String == "triggered" })
        #expect(trig["cause"] as? String == "sensor" && trig["reason"] as? String == "sensor", "\(trig)")
        // Silent for sensor_lost_ms (checked to the loop's wake-up, not to the next re-probe),
        // counted from the last data, which the fault's time marks.
        let ms = try #require(trig["ms"] as? Int)
        #expect(ms >= 2000 && ms < 2010, "silent for \(ms) ms")
        let t = try #require(trig["t"] as? Double), faultT = try #require(fault["t"] as? Double)
        #expect(Swift.abs(t - faultT - Double(ms) / 1000) < 0.011, "triggered at \(t) s, the fault at \(faultT) s: \(lines)")
        #expect(run.alarm == .triggered && run.lastTrigger?.text == "sensor silent for \(ms) ms")
        #expect(buzzer.changes.first?.1 == true)
        #expect(buzzer.isReleased && !buzzer.isActive)

        let (offRun, offNames, offBuzzer, _) = try kioskThroughOutage(tilt: false, sensorLostMillis: 0)
        #expect(offNames == ["alarm.arming", "alarm.armed", "fault", "recovered"], "\(offNames)")
        #expect(offRun.alarm == .armed && offBuzzer.changes.isEmpty)
    }

    /// The kiosk board armed, its sensor unplugged from 5.5 to 10 s (`kioskTrace`), run for 20 s
    /// of simulated time with `alarm.sensor_lost_ms` set.
    func kioskThroughOutage(tilt: Bool, sensorLostMillis: Int) throws -> (RunReport, [String], SimOutput, [[String: Any]]) {
        let sock = socketPath()
        let board = try kioskBoard(socket: sock, extra: #""sim": { "chip": "mpu6050", "motion": "rest", "faults": [{"kind": "unplug", "at_s": 5.5, "for_s": 4.5}] },"#)
        let text = try String(contentsOfFile: board, encoding: .utf8)
            .edited(#""sim": { "chip": "mpu6050", "motion": "lift", "at_end": "rest" },"#, "")
            .edited(#""sensor_lost_ms": 2000"#, "\"sensor_lost_ms\": \(sensorLostMillis)")
        let path = tempFile(text, name: "kiosk-faults.json")
        let buzzer = SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))
        let (run, lines) = try runFast(path, seconds: 20, trace: kioskTrace(tilt: tilt), outputs: ["buzzer": buzzer])
        let names = lines.map { "\($0["event"]!)\($0["state"].map { ".\($0)" } ?? "")" }
        return (run, names, buzzer, lines)
    }

    @Test("a triggered alarm keeps sounding its cadence through a fault, in real time")
    func buzzerThroughFault() throws {
        let sock = socketPath()
        let board = try kioskBoard(socket: sock, extra: #""sim": { "chip": "mpu6050", "motion": "lift", "at_end": "rest", "faults": [{"kind": "unplug", "at_s": 5, "for_s": 2}] },"#)
        let text = try String(contentsOfFile: board, encoding: .utf8).edited(#""sim": { "chip": "mpu6050", "motion": "lift", "at_end": "rest" },"#, "")
        let b = try BoardProfile.load(path: tempFile(text, name: "kiosk-faults.json"))
        let buzzer = SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))
        var o = RunCommand.Options(json: true)
        let play = Playback(trace: liftTrace())   // triggers about 2.5 s in
        o.limitMicros = 8_500_000
        o.control = false
        let out = TextOutput.capturing()
        let cmd = try RunCommand(board: b, playing: play, options: o, out: out, outputs: ["buzzer": buzzer])
        let start = Sys.monotonicMicros()
        try cmd.run()
        let events = jsonLines(out.text)
        #expect(events.contains { isEvent($0, "alarm", "triggered") } && events.contains { isEvent($0, "fault") } && events.contains { isEvent($0, "recovered") },
                "\(out.text)")
        #expect(!events.contains { isEvent($0, "alarm", "disarmed") })
        // Edges every 500 ms from the trigger to the end, the fault (5 to 7 s) included.
        let edges = buzzer.changes.map { Double($0.0 - start) / 1e6 }
        let during = edges.filter { $0 > 5.1 && $0 < 7.0 }
        #expect(during.count >= 3, "buzzer edges during the fault: \(during)")
        // Real time on a shared 2-core machine: ±150 ms around the cadence; a buzzer stalled by
        // the fault would miss it by the fault's 2 s.
        for (a, b) in zip(edges, edges.dropFirst()).dropLast() {
            #expect(Swift.abs(b - a - 0.5) < 0.15, "an edge \(b - a) s after the last")
        }
        #expect(buzzer.isReleased && !buzzer.isActive)
    }

    @Test("a played motion that ends between two slow drains (fifo_poll_ms 1000) ends the run with its last samples and no false fault", arguments: [200, 1000])
    func slowDrainEnd(pollMillis: Int) throws {
        let board = tempFile("""
            { "name": "slow drain", "bus": "sim", "chip": "mpu6050", "rate_hz": 100, "fifo": true, "fifo_poll_ms": \(pollMillis),
              "sim": { "chip": "mpu6050", "motion": "flip" } }
            """, name: "slow.json")
        let (run, lines) = try runFast(board, seconds: 600)
        let names = lines.map { $0["event"] as? String ?? "?" }
        #expect(!names.contains("fault"), "\(lines)")
        #expect(names.contains("flip"), "the motion played: \(names)")
        // It ran to the motion's end, not to the time limit, and drained the FIFO's last samples.
        #expect(run.streamMicros < 60_000_000 && run.motionEnded)
        #expect(run.chip.faults == 0)
    }

    @Test("sim.faults in a board file: bad entries are refused with the field's path")
    func badFaultConfig() {
        let cases: [(String, String)] = [
            (#"{"kind": "melt", "at_s": 1, "for_s": 1}"#, "sim.faults[0].kind"),
            (#"{"kind": "unplug", "for_s": 1}"#, "sim.faults[0].at_s: missing"),
            (#"{"kind": "unplug", "at_s": 1}"#, "sim.faults[0].for_s: missing"),
            (#"{"kind": "unplug", "at_s": -1, "for_s": 1}"#, "sim.faults[0].at_s"),
            (#"{"kind": "reset", "at_s": 1, "colour": 1}"#, "sim.faults[0].colour: unknown key"),
            (#"7"#, "sim.faults[0]: must be an object"),
        ]
        for (spec, message) in cases {
            let r = jolt(["run", "--board", faultBoard(faults: spec), "--fast", "--seconds", "1"])
            #expect(r.code == .config && r.error.contains(message), "\(spec): \(r.error)")
        }
    }
}

@Suite("jolt soak")
struct SoakTests {
    @Test("half a simulated hour with faults: every gesture found, every fault reported once and recovered, nothing else")
    func halfHour() throws {
        var o = SoakCommand.Options()
        o.hours = 0.5
        o.seed = 11
        o.progress = false
        let soak = SoakCommand(options: o)
        let r = try soak.run(out: TextOutput.capturing())
        #expect(r.shakes >= 15 && r.flips >= 5 && r.faultsInjected >= 8, "a plan with something in it: \(r.shakes) shakes, \(r.flips) flips, \(r.faultsInjected) faults")
        #expect(r.shakesFound == r.shakes && r.facesDown == r.flips && r.facesUp == r.flips)
        #expect(r.unexpected.isEmpty, "\(r.unexpected)")
        #expect(r.faultProblems.isEmpty, "\(r.faultProblems)")
        #expect(r.faultsReported == r.faultsInjected && r.faultsRecovered == r.faultsInjected)
        // Memory is judged by the soak in a process of its own (scripts/test runs jolt soak):
        // here other tests share the process and move its resident size.
        #expect(r.rssStart > 0 && r.rssEnd > 0)
        let out = TextOutput.capturing()
        soak.print(r, out: out)
        #expect(out.text.contains("shakes            \(r.shakes) of \(r.shakes) detected"))
    }

    @Test("progress on standard error whatever it is (a pipe here): a line each tenth of a short run, none with --quiet")
    func progressToAPipe() {
        let r = joltBinary(["soak", "--hours", "0.2", "--seed", "3"])
        let lines = r.error.split(separator: "\n").filter { $0.hasPrefix("jolt: soak: ") }
        #expect(r.code == 0 && lines.count >= 9 && lines.count <= 10, "\(r)")
        #expect(lines.first?.hasPrefix("jolt: soak: 0.02 of 0.2 h, ") == true && lines.first?.contains(" MiB") == true, "\(lines)")
        let quiet = joltBinary(["soak", "--hours", "0.2", "--seed", "3", "--quiet"])
        #expect(quiet.code == 0 && !quiet.error.contains("jolt: soak: ") && quiet.out.contains("verdict           PASS"), "\(quiet)")
    }

    @Test("the soak's check fails a run that missed a gesture, repeated a fault report, or raised a stray shake")
    func checkCanFail() {
        let soak = SoakCommand(options: SoakCommand.Options())
        var plan = SoakCommand.Plan()
        plan.gestures = [SoakCommand.Gesture(kind: .shake, from: 100, to: 250), SoakCommand.Gesture(kind: .shake, from: 5000, to: 5150)]
        plan.faults = [SoakCommand.PlannedFault(fault: SimFaultSpec(.noAcknowledge, from: 20_000_000, to: 30_000_000), name: "unplug", transient: false),
                       SoakCommand.PlannedFault(fault: SimFaultSpec(.ioError, from: 60_000_000, to: 60_010_000), name: "bus error (ms)", transient: true)]
        // Sample i is at (i + 1) × 10 ms: the first shake is 1.01-2.51 s, the second 50.01-51.51 s.
        let events: [(EventRecord.Kind, Int64)] = [
            (.shake(.began), 1_500_000),
            (.fault, 20_040_000), (.fault, 25_000_000), (.recovered, 31_000_000),
            (.shake(.began), 40_000_000),
            (.recovered, 60_100_000),
        ]
        var r = SoakCommand.Report()
        soak.check(&plan, events: events, sourceStart: 0, into: &r)
        #expect(r.shakes == 2 && r.shakesFound == 1)
        #expect(r.unexpected.count == 1 && r.unexpected[0].hasPrefix("shake.began at 40.0 s"), "\(r.unexpected)")
        #expect(r.faultProblems.count == 2, "\(r.faultProblems)")
        #expect(r.faultProblems.contains { $0.contains("2 fault and 1 recovered") })
        #expect(r.faultProblems.contains { $0.contains("bus error at 60.0 s was reported") || $0.contains("was reported") })
        #expect(!r.passed)
    }
}
