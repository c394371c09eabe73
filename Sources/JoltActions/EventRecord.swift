import JoltCore
import JoltJSON
import JoltTrace
import JoltConfig
import JoltLinux
import JoltSupport

/// One event as Jolt reports it: on stdout (human text or a JSON line), to actions, to logs.
///
/// The JSON form is a contract read by tools outside Jolt: keys are added, never renamed.
///   {"t":12.34,"event":"shake","phase":"began","algorithm":"jolt","peak_g":2.13}
///   {"t":14.1,"event":"shake","phase":"ended","algorithm":"jolt","peak_g":2.41,"duration_s":1.76}
///   {"t":20.5,"event":"flip","state":"face_down","algorithm":"jolt"}
///   {"t":31.0,"event":"tamper","reason":"moved","mm_s":61,"ms":180}
///   {"t":31.0,"event":"alarm","state":"triggered","from":"armed","cause":"tamper","reason":"moved","mm_s":61,"ms":180}
///   {"t":33.2,"event":"walk_test","cause":"tamper","reason":"moved","mm_s":61,"ms":180,"margin":3.05,"setting":"move_mm_s"}
///   {"t":40.2,"event":"fault","detail":"..."}  {"t":41.0,"event":"recovered","detail":"...","gap_s":0.8}
public struct EventRecord: Equatable, Sendable {
    /// What happened.
    public enum Kind: Equatable, Sendable {
        case shake(ShakePhase)
        case flip(FaceState)
        case tamper
        case alarm(AlarmTransition)
        /// A walk test (`alarm.mode: "test"`): this would have triggered the alarm.
        case walkTest(AlarmTransition.Cause)
        case fault
        case recovered
    }

    /// Time, µs, on the stream's clock (a trace's own time for replay).
    public var t: Int64
    public var kind: Kind
    /// The algorithm that raised it (shake and flip events).
    public var algorithm: String?
    /// A shake's largest dynamic acceleration, mg.
    public var peakMilliG: Int32?
    /// A shake's duration from began, µs (ended, cancelled).
    public var durationMicros: Int64?
    /// Free text for faults.
    public var detail: String?
    /// The trace it came from (replay).
    public var file: String?
    /// Recovered: the span of data that is missing, µs.
    public var gapMicros: Int64?
    /// A tamper, and the alarm triggering: why (`TriggerReason`).
    public var reason: TriggerReason?
    /// A walk test: how far past its setting the trigger went.
    public var margin: TriggerMargin?
    /// The alarm triggering: the file its evidence goes to (the readings 10 s either side).
    public var evidence: String?

    public init(t: Int64, kind: Kind, algorithm: String? = nil, peakMilliG: Int32? = nil,
                durationMicros: Int64? = nil, detail: String? = nil, file: String? = nil, gapMicros: Int64? = nil,
                reason: TriggerReason? = nil, margin: TriggerMargin? = nil) {
        self.t = t
        self.kind = kind
        self.algorithm = algorithm
        self.peakMilliG = peakMilliG
        self.durationMicros = durationMicros
        self.detail = detail
        self.file = file
        self.gapMicros = gapMicros
        self.reason = reason
        self.margin = margin
    }

    /// Its kind's declaration (`EventKinds`: names, bindings, retained state, entity) and its
    /// variant there. The one place a record's kind meets its declaration.
    public var declared: (kind: EventKind, variant: String?) {
        switch kind {
        case .shake(let p): return (EventKinds.shake, Self.phaseName(p))
        case .flip(let s): return (EventKinds.flip, Self.stateName(s))
        case .tamper: return (EventKinds.tamper, nil)
        case .alarm(let tr): return (EventKinds.alarm, Self.alarmName(tr.to))
        case .walkTest: return (EventKinds.walkTest, nil)
        case .fault: return (EventKinds.fault, nil)
        case .recovered: return (EventKinds.recovered, nil)
        }
    }

    /// The name an action binding uses: `shake.began`, `flip.face_down`, `tamper`,
    /// `alarm.triggered`, `fault`, …
    public var bindingName: String {
        let (k, v) = declared
        return v.map { k.name + "." + $0 } ?? k.name
    }

    /// Every binding this event answers to: its name, and `alarm.cleared` when the alarm stops
    /// sounding (whether it was disarmed or re-armed after its maximum).
    public var bindingNames: [String] {
        if case .alarm(let tr) = kind, tr.from == .triggered { return [bindingName, "alarm.cleared"] }
        return [bindingName]
    }

    /// Every binding name (the configuration's list).
    public static var bindingNames: [String] { EventBinding.names }

    package static func phaseName(_ p: ShakePhase) -> String {
        switch p {
        case .began: return "began"
        case .ended: return "ended"
        case .cancelled: return "cancelled"
        }
    }

