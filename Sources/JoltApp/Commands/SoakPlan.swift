import JoltChips
import JoltDrivers
import JoltMotion
import JoltSim
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltConfig
import JoltControl
import JoltCore
import JoltCorpus
import JoltEngine
import JoltJSON
import JoltLinux
import JoltMQTT
import JoltRun
import JoltSimBoard
import JoltSupport
import JoltTrace

/// Plans a soak from its seed: rests with faults in some of them, shakes and flips between,
/// short bus errors anywhere; and the motion that plays the plan, made piece by piece.
struct SoakPlanner {
    typealias Segment = SoakCommand.Segment
    let options: SoakCommand.Options
    let periodMicros: Int64
    let rate: Double
    let total: Int
    var rng: SplitMix64
    var plan = SoakCommand.Plan()
    var segments: [Segment] = []
    /// Source samples planned so far.
    var at = 0
    var nextLongUnplug: Double

    init(options: SoakCommand.Options, periodMicros: Int64) {
        self.options = options
        self.periodMicros = periodMicros
        rng = SplitMix64(seed: options.seed &* 0x9E37_79B9 &+ 17)
        rate = Double(options.rateMilliHz) / 1000
        total = Int(options.hours * 3600 * rate)
        nextLongUnplug = 3600.0 * rng.uniform(0.5, 2)
    }

    func secs(_ n: Int) -> Double { Double(n) / rate }

    /// A host stall is a fault when it outlasts what the chip's FIFO holds (it then overflows,
    /// and samples are lost): half a second past that at least, s. At 100 Hz the 1.5 s floor
    /// of every stall is past every chip's FIFO; at 25 Hz an MPU6050's 85 frames last 3.4 s.
    var stallFloor: Double {
        guard options.fifo, let chip = ChipRegistry.named(options.chip) else { return 0 }
        return Double(chip.info.fifoDepth) / rate + 0.5
    }
    func simTime(_ sample: Int) -> Int64 { SoakCommand.plannedStart + Int64(sample) * periodMicros }
    func count(_ s: Double) -> Int { max(Int((s * rate).rounded()), 0) }

    /// Rest, gesture, rest, gesture… to the end, with a fault in about a third of the rests.
    mutating func planGestures() {
        while at < total - count(120) {
            var rest = rng.uniform(20, 70)
            if rng.uniform() < 0.35 {
                let length = planFault(start: secs(at) + 4)
                // Room to notice, re-probe (at most 5 s apart) and settle before the next gesture.
                rest = max(rest, 4 + length + 12)
            }
            let restN = count(rest)
            segments.append(.rest(restN))
            at += restN
            if rng.uniform() < 0.7 { planShake() } else { planFlip() }
        }
        segments.append(.rest(total - at + count(60)))
        plan.samples = total
    }

    /// A fault starting at `start` s; returns its length, s.
    mutating func planFault(start: Double) -> Double {
        var kind: SimFaultSpec.Kind
        var name: String
        var length: Double
        if start > nextLongUnplug {
            (kind, name, length) = (.noAcknowledge, "unplug (minutes)", rng.uniform(120, 600))
            nextLongUnplug = start + 3600 * rng.uniform(2, 5)
        } else {
            switch rng.next() % 5 {
            case 0: (kind, name, length) = (.noAcknowledge, "unplug", rng.uniform(2, 60))
            case 1: (kind, name, length) = (.ioError, "bus errors", rng.uniform(0.5, 20))
            case 2: (kind, name, length) = (.reset, "brown-out reset", 0)
            case 3: (kind, name, length) = (.frozen, "frozen data", rng.uniform(2, 20))
            default: (kind, name, length) = (.stall, "host stall", Swift.max(rng.uniform(1.5, 4), stallFloor))
            }
        }
        let from = simTime(count(start))
        plan.faults.append(SoakCommand.PlannedFault(fault: SimFaultSpec(kind, from: from, to: from + Int64(length * 1e6)), name: name, transient: false))
        return length
    }

    mutating func planShake() {
        let n = count(rng.uniform(1.2, 2.4))
        let freq = rng.uniform(3, 6), amp = rng.uniform(1.6, 3)
        let axis = [V3(1, 0, 0), V3(0, 1, 0), V3(1, 1, 0), V3(1, 0.3, 0.2)][Int(rng.next() % 4)]
        plan.gestures.append(SoakCommand.Gesture(kind: .shake, from: at, to: at + n))
        segments.append(.shake(freq: freq, amp: amp, axis: axis, samples: n))
        at += n
    }

    mutating func planFlip() {
        let turn = count(rng.uniform(0.6, 1.0)), stay = count(rng.uniform(4, 8))
        let axis = rng.uniform() < 0.5 ? V3(1, 0, 0) : V3(0, 1, 0)
        var g = SoakCommand.Gesture(kind: .flip, from: at, to: at + turn)
        g.backFrom = at + turn + stay
        g.backTo = g.backFrom + turn
        plan.gestures.append(g)
        segments += [.turn(axis: axis, degrees: 180, samples: turn), .rest(stay), .turn(axis: axis, degrees: -180, samples: turn)]
        at = g.backTo
    }

    /// Short bus errors anywhere, gestures included (the retries ride them out), apart from the
    /// planned faults.
    mutating func planTransients() {
        for _ in 0..<Int(options.hours * 12) {
            let from = simTime(Int(rng.uniform(10, Double(total) - 10 * rate)))
            let kind: SimFaultSpec.Kind = rng.uniform() < 0.5 ? .ioError : .timeout
            let length = Int64(rng.uniform(1_000, 25_000))
            guard !plan.faults.contains(where: { from < $0.fault.to + 20_000_000 && $0.fault.from < from + length + 20_000_000 }) else { continue }
            plan.faults.append(SoakCommand.PlannedFault(fault: SimFaultSpec(kind, from: from, to: from + length), name: "bus error (ms)", transient: true))
        }
        plan.faults.sort { $0.fault.from < $1.fault.from }
    }

    /// The motion, one segment at a time, rests in pieces of at most 10 s: the soak's own memory
    /// stays small and flat, so that the figure measures the run.
    func source() -> MotionSource {
        var m = Motion(rate: rate, seed: options.seed)
        var segments = segments
        var next = 0
        let count = self.count, secs = self.secs
        return GeneratedSource {
            guard next < segments.count else { return nil }
            switch segments[next] {
            case .rest(let n):
                let piece = min(n, count(10))
                m.rest(secs(piece))
                if piece < n { segments[next] = .rest(n - piece) } else { next += 1 }
            case .shake(let freq, let amp, let axis, let n):
                m.shake(freq: freq, amp: amp, axis: axis, seconds: secs(n), tremor: 0.2)
                next += 1
            case .turn(let axis, let degrees, let n):
                m.rotate(axis: axis, degrees: degrees, seconds: secs(n))
                next += 1
            }
            return m.take()
        }
    }
}
