import JoltDrivers
import JoltEngine
import Testing

@Suite("The chip supervisor: retries, faults, re-probes")
struct SupervisorTests {
    let frame = ChipSample(ax: 10, ay: -20, az: 1000)
    func frames(_ n: Int, from k: Int32 = 0) -> ArraySlice<ChipSample> {
        (0..<Int32(n)).map { ChipSample(ax: k + $0, ay: 0, az: 1000) }[...]
    }

    @Test("transient errors are retried three times with a doubling delay, then fault once")
    func retries() {
        var s = ChipSupervisor(periodMicros: 10_000, now: 0)
        #expect(s.pollFailed(transient: true, reason: "x", now: 100) == .retry(at: 5_100))
        #expect(s.pollFailed(transient: true, reason: "x", now: 5_100) == .retry(at: 15_100))
        #expect(s.pollFailed(transient: true, reason: "x", now: 15_100) == .retry(at: 35_100))
        #expect(s.pollFailed(transient: true, reason: "gone", now: 35_100) == .fault("gone"))
        #expect(s.phase == .faulted && s.faults == 1)
        // Further failures while faulted say nothing more.
        #expect(s.pollFailed(transient: true, reason: "gone", now: 40_000) == .wait)
        #expect(s.faults == 1)
    }

    @Test("a success between errors starts the count again; a permanent error faults at once")
    func countResets() {
        var s = ChipSupervisor(periodMicros: 10_000, now: 0)
        for i in 0..<10 {
            let t = Int64(i) * 20_000
            #expect(s.pollFailed(transient: true, reason: "x", now: t) == .retry(at: t + 5_000))
            #expect(s.polled(frames(1, from: Int32(i)), now: t + 5_000) == .ok)
        }
        #expect(s.faults == 0 && s.transientErrors == 10)
        #expect(s.pollFailed(transient: false, reason: "EBUSY", now: 300_000) == .fault("EBUSY"))
    }

    @Test("re-probes back off from 100 ms to at most 5 s")
    func backoff() {
        var s = ChipSupervisor(periodMicros: 10_000, now: 0)
        _ = s.pollFailed(transient: false, reason: "x", now: 0)
        var delays: [Int64] = []
        var now: Int64 = 0
        for _ in 0..<10 {
            #expect(!s.attemptDue(now: s.nextAttemptAt - 1))
            delays.append(s.nextAttemptAt - now)
            now = s.nextAttemptAt
            #expect(s.attemptDue(now: now))
            s.attempted(ok: false, now: now)
        }
        #expect(delays == [100_000, 200_000, 400_000, 800_000, 1_600_000, 3_200_000, 5_000_000, 5_000_000, 5_000_000, 5_000_000])
        #expect(s.attempts == 10 && s.faults == 1)
    }

    @Test("no frames for 0.6 s is a fault; so are 0.6 s of identical frames")
    func silenceAndStuck() {
        var s = ChipSupervisor(periodMicros: 10_000, now: 0)
        #expect(s.polled(frames(20), now: 200_000) == .ok)
        #expect(s.polled([], now: 400_000) == .ok)
        #expect(s.polled([], now: 800_000) == .ok)
        guard case .fault(let why) = s.polled([], now: 800_001) else { Issue.record("no fault"); return }
        #expect(why.contains("no data"))

        var t = ChipSupervisor(periodMicros: 10_000, now: 0)
        #expect(t.polled(frames(20), now: 200_000) == .ok)
        let same = Array(repeating: frame, count: 20)[...]
        #expect(t.polled(same, now: 400_000) == .ok)
        #expect(t.polled(same, now: 600_000) == .ok)
        guard case .fault(let stuck) = t.polled(same, now: 800_000) else { Issue.record("no fault"); return }
        #expect(stuck.contains("stopped changing"))
        // An overflow is the chip measuring: no silence fault.
        var u = ChipSupervisor(periodMicros: 10_000, now: 0)
        #expect(u.polled([], overflowed: true, now: 700_000) == .ok)
    }

