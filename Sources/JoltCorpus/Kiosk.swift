#if canImport(Glibc)
import Glibc
#endif
import JoltBaselines
import JoltCore
import JoltMotion

/// One kiosk scenario: a kiosk lying on a counter, armed after 3 s at rest, then a theft (a
/// positive, with the time its motion starts) or a stretch of shop life (a negative).
public struct KioskCase: Sendable {
    public var scenario: String
    public var samples: [Sample]
    public var armAt: Int64
    /// Positives: when the theft motion starts, µs.
    public var onset: Int64?
    /// When the scenario ends, µs.
    public var end: Int64

    public init(scenario: String, samples: [Sample], armAt: Int64, onset: Int64?, end: Int64) {
        self.scenario = scenario
        self.samples = samples
        self.armAt = armAt
        self.onset = onset
        self.end = end
    }
}

/// The kiosk corpus at one output data rate, for one chip: thefts that do not tilt the kiosk
/// (slides, straight lifts) beside the ones that do, and hours of what a shop does to a kiosk.
/// Motion is simulated at 2 kHz and seen through the chip: its low-pass, noise and resolution
/// (an ADXL345: 3.9 mg steps, more noise, no gyroscope).
public struct KioskCorpus: Sendable {
    public static let positives = ["slide", "lift", "carry", "tilt", "tip-over"]
    public let rate: Double
    public let gyro: Bool
    public let seed: UInt64
    /// Traces recorded by another tool: read at the output rate, never oversampled, with the
    /// MPU6050's low-pass at its reset value (off: DLPF_CFG 0, 260 Hz). An ADXL345's follows its
    /// rate whatever reads it.
    public var foreign = false

    public init(rate: Double, gyro: Bool, seed: UInt64 = 2026) {
        self.rate = rate
        self.gyro = gyro
        self.seed = seed
    }

    /// Readings a sample: below 50 Hz the chip is read faster and filtered down, as the engine
    /// reads an alarm's chip (`Oversampler`); an MPU6050's low-pass is then the widest below the
    /// output rate, an ADXL345's half the rate it is read at (its bandwidth follows its rate).
    var oversampling: Int32 { foreign ? 1 : Oversampler.factor(rateMilliHz: Int32((rate * 1000).rounded())) }

    /// A kiosk on a counter, or (one scene in four) on a wall with the chip's x or y axis vertical.
    func scene(_ salt: UInt64) -> Scene {
        let bandwidth = foreign ? (gyro ? 260 : rate / 2)
            : (gyro || oversampling == 1 ? Oversampler.bandwidth(rate: rate, factor: oversampling) : rate * Double(oversampling) / 2)
        var sc = Scene(rate: rate * Double(oversampling), seed: seed &* 1_000_003 &+ salt &+ UInt64(rate) &* 31 &+ (gyro ? 7 : 0), range: 8,
                       bandwidth: bandwidth)
        sc.noise = gyro ? 0.004 : 0.006
        sc.oversampling = Int(oversampling)
        let yaw = sc.rng.uniform(0, 6.28)
        if salt % 4 == 3 {
            // On a wall: the chip's z horizontal, its x or y up.
            sc.orientation = Mat3.facing(V3(cos(yaw), sin(yaw), 0), yaw: salt % 8 == 3 ? 0 : .pi / 2)
        } else {
            sc.orientation = Mat3.facing(V3(0, 0, 1), yaw: yaw)
        }
        return sc
    }

    /// What the detectors get: the chip's readings (without a gyroscope, no rotation and 3.9 mg
    /// steps), filtered down when oversampled, sample `i` at `i` periods.
    func chip(_ samples: [Sample]) -> [Sample] {
        func q(_ v: Int32) -> Int32 { Int32((Double(v) / 3.90625).rounded() * 3.90625) }
        let read = gyro ? samples : samples.map { Sample(t: $0.t, accel: Vec3(q($0.accel.x), q($0.accel.y), q($0.accel.z))) }
        return Oversampler.filtered(read, factor: oversampling, rateMilliHz: Int32((rate * 1000).rounded()), rangeMilliG: 8000)
    }

    func us(_ s: Double) -> Int64 { Int64((s * 1e6).rounded()) }

    /// `count` thefts of each kind.
    public func thefts(count: Int) -> [KioskCase] {
        var out: [KioskCase] = []
        for (k, kind) in Self.positives.enumerated() {
            for i in 0..<count {
                var sc = scene(UInt64(k * 1000 + i))
                sc.rest(4)
                let onset = sc.time
                theft(kind, &sc)
                let end = sc.time
                sc.rest(2)
                out.append(KioskCase(scenario: kind, samples: chip(sc.samples), armAt: us(3), onset: us(onset), end: us(end)))
            }
        }
        return out
    }

