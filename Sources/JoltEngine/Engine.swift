import JoltChips
import JoltCore
import JoltDrivers

/// The time the engine runs on, µs since the run started: the monotonic clock, or a simulated
/// one that jumps. Handed in, so the engine never asks which.
public protocol EngineClock: AnyObject {
    var now: Int64 { get }
    /// Lets `milliseconds` pass (a chip's reset wait); may end early when the run is stopping.
    func delay(milliseconds: UInt32)
}

/// A break in the data.
public struct Gap: Equatable, Sendable {
    public enum Cause: Equatable, Sendable {
        /// The FIFO overflowed: the host did not drain it in time.
        case overflow
        /// No FIFO, and no reading for a long while: the host did not poll in time.
        case stall
        /// The chip is answering again after a fault, after `attempts` re-probes.
        case recovered(attempts: Int)
    }
    public let cause: Cause
    /// The stream time of the first missing sample, and of the first sample after the gap, µs.
    public let start: Int64
    public let resume: Int64
    /// Samples missing.
    public let lost: Int64
}

/// What a step did.
public enum Step: Equatable, Sendable {
    /// Nothing read: not due yet, retrying, faulted (a re-probe not yet due, or failed) or
    /// verifying a re-probe.
    case idle
    /// The chip has failed (once per fault), at stream time `at`: re-probing follows.
    case fault(String, at: Int64)
    /// A poll brought `frames` readings (possibly none), to take through the detectors with
    /// `next()`; after `gap`, when samples were lost before them (the detectors were reset).
    case polled(frames: Int, gap: Gap?)
}

/// The one sampling engine: a clock, a sensor, the supervisor, the stream's timestamps, the
/// mount, and the detectors — from a poll of the chip to events. `jolt run` drives it (and
/// through `run`, `record`, `watch` and `soak`), and `jolt calibrate` too. It knows nothing of
/// simulation: a simulated chip is just another bus and another clock.
///
/// The detectors are the engine's: `step` polls the chip and says what happened (nothing, a
/// fault, readings after a gap); `next` takes each reading through the detectors and hands the
/// sample and its events to the caller, which alone passes them on (to the alarm, the records)
/// and hands back by `apply` what the detectors must change before the next one.
///
/// Time: sample `i` of the stream stands at `origin + i × period`. Lost samples advance `i`, so a
/// gap stays a gap in every timestamp downstream.
public final class SamplingEngine {
    public let sensor: ChipSensor
    let clock: EngineClock
    public var mount: Mount
    /// Jolt's detectors, fed every reading; changed only through `apply` and `restart`.
    ///
    /// What `next` touches for every reading is `@exclusivity(unchecked)`: the engine is used
    /// from one thread (the run's loop, which also answers the requests that reach it) and
    /// never calls out while it changes them, so no two accesses can overlap. The run-time
    /// checks of a class's stored properties cost about 670 instructions a reading here.
    @exclusivity(unchecked) public private(set) var detectors: DefaultDetectors
    public private(set) var supervisor: ChipSupervisor
    public let periodMicros: Int64
    /// How often the chip is read, µs: each sample, or the FIFO's drain interval.
    public let intervalMicros: Int64
    /// The stream time of sample 0, µs (a played recording's first time; else 0).
    public let origin: Int64
    /// Samples so far, lost ones included.
    @exclusivity(unchecked) public private(set) var index: Int64 = 0
    /// When data last came (the time the newest frame stands for), clock µs.
    public private(set) var lastData: Int64
    /// When the next poll is due, clock µs.
    public private(set) var nextPoll: Int64
    /// Counts for the exit line and the benchmark.
    @exclusivity(unchecked) public private(set) var samples = 0
    public private(set) var overflows = 0
    /// Samples skipped between reads without a FIFO (bridged, not a gap).
    public private(set) var skipped = 0
    /// Woken by the chip's INT pin (`useInterrupt`): how often, and for what.
    public private(set) var interrupts = InterruptCounts()
    /// The last poll's readings, and how many of them `next` has taken through the detectors.
    @exclusivity(unchecked) var frames: [ChipSample] = []
    @exclusivity(unchecked) var taken = 0
    /// Whether the next poll waits to be scheduled until `next` has taken the last reading.
    var unscheduled = false
    /// With the INT pin: how long to sleep after a drain that leaves the detectors at rest (the
    /// safety net for a lost edge; the chip's watermark or motion wakes the loop sooner), and
    /// after one that does not (something moved: drain often until it rests), µs. nil: polled.
    var interruptIntervals: (rest: Int64, active: Int64)?
    /// Whether the last drain left the detectors busy: the loop drains on a short timer and
    /// leaves the pin unheard until they rest.
    public private(set) var draining = false