    @Test("after a re-probe, only data that changes counts as recovered; frozen data goes back to backing off")
    func verifying() {
        var s = ChipSupervisor(periodMicros: 10_000, now: 0)
        let same = Array(repeating: frame, count: 60)[...]
        _ = s.polled(same, now: 600_000)
        #expect(s.phase == .faulted)
        s.attempted(ok: true, now: 700_000)
        #expect(s.phase == .verifying)
        #expect(s.polled(Array(repeating: frame, count: 20)[...], now: 900_000) == .wait)
        #expect(s.polled(Array(repeating: frame, count: 40)[...], now: 1_300_001) == .wait)
        #expect(s.phase == .faulted && s.nextAttemptAt == 1_300_001 + 200_000)
        s.attempted(ok: true, now: 1_500_001)
        #expect(s.polled(frames(3, from: 7), now: 1_600_000) == .recovered)
        #expect(s.phase == .running && s.faults == 1)
    }

    /// 25 Hz frames from a chip with coarse digits at rest: runs of `run` identical readings,
    /// each ended by a one-digit flicker of z (12 mg, a LIS3DH at ±16 g).
    func flicker(_ runs: Int, run: Int) -> [ChipSample] {
        (0..<runs).flatMap { i in Array(repeating: ChipSample(ax: 0, ay: 0, az: i % 2 == 0 ? 996 : 1008), count: run) }
    }

    @Test("a chip that repeats itself at rest gets a longer stuck-data window, learned from its flicker; a fine chip keeps 0.6 s")
    func coarseDigits() {
        var s = ChipSupervisor(periodMicros: 40_000, now: 0)
        var now: Int64 = 0
        func feed(_ f: [ChipSample]) -> ChipSupervisor.Verdict {
            var v = ChipSupervisor.Verdict.ok
            for chunk in stride(from: 0, to: f.count, by: 5) {
                now += 200_000
                v = s.polled(f[chunk..<min(chunk + 5, f.count)], now: now)
                if v != .ok { return v }
            }
            return v
        }
        // Two readings in three repeat the last (the share learned: 0.646, the 1/256 steps
        // truncating); the window is sized for a share an eighth closer to 1 (0.69) and 10^-10:
        // 0.69^63 < 10^-10 < 0.69^62, so 63 frames, 2.52 s.
        #expect(feed(flicker(300, run: 3)) == .ok)
        #expect(s.repeatQ16 > 41_000 && s.repeatQ16 < 44_000)
        #expect(s.stuckFrames == 63 && s.stuckWindowMicros == 2_520_000, "\(s.repeatQ16) \(s.stuckFrames)")
        // 1.2 s of one reading is that chip at rest, not a fault…
        #expect(feed(Array(repeating: ChipSample(ax: 0, ay: 0, az: 996), count: 30) + flicker(10, run: 3)) == .ok)
        #expect(s.faults == 0)
        // …but past its window it is.
        guard case .fault(let why) = feed(Array(repeating: ChipSample(ax: 0, ay: 0, az: 1008), count: 70)) else {
            Issue.record("no fault")
            return
        }
        // (The run began with the last flicker's three, and polls come five frames at a time.)
        #expect(why.contains("73 identical readings"))
        // The frozen run is not a healthy chip's: once the data changes again it teaches nothing.
        let learned = s.repeatQ16
        s.attempted(ok: true, now: now)
        #expect(feed(flicker(2, run: 1)) == .recovered)
        #expect(s.repeatQ16 == learned)

        // Motion (changes past a digit's flicker) teaches nothing either: a chip with fine digits,
        // moving or at rest, is stuck after 0.6 s.
        var f = ChipSupervisor(periodMicros: 40_000, now: 0)
        for i in 0..<40 {
            let moving = (0..<5).map { ChipSample(ax: Int32(i * 500 + $0 * 100), ay: 0, az: 1000) }
            _ = f.polled(moving[...], now: Int64(i + 1) * 200_000)
        }
        let still = (0..<200).map { ChipSample(ax: 0, ay: Int32($0 % 3), az: 1000) }
        _ = f.polled(still[...], now: 8_200_000)
        #expect(f.repeatQ16 == 0 && f.stuckWindowMicros == 600_000)
        #expect(f.polled(Array(repeating: frame, count: 14)[...], now: 8_760_000) == .ok)
        guard case .fault = f.polled(Array(repeating: frame, count: 1)[...], now: 8_800_000) else {
            Issue.record("no fault after 0.6 s on a fine chip")
            return
        }
    }
}
