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
        /// Bit-identical frames for this long: the data is stuck, µs.
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
            if Int64(identicalRun) * periodMicros >= limits.stuckMicros {
                return enterFault("the data stopped changing: \(identicalRun) identical readings in a row (a frozen or reset chip)", now: now)
            }
            if now - lastFrameAt > limits.silenceMicros {
                return enterFault("no data for \((now - lastFrameAt) / 1000) ms (the chip stopped measuring: a reset or a brown-out?)", now: now)
            }
            return .ok
        }
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

    /// Tracks identical frames; whether any frame differs from the one before it.
    private mutating func observe(_ frames: ArraySlice<ChipSample>) -> Bool {
        var changed = false
        for f in frames {
            if f == lastFrame {
                identicalRun += 1
            } else {
                changed = changed || lastFrame != nil
                lastFrame = f
                identicalRun = 1
            }
        }
        return changed
    }

    private mutating func enterFault(_ reason: String, now: Int64) -> Verdict {
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