    func theft(_ kind: String, _ sc: inout Scene) {
        switch kind {
        case "slide":
            sc.slide(metres: sc.rng.uniform(0.1, 0.3), seconds: sc.rng.uniform(1, 3), jerks: Int(sc.rng.uniform(1, 4.99)),
                     peak: sc.rng.uniform(0.06, 0.36), heading: sc.rng.uniform(0, 6.28))
        case "lift":
            sc.straightLift(metres: sc.rng.uniform(0.02, 0.05), peak: sc.rng.uniform(0.1, 0.2), hold: sc.rng.uniform(2, 4))
        case "carry":
            sc.liftAndCarry(lift: sc.rng.uniform(0.15, 0.4), carry: sc.rng.uniform(3, 6), tilt: sc.rng.uniform(0, 10))
        case "tilt":
            let a = sc.rng.uniform(0, 6.28)
            sc.turn(axis: V3(cos(a), sin(a), 0), degrees: sc.rng.uniform(15, 30), seconds: 3)
            sc.rest(1)
        default:
            sc.tipOver(degrees: sc.rng.uniform(70, 100), seconds: sc.rng.uniform(0.5, 1), heading: sc.rng.uniform(0, 6.28))
            sc.rest(1)
        }
    }

    /// `minutes` of shop life in pieces of a minute or two: taps and jabs on the screen,
    /// customers leaning on it, door slams and bags set down on the counter, the building's
    /// vibration and hum, the sensor's offsets drifting.
    public func shopLife(minutes: Double) -> [KioskCase] {
        var out: [KioskCase] = []
        var done = 0.0
        var salt: UInt64 = 50_000
        while done < minutes * 60 {
            var sc = scene(salt)
            salt += 1
            sc.rest(4)
            var labelled = ""
            while sc.time < 94 {
                switch sc.rng.next() % 7 {
                case 0, 1:
                    sc.taps(seconds: sc.rng.uniform(5, 20), screenNormal: V3(sc.rng.uniform(-1, 1), 1, 0.3).unit)
                    labelled += "taps "
                case 6:
                    // A customer's session at the screen: 10–60 s of taps, each tipping the kiosk
                    // a hair, the chip's offset drifting meanwhile (20 mg in 10 minutes).
                    sc.taps(seconds: sc.rng.uniform(10, 60), screenNormal: V3(sc.rng.uniform(-1, 1), 1, 0.3).unit, pressTilt: 0.01...0.1, drift: 0.033)
                    labelled += "session "
                case 2:
                    sc.lean(degrees: sc.rng.uniform(0.2, 0.9), hold: sc.rng.uniform(2, 8))
                    labelled += "lean "
                case 3:
                    sc.counterShock(peak: sc.rng.uniform(0.5, 1.5), ringHz: sc.rng.uniform(6, 40), decay: sc.rng.uniform(0.05, 0.2))
                    sc.rest(sc.rng.uniform(1, 5))
                    labelled += "slam "
                case 4:
                    sc.building(seconds: sc.rng.uniform(5, 20), hum: sc.rng.uniform() < 0.5)
                    labelled += "building "
                default:
                    sc.drift(degrees: sc.rng.uniform(0.1, 0.4), seconds: sc.rng.uniform(5, 20))
                    labelled += "drift "
                }
            }
            done += sc.time - 4
            out.append(KioskCase(scenario: "shop life", samples: chip(sc.samples), armAt: us(3), onset: nil, end: us(sc.time)))
        }
        return out
    }
}

/// The tamper rules scored on the kiosk corpus.
public enum TamperAlgorithm: String, CaseIterable, Sendable {
    /// Jolt's tamper detector, as the alarm runs it.
    case jolt
    /// The ADXL345's activity interrupt (AC-coupled, 0.25 g, any axis).
    case activity
    /// Tilted past 10° from the armed orientation.
    case tilt10 = "tilt 10°"
}

/// Recall, latency and false tampers, by scenario.
public struct TamperScore: Sendable {
    public var labelled: [String: Int] = [:]
    public var found: [String: Int] = [:]
    /// Latency from the start of the theft motion, ms, for every one found.
    public var latencies: [String: [Double]] = [:]
    public var falseTampers = 0
    /// The false tampers by what fired (Jolt's rule: moved, tilting, tilted).
    public var falseCauses: [String: Int] = [:]
    public var negativeSeconds = 0.0

    public init() {}

    public var recall: Double {
        let n = labelled.values.reduce(0, +)
        return n == 0 ? 0 : Double(found.values.reduce(0, +)) / Double(n)
    }

    public var allLatencies: [Double] { latencies.values.flatMap { $0 } }

    public var falsePerHour: Double { negativeSeconds > 0 ? Double(falseTampers) / negativeSeconds * 3600 : 0 }