    /// Without a FIFO, a longer pause between reads than this is a break in the data, µs.
    public static let stallMicros: Int64 = 250_000

    /// An engine for a started `sensor`, its detectors set up with `detection`. `drainMillis`:
    /// how often a FIFO is read at most.
    public init(sensor: ChipSensor, clock: EngineClock, mount: Mount, detection: DetectionSettings, limits: ChipSupervisor.Limits = .init(),
                drainMillis: Int32, origin: Int64 = 0) {
        self.sensor = sensor
        self.clock = clock
        self.mount = mount
        detectors = DefaultDetectors(detection)
        self.origin = origin
        periodMicros = sensor.periodMicros
        intervalMicros = Self.interval(sensor: sensor, drainMillis: drainMillis)
        supervisor = ChipSupervisor(limits: limits, periodMicros: sensor.periodMicros, now: clock.now)
        lastData = clock.now
        nextPoll = lastData + intervalMicros
        frames.reserveCapacity(128)
    }

    /// How often a sensor is read: every reading the chip makes (an oversampled chip makes
    /// several a sample), or the FIFO's drain interval within its capacity.
    public static func interval(sensor: ChipSensor, drainMillis: Int32) -> Int64 {
        sensor.usesFIFO ? min(Int64(drainMillis) * 1000, sensor.maxPollMicros) : sensor.readPeriodMicros
    }

    /// The chip raises its INT pin and the loop sleeps until it does: a FIFO is drained at its
    /// watermark (a chip without one, such as the MPU6050, once its FIFO is three quarters full)
    /// or at once on motion; without a FIFO, at each reading. While the detectors are busy after a
    /// drain, every `activeMillis` (and no slower than a reading).
    public func useInterrupt(activeMillis: Int64 = 20) {
        let read = sensor.readPeriodMicros
        guard sensor.usesFIFO else {
            // Each reading raises INT; the timer is the safety net for a lost edge.
            interruptIntervals = (3 * read, 3 * read)
            nextPoll = clock.now + 3 * read
            return
        }
        let depth = sensor.info.fifoDepth, mark = sensor.watermark
        let rest = mark > 0 ? read * Int64(mark + (depth - mark) / 2) : sensor.maxPollMicros
        interruptIntervals = (rest, min(rest, max(read, activeMillis * 1000)))
        nextPoll = clock.now + rest
    }

    /// How the chip is read, for the start's log line: "FIFO drained every 200 ms", "read every
    /// sample", or, with the INT pin (named `pin`), what wakes the loop.
    public func readingPlan(pin: String?) -> String {
        guard let pin, let (rest, _) = interruptIntervals else {
            return sensor.usesFIFO ? "FIFO drained every \(intervalMicros / 1000) ms" : "read every sample"
        }
        guard sensor.usesFIFO else { return "read when the chip's INT pin (\(pin)) says a reading is ready, or on motion" }
        let wakes = sensor.watermark > 0 ? "its FIFO's watermark (\(sensor.watermark) readings) or motion" : "motion"
        return "woken by the chip's INT pin (\(pin)) on \(wakes), FIFO drained at least every \(rest / 1000) ms"
    }

    /// Whether the loop should wake on the INT pin now: it uses it, and is not draining on a timer.
    public var listening: Bool { interruptIntervals != nil && !draining }

