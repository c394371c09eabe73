import JoltDrivers

/// Watches the chip's health from what each poll brings, and decides what the run loop does:
/// retry a transient bus error, declare a fault, re-probe at a slowing pace, and say when the
/// chip is back. It only keeps counts and times (the loop's clock, µs): no I/O, so it is tested
/// on its own.
///
///     running ──3 failed polls / silence / stuck data──▶ faulted ──re-probe ok──▶ verifying
///        ▲                                                  ▲                        │
///        └──────────────── changing data ───────────────────┼────────────────────────┘
///                                                           └── no changing data in time
public struct ChipSupervisor: Sendable {
    public struct Limits: Equatable, Sendable {
        /// Transient failures in a row tolerated before the chip counts as faulted.
        public var retries = 3
        /// The first retry's delay, µs; each further one doubles it.
        public var retryDelayMicros: Int64 = 5_000
        /// No frame for this long (while frames are due): the chip has stopped, µs.
        public var silenceMicros: Int64 = 600_000
        /// Bit-identical frames for this long: the data is stuck, µs — or for longer, on a
        /// chip whose digit is coarse against its noise (see `stuckFrames`).
        public var stuckMicros: Int64 = 600_000
        /// The first re-probe's delay after a fault, µs; each further one doubles it…
        public var firstBackoffMicros: Int64 = 100_000
        /// …up to this, µs.
        public var maxBackoffMicros: Int64 = 5_000_000

        public init() {}
    }

    public enum Phase: Equatable, Sendable {
        /// Data flows.
        case running
        /// The chip is gone or wrong; re-probing at `nextAttemptAt`.
        case faulted
        /// Re-probed and configured; waiting for data that changes.
        case verifying
    }

    /// What a poll means.
    public enum Verdict: Equatable, Sendable {
        /// Use the frames.
        case ok
        /// Poll again at this time (a retry after a transient error).
        case retry(at: Int64)
        /// The chip has failed: report it once, drop the frames, re-probe at `nextAttemptAt`.
        case fault(String)
        /// The chip is back: report it, restart the detectors, use the frames.
        case recovered
        /// Nothing to use yet (verifying, or faulted).
        case wait
    }

    public let limits: Limits
    public let periodMicros: Int64
    public private(set) var phase = Phase.running
    /// Transient failures in a row.
    public private(set) var failuresInARow = 0
    /// When frames last came.
    public private(set) var lastFrameAt: Int64
    /// The last frame seen, and how many frames in a row have been identical to it.
    public private(set) var lastFrame: ChipSample?
    public private(set) var identicalRun = 0
    /// How often a resting chip repeats its last frame, Q16: learned from the runs of identical
    /// frames that ended in a small change (a digit's flicker, not motion), over about the last
    /// 256 such frames.
    public private(set) var repeatQ16 = 0
    /// Identical frames in a row that a healthy chip repeating itself that often gives less
    /// than once in 10^10 frames (see `learnRepeats`); the stuck rule waits for at least that
    /// many.
    public private(set) var stuckFrames = 0
    /// Whether the current run of identical frames began while running (a run that faulted is
    /// not a healthy chip's).
    var runCounts = true
    /// Faulted: when the next re-probe is due, and the delay after that.
    public private(set) var nextAttemptAt: Int64 = 0
    public private(set) var backoff: Int64 = 0
    /// Verifying: since when.
    public private(set) var verifyingSince: Int64 = 0
    /// The current fault: when it began and the re-probes tried since.
    public private(set) var faultedAt: Int64 = 0
    public private(set) var attempts = 0
    /// Figures over the whole run.
    public private(set) var faults = 0
    public private(set) var transientErrors = 0

    public init(limits: Limits = Limits(), periodMicros: Int64, now: Int64) {
        self.limits = limits
        self.periodMicros = periodMicros
        lastFrameAt = now
    }

    /// A poll failed with a bus error; `transient` errors (no acknowledge, I/O error, timeout) are
    /// retried, others fault at once.
    public mutating func pollFailed(transient: Bool, reason: @autoclosure () -> String, now: Int64) -> Verdict {
        switch phase {
        case .faulted:
            return .wait
        case .verifying:
            scheduleAttempt(now: now)
            return .wait
        case .running:
            transientErrors += transient ? 1 : 0
            failuresInARow += 1
            if transient && failuresInARow <= limits.retries {
                return .retry(at: now + limits.retryDelayMicros << Int64(failuresInARow - 1))
            }
            return enterFault(reason(), now: now)
        }
    }