    public mutating func add(_ o: TamperScore) {
        for (k, v) in o.labelled { labelled[k, default: 0] += v }
        for (k, v) in o.found { found[k, default: 0] += v }
        for (k, v) in o.latencies { latencies[k, default: []] += v }
        falseTampers += o.falseTampers
        for (k, v) in o.falseCauses { falseCauses[k, default: 0] += v }
        negativeSeconds += o.negativeSeconds
    }
}

/// Runs a tamper rule over kiosk cases: armed at `armAt`, a positive counts when the rule fires
/// between its onset and a second after its end; every firing on a negative is a false tamper
/// (firings 2 s apart count once, as the alarm holds off).
public enum TamperEvaluator {
    /// `mayAlias`: the cases are a foreign tool's unfiltered readings (`TamperSettings.mayAlias`).
    public static func score(_ alg: TamperAlgorithm, _ cases: [KioskCase], rate: Double, gyro: Bool, mayAlias: Bool = false) -> TamperScore {
        var score = TamperScore()
        var settings = DetectionSettings(sensitivity: .medium, rateMilliHz: Int32((rate * 1000).rounded()), gyro: gyro)
        settings.tamper.mayAlias = mayAlias
        for c in cases {
            let (fires, causes) = firingsWithCauses(alg, c, settings: settings)
            if let onset = c.onset {
                score.labelled[c.scenario, default: 0] += 1
                if let t = fires.first(where: { $0 >= onset && $0 <= c.end + 1_000_000 }) {
                    score.found[c.scenario, default: 0] += 1
                    score.latencies[c.scenario, default: []].append(Double(t - onset) / 1000)
                }
                // Before the theft starts it is a kiosk at rest: a firing there is false too.
                for f in fires where f < onset { score.falseTampers += 1; score.falseCauses[causes[f] ?? "fired", default: 0] += 1 }
            } else {
                score.falseTampers += fires.count
                for f in fires { score.falseCauses[causes[f] ?? "fired", default: 0] += 1 }
                score.negativeSeconds += Double(c.end - c.armAt) / 1e6
            }
        }
        return score
    }

    /// When the rule fired, µs, after arming (at most once every 2 s), and what fired each
    /// (Jolt's rule only; the others fire for one reason).
    static func firingsWithCauses(_ alg: TamperAlgorithm, _ c: KioskCase, settings: DetectionSettings) -> (times: [Int64], causes: [Int64: String]) {
        var g = GravityFilter(tauMicros: Int64(settings.gravityTauMillis) * 1000, periodMicros: settings.periodMicros, gyro: settings.gyro)
        var jolt = Tamper(settings: settings.tamper, periodMicros: settings.periodMicros, gyro: settings.gyro)
        var activity = ActivityTamper()
        var tilt = TiltTamper()
        var armed = false
        var out: [Int64] = []
        var causes: [Int64: String] = [:]
        for s in c.samples {
            let gv = g.update(s)
            if !armed && s.t >= c.armAt {
                armed = true
                jolt.arm(gravity: gv)
                activity.arm()
                tilt.arm(gravity: gv)
            }
            guard armed else { continue }
            let fired: Bool
            switch alg {
            case .jolt: fired = jolt.update(s, gravity: gv)
            case .activity: fired = activity.update(s)
            case .tilt10: fired = tilt.tilted(gv)
            }
            if fired, out.last.map({ s.t - $0 >= 2_000_000 }) ?? true {
                out.append(s.t)
                if alg == .jolt, let r = jolt.reading(gravity: gv, at: s.t) { causes[s.t] = "\(r.cause)" }
            }
        }
        return (out, causes)
    }
}

extension Oversampler {
    /// The MPU6050's low-pass for an output rate `rate` (Hz) read `factor` times faster, Hz: as
    /// `ChipSensor` chooses it, the widest below half the output rate, or, oversampled, below the
    /// output rate itself (the averaging then does the anti-aliasing).
    static func bandwidth(rate: Double, factor: Int32) -> Double {
        Scene.bandwidth(rate: factor > 1 ? 2 * rate : rate)
    }

    /// `readings` of a chip of full scale `rangeMilliG`, taken `factor` times faster than
    /// `rateMilliHz`, filtered down as the engine does: sample `i` at `i` periods. Unchanged
    /// when `factor` is 1.
    static func filtered(_ readings: [Sample], factor: Int32, rateMilliHz: Int32, rangeMilliG: Int32) -> [Sample] {
        guard factor > 1 else { return readings }
        let period = Units.periodMicros(rateMilliHz: rateMilliHz)
        var over = Oversampler(factor: factor, rangeMilliG: rangeMilliG)
        var out: [Sample] = []
        out.reserveCapacity(readings.count / Int(factor))
        for s in readings {
            if let m = over.add(accel: s.accel, gyro: s.gyro) {
                out.append(Sample(t: Int64(out.count) * period, accel: m.accel, gyro: m.gyro))
            }
        }
        return out
    }
}
