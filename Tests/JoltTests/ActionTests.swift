import CGPIO
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
import JoltLinux
import JoltTestSupport
import Testing

/// An expectation-list output line: the exact levels it is driven to, in order; `release` must
/// come last.
final class MockLine: OutputLine, @unchecked Sendable {
    let label = "mock"
    var expected: [Bool?]   // nil: release
    var failing = false
    let location: SourceLocation

    init(_ expected: [Bool?], sourceLocation: SourceLocation = #_sourceLocation) {
        self.expected = expected
        location = sourceLocation
    }

    func set(_ active: Bool) throws(JoltError) {
        if failing { throw JoltError(.ioError, "mock line stuck") }
        guard !expected.isEmpty else {
            Issue.record("unexpected set(\(active))", sourceLocation: location)
            return
        }
        let e = expected.removeFirst()
        if e != active { Issue.record("expected \(e.map { "set(\($0))" } ?? "release"), got set(\(active))", sourceLocation: location) }
    }

    func release() {
        guard !expected.isEmpty else {
            Issue.record("unexpected release", sourceLocation: location)
            return
        }
        let e = expected.removeFirst()
        if e != nil { Issue.record("expected set(\(e!)), got release", sourceLocation: location) }
    }

    func done(sourceLocation: SourceLocation = #_sourceLocation) {
        if !expected.isEmpty { Issue.record("still expected: \(expected)", sourceLocation: sourceLocation) }
    }
}

/// Collects log lines.
final class LogCollector: @unchecked Sendable {
    let lock = Lock()
    var lines: [String] = []
    var logger: Logger {
        Logger(info: { l in self.lock.with { self.lines.append("info: " + l) } },
               warning: { l in self.lock.with { self.lines.append("warning: " + l) } },
               error: { l in self.lock.with { self.lines.append("error: " + l) } })
    }
    var all: [String] { lock.with { lines } }
}

@Suite("Actions and the alarm's outputs")
struct ActionTests {
    let shake = EventRecord(t: 1_000_000, kind: .shake(.began), algorithm: "jolt", peakMilliG: 2100)

    @Test("patterns: a pulse and a cadence, edge by edge")
    func patterns() {
        let p = PatternPlayer(pattern: .pulse(ms: 200), start: 1_000)
        #expect(p.level(at: 1_000) == true)
        #expect(p.level(at: 200_999) == true)
        #expect(p.level(at: 201_000) == nil)
        #expect(p.nextEdge(after: 5_000) == 201_000)
        let c = PatternPlayer(pattern: .cadence(on: 500, off: 250), start: 0)
        #expect(c.level(at: 0) == true && c.level(at: 499_999) == true && c.level(at: 500_000) == false)
        #expect(c.level(at: 749_999) == false && c.level(at: 750_000) == true)
        #expect(c.nextEdge(after: 0) == 500_000)
        #expect(c.nextEdge(after: 600_000) == 750_000)
        #expect(c.nextEdge(after: 750_000) == 1_250_000)
    }

    @Test("five beeps played by a process that wakes 300 ms late every time are five beeps, each phase its full 200 ms, not merged")
    func beepsSurviveLateWakeUps() throws {
        // The clock a late process sees: every wait overruns by 300 ms, more than a beep's gap.
        var clock: Int64 = 0
        var sets: [(t: Int64, active: Bool)] = []
        let player = PatternPlayer(pattern: .beeps(on: 200, off: 200, count: 5), start: 0)
        try player.play(set: { sets.append((clock, $0)) }, wait: { micros in
            clock += (micros ?? 0) + 300_000
            return true
        })
        #expect(sets.filter(\.active).count == 5, "\(sets)")
        #expect(sets.map(\.active) == [true, false, true, false, true, false, true, false, true], "\(sets)")
        for (a, b) in zip(sets, sets.dropFirst()) { #expect(b.t - a.t >= 200_000, "a phase of \(b.t - a.t) µs") }
        // A signal during the second beep ends it there.
        var waits = 0
        sets = []
        try player.play(set: { sets.append((0, $0)) }, wait: { _ in waits += 1; return waits < 3 })
        #expect(sets.map(\.active) == [true, false, true])
        // Steady: on until a signal, however often the wait ends without one.
        waits = 0
        sets = []
        try PatternPlayer(pattern: .steady, start: 5).play(set: { sets.append((0, $0)) }, wait: { micros in
            #expect(micros == nil)
            waits += 1
            return waits < 4
        })
        #expect(sets.map(\.active) == [true] && waits == 4)
    }

    @Test("two chirps on an action thread woken 300 ms late every time are two chirps, each phase its full length from when it was set")
    func chirpsSurviveALateThread() {
        let buzzer = SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))
        let e = ActionEngine(outputs: ["buzzer": buzzer], alarmOutput: "buzzer", alarmPattern: .cadence(on: 500, off: 500), printer: nil, boardName: "t")
        var now: Int64 = 0
        var sets: [(t: Int64, active: Bool)] = []
        var last = false
        func record() {
            if buzzer.isActive != last { sets.append((now, buzzer.isActive)); last = buzzer.isActive }
        }
        e.handle(.manual(output: "buzzer", Chirp.twice), now: now)
        record()
        // The thread wakes at each deadline the engine asks for, 300 ms late: more than a chirp
        // (80 ms) and its gap (120 ms) together.
        while let next = e.nextDeadline(now: now), sets.count < 10 {
            now = max(next, now) + 300_000
            e.tick(now: now)
            record()
        }
        #expect(sets.map(\.active) == [true, false, true, false], "\(sets)")
        #expect(e.nextDeadline(now: now) == nil, "the pattern is over")
        for (a, b) in zip(sets, sets.dropFirst()) { #expect(b.t - a.t >= 80_000, "a phase of \(b.t - a.t) µs") }
        // On time, the same two chirps at the pattern's own edges.
        now = 10_000_000
        sets = []
        e.handle(.manual(output: "buzzer", Chirp.twice), now: now)
        record()
        while let next = e.nextDeadline(now: now) {
            now = next
            e.tick(now: now)
            record()
        }
        #expect(sets.map { $0.t - 10_000_000 } == [0, 80_000, 200_000, 280_000], "\(sets)")
    }