    /// A poll succeeded with `frames` (possibly none); `overflowed` when the FIFO had filled (so
    /// the chip was measuring, even though the frames were thrown away).
    public mutating func polled(_ frames: ArraySlice<ChipSample>, overflowed: Bool = false, now: Int64) -> Verdict {
        failuresInARow = 0
        let changed = observe(frames)
        if !frames.isEmpty || overflowed { lastFrameAt = now }
        switch phase {
        case .faulted:
            return .wait
        case .verifying:
            if changed {
                phase = .running
                return .recovered
            }
            if now - verifyingSince > limits.silenceMicros { scheduleAttempt(now: now) }
            return .wait
        case .running:
            if Int64(identicalRun) * periodMicros >= limits.stuckMicros && identicalRun >= stuckFrames {
                return enterFault("the data stopped changing: \(identicalRun) identical readings in a row (a frozen or reset chip)", now: now)
            }
            if now - lastFrameAt > limits.silenceMicros {
                return enterFault("no data for \((now - lastFrameAt) / 1000) ms (the chip stopped measuring: a reset or a brown-out?)", now: now)
            }
            return .ok
        }
    }

    /// The host polls again after time it spent elsewhere on purpose: the chip's silence is
    /// counted from `now`, not from the last frame before the pause.
    public mutating func resume(now: Int64) {
        lastFrameAt = max(lastFrameAt, now)
    }

    /// Whether a re-probe is due.
    public func attemptDue(now: Int64) -> Bool { phase == .faulted && now >= nextAttemptAt }

    /// A re-probe (identify, reset, configure) ended.
    public mutating func attempted(ok: Bool, now: Int64) {
        guard phase == .faulted else { return }
        attempts += 1
        if ok {
            phase = .verifying
            verifyingSince = now
            lastFrameAt = now
        } else {
            scheduleAttempt(now: now)
        }
    }

    /// The stuck-data window, µs: at least `stuckMicros`, longer for a chip that repeats itself.
    public var stuckWindowMicros: Int64 { Swift.max(limits.stuckMicros, Int64(stuckFrames) * periodMicros) }

    /// Tracks identical frames; whether any frame differs from the one before it.
    private mutating func observe(_ frames: ArraySlice<ChipSample>) -> Bool {
        var changed = false
        for f in frames {
            if f == lastFrame {
                identicalRun += 1
            } else {
                if let l = lastFrame {
                    changed = true
                    if runCounts && phase == .running && Self.small(f, l) { learnRepeats(run: identicalRun) }
                }
                lastFrame = f
                identicalRun = 1
                runCounts = true
            }
        }
        return changed
    }

    /// Whether `f` differs from `l` by a digit's flicker on every axis (within 64 mg and
    /// 4 °/s): a chip at rest, not one that moved.
    static func small(_ f: ChipSample, _ l: ChipSample) -> Bool {
        func near(_ a: Int32, _ b: Int32, _ k: Int64) -> Bool { (Int64(a) - Int64(b)).magnitude <= k }
        return near(f.ax, l.ax, 64) && near(f.ay, l.ay, 64) && near(f.az, l.az, 64)
            && near(f.gx, l.gx, 4_000) && near(f.gy, l.gy, 4_000) && near(f.gz, l.gz, 4_000)
    }

    /// A run of `run` identical frames ended in a small change: `run - 1` repeats and one change
    /// into the running share (each frame weighing 1/256, a long run at most 128 of them), and
    /// the window that share needs. Rests differ (an axis sitting mid-digit repeats more often
    /// than one on a digit's edge), so the window is sized for a share an eighth of the way
    /// closer to 1, and for less than one false fault in 10^10 frames (a dozen years at 25 Hz).
    /// A chip with fine digits never repeats (its window is `stuckMicros`); a LIS3DH at ±16 g
    /// (12 mg digits, repeating about a third of the time at rest) needs about 23 frames (0.92 s
    /// at 25 Hz); however often a chip repeats, the window stops at 4,096 frames.
    mutating func learnRepeats(run: Int) {
        let n = Swift.min(run, 128)
        repeatQ16 = Swift.max(0, Swift.min(65_536, repeatQ16 + (((n - 1) << 16) - n * repeatQ16) / 256))
        // The smallest k with share^k below 10^-10, in Q40.
        let p = UInt64(repeatQ16 + (65_536 - repeatQ16) / 8)
        var q: UInt64 = 1 << 40, k = 0
        let target: UInt64 = 110   // 10^-10 · 2^40
        while q > target && k < 4_096 {
            q = (q * p) >> 16
            k += 1
        }
        stuckFrames = k
    }

    private mutating func enterFault(_ reason: String, now: Int64) -> Verdict {
        runCounts = false
        phase = .faulted
        faults += 1
        faultedAt = now
        attempts = 0
        failuresInARow = 0
        backoff = limits.firstBackoffMicros
        nextAttemptAt = now + backoff
        return .fault(reason)
    }

    private mutating func scheduleAttempt(now: Int64) {
        phase = .faulted
        backoff = min(backoff * 2, limits.maxBackoffMicros)
        nextAttemptAt = now + backoff
    }
}