    package static func stateName(_ s: FaceState) -> String { s == .faceDown ? "face_down" : "face_up" }

    /// The alarm state's name in events and on the control socket.
    public static func alarmName(_ s: AlarmState) -> String {
        switch s {
        case .disarmed: return "disarmed"
        case .arming: return "arming"
        case .armed: return "armed"
        case .triggered: return "triggered"
        case .pending: return "pending"
        }
    }

    /// The arming mode's name: "away", "home", "night".
    public static func modeName(_ m: ArmMode) -> String {
        switch m {
        case .away: return "away"
        case .home: return "home"
        case .night: return "night"
        }
    }

    package static func causeName(_ c: AlarmTransition.Cause) -> String {
        switch c {
        case .armCommand: return "arm"
        case .disarmCommand: return "disarm"
        case .graceOver: return "grace_over"
        case .shake: return "shake"
        case .flip: return "flip"
        case .tamper: return "tamper"
        case .timeout: return "timeout"
        case .restored: return "restored"
        case .panic: return "panic"
        case .sensor: return "sensor"
        }
    }

    /// Seconds with up to 6 decimals, trailing zeros trimmed: 12.34, 20.5, 31.0.
    package static func seconds(_ t: Int64) -> String { TraceWriter.decimal(t, places: 6, trim: true) }

    package static func g(_ mg: Int32) -> String {
        // Two decimals of g, rounded half away from zero.
        let v = (Int64(mg) + (mg >= 0 ? 5 : -5)) / 10
        return TraceWriter.decimal(v, places: 2, trim: false)
    }

    /// The event as a JSON object (the `--json` schema: keys in this order, never renamed).
    public var jsonValue: JSON {
        let (k, variant) = declared
        var f: [(String, JSON)] = [("t", .decimal(Self.seconds(t))), ("event", .string(k.name))]
        if let key = k.variantKey, let variant { f.append((key, .string(variant))) }
        if case .alarm(let tr) = kind { f += [("from", .string(Self.alarmName(tr.from))), ("cause", .string(Self.causeName(tr.cause)))] }
        if case .walkTest(let c) = kind { f.append(("cause", .string(Self.causeName(c)))) }
        if let a = algorithm { f.append(("algorithm", .string(a))) }
        if let p = peakMilliG { f.append(("peak_g", .decimal(Self.g(p)))) }
        if let d = durationMicros { f.append(("duration_s", .decimal(TraceWriter.decimal((d + 500) / 1000, places: 3, trim: true)))) }
        if let d = detail { f.append(("detail", .string(d))) }
        if let file { f.append(("file", .string(file))) }
        if let g = gapMicros { f.append(("gap_s", .decimal(TraceWriter.decimal((g + 500) / 1000, places: 3, trim: true)))) }
        if let reason { f += reason.jsonFields }
        if let margin { f += margin.jsonFields }
        if let evidence { f.append(("evidence", .string(evidence))) }
        return .members(f)
    }

    /// One JSON object, no newline.
    public var json: String { jsonValue.text }

    /// A short human line, no newline: `  12.340 s  shake began (peak 2.13 g)`.
    public var human: String {
        var s = TraceWriter.decimal(t / 1000, places: 3, trim: false) + " s  "
        while s.count < 13 { s = " " + s }
        let (k, variant) = declared
        if let r = reason, case .tamper = kind {
            s += k.name + ": " + r.text + (margin.map { " (" + $0.text + ")" } ?? "")
        } else {
            s += k.says + (variant.map { " " + $0.replacingUnderscores } ?? "")
        }
        if case .walkTest(let c) = kind {
            let what = LastTrigger(cause: c, reason: reason, wallMicros: 0).text
            s += " (" + what + (margin.map { ", " + $0.text } ?? "") + ")"
        }
        if case .alarm(let tr) = kind {
            s += " (was \(Self.alarmName(tr.from)), \(Self.causeName(tr.cause).replacingUnderscores)\(reason.map { ": " + $0.text } ?? ""))"
        }
        var extra: [String] = []
        if let p = peakMilliG { extra.append("peak \(Self.g(p)) g") }
        if let d = durationMicros { extra.append("lasted \(TraceWriter.decimal((d + 5000) / 10000, places: 2, trim: false)) s") }
        if let g = gapMicros { extra.append("\(TraceWriter.decimal((g + 5000) / 10000, places: 2, trim: false)) s of data missing") }
        if !extra.isEmpty { s += " (" + extra.joined(separator: ", ") + ")" }
        if let d = detail { s += ": " + d }
        return s
    }
}

extension String {
    /// "face_down" → "face down".
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