    /// The INT pin rose: what raised it is read from the chip (which clears it), and the chip is
    /// drained now.
    public func interrupted(now: Int64) {
        interrupts.edges += 1
        if supervisor.phase == .running, let cause = try? sensor.interruptCause() {
            if cause.contains(.motion) { interrupts.motion += 1 }
            if cause.contains(.fifoWatermark) { interrupts.watermark += 1 }
            if cause.contains(.dataReady) { interrupts.dataReady += 1 }
        }
        if supervisor.phase == .running { nextPoll = min(nextPoll, now) }
    }

    /// The stream time of the next sample, µs.
    public var streamNow: Int64 { origin + index * periodMicros }
    /// Stream time covered so far, µs.
    public var streamMicros: Int64 { index * periodMicros }

    /// Polls the chip if it is due at `now`, and says what came: take its readings with `next`
    /// before the next step. `sourceEnded`: the source has said no more data will come (a played
    /// recording that ran out), so an empty poll is its end, not a chip gone silent — with a
    /// drain interval past the supervisor's silence limit (`fifo_poll_ms: 1000`), the last poll
    /// would otherwise fault.
    public func step(now: Int64, sourceEnded: Bool = false) -> Step {
        precondition(!unscheduled, "every reading of a poll is taken (next()) before the next step")
        guard now >= nextPoll else { return .idle }
        if supervisor.phase == .faulted {
            reprobe(now: now)
            return .idle
        }
        frames.removeAll(keepingCapacity: true)
        taken = 0
        var status = PollStatus.ok
        let verdict: ChipSupervisor.Verdict
        do {
            status = try sensor.poll(into: &frames)
            // A chip that is not measuring (asleep after a reset) reads exact zeros on every
            // axis; a measuring one never does (noise). Those are not data.
            frames.removeAll { $0 == ChipSample(ax: 0, ay: 0, az: 0) }
            if sourceEnded && frames.isEmpty && status != .overflow {
                nextPoll = now + intervalMicros
                return .polled(frames: 0, gap: nil)
            }
            verdict = supervisor.polled(frames[...], overflowed: status == .overflow, now: now)
        } catch {
            let transient: Bool
            if case .bus(let e, _) = error { transient = e.kind.isTransient } else { transient = false }
            verdict = supervisor.pollFailed(transient: transient, reason: sensor.describe(error).message, now: now)
        }
        switch verdict {
        case .retry(let at):
            nextPoll = at
            return .idle
        case .fault(let reason):
            nextPoll = supervisor.nextAttemptAt
            return .fault(reason, at: streamNow)
        case .wait:
            nextPoll = supervisor.phase == .faulted ? supervisor.nextAttemptAt : now + intervalMicros
            return .idle
        case .recovered, .ok:
            break
        }
        let gap = account(now: now, status: status, recovered: verdict == .recovered)
        unscheduled = true
        return .polled(frames: frames.count, gap: gap)
    }

    /// The last poll's next reading, through the detectors: the sample (board axes, offsets
    /// applied) and what it raised. nil once every reading is through; the next poll is then
    /// scheduled.
    @inline(__always)
    public func next() -> (sample: Sample, events: Events)? {
        guard taken < frames.count else {
            if unscheduled { schedule() }
            return nil
        }
        let f = frames[taken]
        taken += 1
        let s = mount.apply(Sample(t: streamNow, accel: Vec3(f.ax, f.ay, f.az), gyro: Vec3(f.gx, f.gy, f.gz)))
        index += 1
        samples += 1
        return (s, detectors.update(s))
    }

    /// After a poll's readings: when the next is due.
    func schedule() {
        unscheduled = false
        if let (rest, active) = interruptIntervals {
            draining = !detectors.resting && sensor.usesFIFO
            nextPoll = clock.now + (draining ? active : rest)
            return
        }
        nextPoll += intervalMicros
        if nextPoll <= clock.now - intervalMicros { nextPoll = clock.now + intervalMicros }
    }

    /// The host cannot poll before `t` (clock µs): a stall of its own.
    public func postpone(until t: Int64) { nextPoll = t }