    @Test("a pulse drives the line active, then inactive when it ends; shutdown sets it inactive again and releases it")
    func pulse() {
        let line = MockLine([true, false, false, nil])
        let e = ActionEngine(outputs: ["led": line], alarmOutput: nil, alarmPattern: .cadence(on: 500, off: 500), printer: nil, boardName: "t")
        e.handle(.event(shake, [.output("led", .pulse(ms: 200))]), now: 0)
        #expect(e.nextDeadline(now: 0) == 200_000)
        e.tick(now: 199_999)
        e.tick(now: 200_000)
        #expect(e.nextDeadline(now: 200_000) == nil)
        e.shutdown()
        line.done()
    }

    @Test("the alarm's cadence repeats until it stops sounding; it wins over an event's pattern on the same line")
    func cadence() {
        let line = MockLine([true, false, true, false, true, false, false, nil])
        let e = ActionEngine(outputs: ["buzzer": line], alarmOutput: "buzzer", alarmPattern: .cadence(on: 500, off: 500), printer: nil, boardName: "t")
        e.handle(.alarm(sounding: true), now: 0)                 // on
        e.tick(now: 500_000)                                       // off
        e.handle(.event(shake, [.output("buzzer", .pulse(ms: 5000))]), now: 600_000)   // the alarm still rules: off
        e.tick(now: 1_000_000)                                     // on
        e.tick(now: 1_500_000)                                     // off
        e.tick(now: 2_000_000)                                     // on
        e.handle(.alarm(sounding: false), now: 2_100_000)          // the event's pulse is still on: stays on
        e.tick(now: 5_600_000)                                     // the pulse ends: off
        e.shutdown()
        line.done()
    }

    @Test("fail-safe: shutdown while sounding sets the line inactive before releasing it")
    func failSafe() {
        let line = MockLine([true, false, nil])
        let e = ActionEngine(outputs: ["buzzer": line], alarmOutput: "buzzer", alarmPattern: .cadence(on: 500, off: 500), printer: nil, boardName: "t")
        e.handle(.alarm(sounding: true), now: 0)
        e.shutdown()
        line.done()
    }

    @Test("a stuck line is reported once and retried; the engine carries on")
    func stuck() {
        let line = MockLine([false, nil])
        line.failing = true
        let log = LogCollector()
        let e = ActionEngine(outputs: ["buzzer": line], alarmOutput: "buzzer", alarmPattern: .cadence(on: 500, off: 500), printer: nil, boardName: "t", log: log.logger)
        e.handle(.alarm(sounding: true), now: 0)
        e.tick(now: 100_000)
        e.tick(now: 200_000)
        #expect(log.all.filter { $0.contains("stuck") }.count == 1)
        #expect(e.nextDeadline(now: 200_000) != nil)
        line.failing = false
        e.handle(.alarm(sounding: false), now: 300_000)
        e.shutdown()
        line.done()
    }

