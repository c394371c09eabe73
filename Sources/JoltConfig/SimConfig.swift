import JoltChips
import JoltJSON
import JoltCore
import JoltLinux
import JoltTrace
import JoltDrivers
import JoltSupport

/// What the simulated board plays.
public struct SimSettings: Sendable, Equatable {
    /// The simulated chip, by its registry name.
    public var chip = ChipRegistry.names[0]
    /// A built-in motion script: "demo", "rest", "lift", "shake", "flip", "shop".
    public var motion = "demo"
    /// A trace to play instead of a script (path relative to the board file's folder).
    public var trace: String?
    /// Whether the script repeats forever.
    public var loop = false
    /// At the end of the motion: "exit" (stop the run) or "rest" (lie still until stopped).
    public var atEnd = "exit"
    /// Faults to inject on the simulated bus, to watch Jolt ride them out.
    public var faults: [SimFaultSpec] = []
    /// The simulated chip's zero-g offset (mg) and gyro bias (mdps), chip axes.
    public var accelBias = Vec3.zero, gyroBias = Vec3.zero
    /// A twin whose sense element is damaged: its self-test force moves it 5 % of a good part's
    /// (`"self_test": "fail"`), to see the alarm's check refuse it.
    public var selfTestFails = false
    public init() {}
}

/// A fault the simulated board injects (`sim.faults`), as the profile says it: which, from when
/// to when (µs of simulated time; a reset has no length). The simulated board turns it into its
/// bus's fault; the profile itself knows nothing of the simulator.
public struct SimFaultSpec: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case noAcknowledge, ioError, timeout, frozen, reset, stall
    }
    public var kind: Kind
    public var from: Int64
    public var to: Int64

    public init(_ kind: Kind, from: Int64, to: Int64) {
        self.kind = kind
        self.from = from
        self.to = to
    }
}

/// The `sim` section.
extension BoardProfile {
    /// `sim`; `boardChip` is the board's `chip` (nil: auto), which the simulated board plays.
    package static func parseSim(_ r: ObjectReader, boardChip: String? = nil) throws(JoltError) -> SimSettings {
        var s = SimSettings()
        if let c = try r.choice("chip", ChipRegistry.names) {
            // One chip per board: a different one here would be silently overridden.
            if let named = boardChip, named != c {
                throw r.fail("chip", r.node("chip"), "\"\(c)\" differs from the board's chip \"\(named)\", which the simulated board plays: give only one of them")
            }
            s.chip = c
        }
        if let m = try r.choice("motion", ["demo", "rest", "lift", "shake", "flip", "shop"]) { s.motion = m }
        if let t = try r.choice("self_test", ["pass", "fail"]) { s.selfTestFails = t == "fail" }
        if let t = try r.string("trace") {
            guard !t.isEmpty else { throw r.fail("trace", r.node("trace"), "must be a path to a jolt-trace file") }
            s.trace = t
        }
        if let l = try r.bool("loop") { s.loop = l }
        if let e = try r.choice("at_end", ["exit", "rest"]) { s.atEnd = e }
        let (a, g) = try parseTriples(r, accelKey: "accel_bias_g", gyroKey: "gyro_bias_dps")
        (s.accelBias, s.gyroBias) = (a, g)
        if let n = r.node("faults") {
            guard case .array(let items) = n.value else {
                throw r.fail("faults", n, "must be a list like [{\"kind\": \"unplug\", \"at_s\": 5, \"for_s\": 3}]")
            }
            for (i, item) in items.enumerated() {
                let f = try ObjectReader(file: r.file, path: r.fieldPath("faults") + "[\(i)]", node: item)
                s.faults.append(try parseFault(f))
            }
        }
        try r.finish()
        return s
    }

    /// The names of injectable faults, as a board file spells them.
    package static let faultKinds: [(String, SimFaultSpec.Kind)] = [
        ("unplug", .noAcknowledge), ("io_error", .ioError), ("timeout", .timeout), ("frozen", .frozen), ("reset", .reset), ("stall", .stall),
    ]

    /// One `sim.faults` entry: `{"kind": "unplug", "at_s": 5, "for_s": 3}` (a reset has no length).
    package static func parseFault(_ r: ObjectReader) throws(JoltError) -> SimFaultSpec {
        guard let k = try r.choice("kind", faultKinds.map(\.0)) else {
            throw r.fail("kind", nil, "missing: one of \(faultKinds.map(\.0).joined(separator: ", "))")
        }
        let kind = faultKinds.first { $0.0 == k }!.1
        guard let at = try r.fixed("at_s", places: 6, range: 0...31_536_000_000_000, unit: "s") else {
            throw r.fail("at_s", nil, "missing: when the fault starts, seconds from the start of the run")
        }
        var length: Int64 = 0
        if kind != .reset {
            guard let l = try r.fixed("for_s", places: 6, range: 1_000...31_536_000_000_000, unit: "s") else {
                throw r.fail("for_s", nil, "missing: how long the fault lasts, seconds")
            }
            length = l
        }
        try r.finish()
        return SimFaultSpec(kind, from: at, to: at + length)
    }
}