    /// The host starts polling at `now`, or polls again after time it spent elsewhere on purpose
    /// (starting up after the chip was configured, reloading the profile): that time is not a
    /// stall, and no fault is reported for it. Before the first sample, the stream starts here.
    /// After, without a FIFO, the readings the chip made meanwhile are skipped as between two
    /// late reads, so the timestamps keep the time that passed; a FIFO kept them (or reports its
    /// overflow). The supervisor counts the chip's silence from here.
    public func resume(now: Int64) {
        if !sensor.usesFIFO {
            let missed = samples > 0 ? (now - lastData) / periodMicros : 0
            if missed > 0 {
                index += missed
                skipped += Int(missed)
            }
            lastData = now
        }
        supervisor.resume(now: now)
        nextPoll = max(nextPoll, now)
    }

    /// Applies what the alarm asked of the detectors, between readings: the engine is the only
    /// one that changes them.
    public func apply(_ change: DetectorChange) {
        detectors.apply(change)
    }

    /// Fresh detectors with `detection` (the profile was reloaded).
    public func restart(_ detection: DetectionSettings) {
        detectors = DefaultDetectors(detection)
    }

    /// The chip's self-test, between polls (the alarm arming): the chip is tested, then started
    /// again as it was; the test's readings never reach the detectors, and the time it took is
    /// the host's own (`resume`). The failure: why it could not run.
    public func selfTest() -> Result<SelfTestResult, ChipTestFailure> {
        guard supervisor.phase != .faulted else { return .failure(ChipTestFailure(message: "the sensor is not answering (\(sensor.busName))")) }
        var delay = EngineDelay(clock: clock)
        defer { resume(now: clock.now) }
        do {
            return .success(try sensor.selfTest(delay: &delay))
        } catch {
            return .failure(ChipTestFailure(message: sensor.describe(error).message))
        }
    }

    /// Faulted: re-probes (identify, reset, configure) and schedules what follows.
    func reprobe(now: Int64) {
        if supervisor.attemptDue(now: now) {
            var delay = EngineDelay(clock: clock)
            let ok = (try? sensor.start(delay: &delay)) != nil
            supervisor.attempted(ok: ok, now: clock.now)
        }
        nextPoll = supervisor.phase == .faulted ? supervisor.nextAttemptAt : clock.now + intervalMicros
    }

    /// Samples were lost: skip the time they covered. A few samples missed between reads (no
    /// FIFO, a retried poll) are bridged; a real break (an overflow, a stall, a fault) restarts
    /// the detectors rather than join old and new data. The tamper detector keeps its armed
    /// reference through the reset: a kiosk moved while its sensor was out is still a moved kiosk.
    func account(now: Int64, status: PollStatus, recovered: Bool) -> Gap? {
        let missed = (now - lastData) / periodMicros - Int64(frames.count)
        let stalled = !sensor.usesFIFO && !recovered && !frames.isEmpty && missed * periodMicros >= Self.stallMicros
        var gap: Gap?
        if status == .overflow || stalled || recovered {
            let lost = max(missed, 1)
            let start = streamNow
            index += lost
            detectors.reset()
            let cause: Gap.Cause = recovered ? .recovered(attempts: supervisor.attempts) : (status == .overflow ? .overflow : .stall)
            if cause == .overflow { overflows += 1 }
            gap = Gap(cause: cause, start: start, resume: streamNow, lost: lost)
        } else if !sensor.usesFIFO && !frames.isEmpty && missed > 0 {
            index += missed
            skipped += Int(missed)
        }
        if !frames.isEmpty { lastData = now }
        return gap
    }
}

/// How often the INT pin woke the engine, and what the chip said raised it.
public struct InterruptCounts: Equatable, Sendable {
    public var edges = 0
    public var motion = 0
    public var watermark = 0
    public var dataReady = 0
    public init() {}
}

/// A driver's delay on the engine's clock.
struct EngineDelay: Delay {
    let clock: EngineClock
    mutating func delay(milliseconds: UInt32) { clock.delay(milliseconds: milliseconds) }
}

/// Why a chip's self-test could not run: a bus error, a chip that is not there or not itself.
public struct ChipTestFailure: Error, Equatable, Sendable {
    public var message: String
    public init(message: String) { self.message = message }
}