    @Test("a command runs with the event in its environment, only standard input, output and error open, its output logged; a slow one is stopped at its timeout")
    func command() throws {
        // A descriptor this process holds open without close-on-exec: the command must not get it.
        let held = Pipe()
        let heldFDs = [held.fileHandleForReading.fileDescriptor, held.fileHandleForWriting.fileDescriptor]
        #expect(heldFDs.allSatisfy { fcntl($0, F_GETFD) & FD_CLOEXEC == 0 })
        let log = LogCollector()
        let e = ActionEngine(outputs: [:], alarmOutput: nil, alarmPattern: .cadence(on: 1, off: 1), printer: nil, boardName: "kiosk", boardFile: "/etc/jolt/jolt.json", log: log.logger)
        e.handle(.event(shake, [.command(argv: ["env"], timeoutMillis: 5000)]), now: 0)
        e.handle(.event(shake, [.command(argv: ["sleep", "30"], timeoutMillis: 200)]), now: 0)
        e.handle(.event(shake, [.command(argv: ["sh", "-c", "ls /proc/$$/fd"], timeoutMillis: 5000)]), now: 0)
        e.handle(.event(EventRecord(t: 2_000_000, kind: .flip(.faceDown)), [.command(argv: ["env"], timeoutMillis: 5000)]), now: 0)
        let start = Date()
        while e.pollFDs.count > 0 && Date().timeIntervalSince(start) < 5 {
            sleepFor(0.02)
            e.tick(now: Int64(Date().timeIntervalSince(start) * 1e6))
        }
        #expect(e.pollFDs.isEmpty, "both commands finished")
        let lines = log.all
        #expect(lines.contains("info: command env: JOLT_EVENT=shake.began"))
        // $JOLT_BOARD is the profile's file, as every jolt command reads it; the name has its own.
        #expect(lines.contains("info: command env: JOLT_BOARD=/etc/jolt/jolt.json"))
        #expect(lines.contains("info: command env: JOLT_BOARD_NAME=kiosk"))
        #expect(lines.contains("info: command env: JOLT_PEAK_G=2.10"))
        // The variant under its JSON key, from the kind's declaration.
        #expect(lines.contains("info: command env: JOLT_PHASE=began"))
        #expect(lines.contains("info: command env: JOLT_STATE=face_down"))
        #expect(lines.contains { $0.contains("JOLT_JSON={\"t\":1.0,\"event\":\"shake\",\"phase\":\"began\"") })
        #expect(lines.contains("warning: command sleep took longer than its timeout: stopping it"))
        let open = lines.filter { $0.hasPrefix("info: command sh: ") }.map { $0.dropFirst("info: command sh: ".count) }
        #expect(open == ["0", "1", "2"], "the command's open descriptors: \(open)")
        #expect(Date().timeIntervalSince(start) < 3)
        e.handle(.event(shake, [.command(argv: ["/nonexistent/program"], timeoutMillis: 100)]), now: 0)
        let missing = Date()
        while e.pollFDs.count > 0 && Date().timeIntervalSince(missing) < 5 {
            sleepFor(0.02)
            e.tick(now: Int64(Date().timeIntervalSince(start) * 1e6))
        }
        #expect(log.all.contains { $0.contains("/nonexistent/program") && ($0.contains("could not start") || $0.contains("exited with status 127")) }, "\(log.all)")
        e.shutdown()
    }

    @Test("the action thread: submit never waits for it (a full queue drops and counts), and stop runs the fail-safe")
    func worker() throws {
        // Nothing consumes this worker's queue: every submit still returns, the one past the
        // queue's size is dropped and counted, and no job ran.
        let idle = SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))
        let stalled = try ActionWorker(engine: ActionEngine(outputs: ["buzzer": idle], alarmOutput: "buzzer", alarmPattern: .steady, printer: nil, boardName: "t", log: LogCollector().logger))
        for _ in 0...ActionWorker.maxQueue { stalled.submit(.alarm(sounding: true)) }
        #expect(stalled.lock.with { (stalled.queue.count, stalled.dropped) } == (ActionWorker.maxQueue, 1))
        #expect(idle.changes.isEmpty, "no job ran without the thread")

        let line = SimOutput(name: "buzzer", spec: LineSpec(name: "GPIO17"))
        let e = ActionEngine(outputs: ["buzzer": line], alarmOutput: "buzzer", alarmPattern: .cadence(on: 30, off: 30), printer: nil, boardName: "t", log: LogCollector().logger)
        let w = try ActionWorker(engine: e)
        w.start()
        let t0 = Sys.monotonicMicros()
        w.submit(.alarm(sounding: true))
        sleepFor(0.2)
        w.stop()
        let h = line.changes
        #expect(h.count >= 5, "the cadence ran: \(h.count) changes")
        // A thread woken on a shared 2-core machine: the bound is loose; jolt-bench and the
        // slow-disk test measure the latency itself.
        #expect(h.first?.1 == true && (h.first!.0 - t0) < 100_000, "active within 100 ms of the request: \(h.first.map { $0.0 - t0 } ?? -1) µs")
        #expect(!line.isActive && line.isReleased, "inactive and released after stop")
    }
}

func sleepFor(_ s: Double) { usleep(UInt32(s * 1e6)) }

extension String {
    /// A fixture edited: every `old` replaced by `new`, and an issue recorded where `old` is not
    /// there (a fixture whose spacing changed would otherwise be tested unedited).
    func edited(_ old: String, _ new: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        if !contains(old) { Issue.record("the fixture has no \(old)", sourceLocation: sourceLocation) }
        return replacingOccurrences(of: old, with: new)
    }
}

/// Waits until `condition` holds, looking every 10 ms, for at most `seconds`: a test waits for
/// what it needs to see, not for a time it guessed.
func eventually(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > end { return false }
        sleepFor(0.01)
    }
    return true
}
