#if canImport(Glibc)
import Glibc
#endif
import JoltConfig
import JoltCore
import JoltJSON
import JoltSupport
import JoltTrace

/// Why a tamper fired or the alarm triggered, with the figure an owner reads: a slide or a lift
/// (`moved`: how fast, for how long), the start of a tilt (`tilting`) or a tilt (`tilt`: by how
/// many degrees), a shake (its peak), a flip, the panel's trigger (`panic`), or a sensor that went
/// silent (`sensor`: for how long).
///
/// In the JSON of a `tamper` event and an alarm's `triggered` event, as added keys:
///   "reason":"moved","mm_s":61,"ms":180     "reason":"tilt","deg":12.4
///   "reason":"tilting","deg":2.1            "reason":"shake","peak_g":2.41
///   "reason":"flip"                         "reason":"panic"
///   "reason":"sensor","ms":2000
public struct TriggerReason: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case moved, tilting, tilt, shake, flip, panic, sensor
    }

    public var kind: Kind
    /// Moved: the speed when it fired, mm/s, and how long it had kept going one way, ms. Sensor:
    /// how long it had sent nothing, ms.
    public var speedMMs: Int?
    public var millis: Int?
    /// Tilt, tilting: the angle, tenths of a degree (from the armed orientation; for the start of
    /// a tilt, across gravity from where the kiosk stood).
    public var deciDegrees: Int?
    /// Shake: its largest dynamic acceleration, mg.
    public var peakMilliG: Int32?

    public init(_ kind: Kind, speedMMs: Int? = nil, millis: Int? = nil, deciDegrees: Int? = nil, peakMilliG: Int32? = nil) {
        self.kind = kind
        self.speedMMs = speedMMs
        self.millis = millis
        self.deciDegrees = deciDegrees
        self.peakMilliG = peakMilliG
    }

    /// The reason the tamper detector gives for what it read when it fired.
    public init(_ r: TamperReading) {
        switch r.cause {
        case .moved:
            let v = r.velocityMMs
            let speed = (Double(v.x) * Double(v.x) + Double(v.y) * Double(v.y) + Double(v.z) * Double(v.z)).squareRoot()
            self.init(.moved, speedMMs: Int(speed.rounded()), millis: r.pushMicros.map { Int(($0 + 500) / 1000) })
        case .tilting:
            // The turn is across the baseline: the angle whose tangent is their ratio.
            let turn = Self.length(r.turnMilliG), base = Self.length(r.baselineMilliG)
            self.init(.tilting, deciDegrees: base > 0 ? Self.deci(atan2(turn, base)) : nil)
        case .tilted:
            self.init(.tilt, deciDegrees: Self.angle(r.gravity, r.reference).map(Self.deci))
        }
    }

    /// The reason for an alarm that `cause` triggered: the tamper's reading, a shake's peak
    /// (squared, mg²; 0 unknown), a flip, the panel.
    public init?(cause: AlarmTransition.Cause, tamper: TamperReading?, shakePeak2: Int64) {
        switch cause {
        case .tamper:
            guard let tamper else { return nil }
            self.init(tamper)
        case .shake:
            self.init(.shake, peakMilliG: shakePeak2 > 0 ? Int32(clamping: EventBuilder.isqrt(shakePeak2)) : nil)
        case .flip: self.init(.flip)
        case .panic: self.init(.panic)
        case .sensor: return nil   // the run loop knows for how long (`init(sensorSilentMicros:)`)
        case .armCommand, .disarmCommand, .graceOver, .timeout, .restored: return nil
        }
    }

    /// The reason for an alarm that a silent sensor triggered: silent for `micros`.
    public init(sensorSilentMicros micros: Int64) {
        self.init(.sensor, millis: Int((micros + 500) / 1000))
    }

    /// The keys it adds to an event's JSON.
    public var jsonFields: [(String, JSON)] {
        var f: [(String, JSON)] = [("reason", .string(kind.rawValue))]
        if let s = speedMMs { f.append(("mm_s", .int(s))) }
        if let m = millis { f.append(("ms", .int(m))) }
        if let d = deciDegrees { f.append(("deg", .decimal(TraceWriter.decimal(Int64(d), places: 1, trim: false)))) }
        if let p = peakMilliG { f.append(("peak_g", .decimal(EventRecord.g(p)))) }
        return f
    }

    /// What an owner reads: "moved 61 mm/s for 180 ms", "tilted 12.4°", "shaken (peak 2.41 g)",
    /// "sensor silent for 2000 ms".
    public var text: String {
        let deg = deciDegrees.map { " " + TraceWriter.decimal(Int64($0), places: 1, trim: false) + "°" } ?? ""
        switch kind {
        case .moved:
            // "for 0 ms": it fired (on its turn) as it passed the speed; nothing to say.
            return "moved" + (speedMMs.map { " \($0) mm/s" } ?? "") + (millis.flatMap { $0 > 0 ? " for \($0) ms" : nil } ?? "")
        case .tilting: return "tilting" + deg
        case .tilt: return "tilted" + deg
        case .shake: return "shaken" + (peakMilliG.map { " (peak \(EventRecord.g($0)) g)" } ?? "")
        case .flip: return "turned face down"
        case .panic: return "triggered from the panel"
        case .sensor: return "sensor silent" + (millis.map { " for \($0) ms" } ?? "")
        }
    }

    static func length(_ v: Vec3) -> Double {
        (Double(v.x) * Double(v.x) + Double(v.y) * Double(v.y) + Double(v.z) * Double(v.z)).squareRoot()
    }

    /// The angle between two vectors, radians (nil: either is zero): atan2 of the cross product's
    /// length and the dot product, which keeps small angles exact.
    package static func angle(_ a: Vec3, _ b: Vec3) -> Double? {
        let ax = Double(a.x), ay = Double(a.y), az = Double(a.z), bx = Double(b.x), by = Double(b.y), bz = Double(b.z)
        let cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx
        let dot = ax * bx + ay * by + az * bz
        let cross = (cx * cx + cy * cy + cz * cz).squareRoot()
        guard cross != 0 || dot != 0 else { return nil }
        return atan2(cross, dot)
    }

    /// Radians in tenths of a degree, rounded.
    package static func deci(_ radians: Double) -> Int { Int((radians * 1800 / Double.pi).rounded()) }
}

/// The alarm's last trigger, as `jolt status`, MQTT's state topic and Home Assistant's panel
/// show it: what triggered it, why, and when.
public struct LastTrigger: Equatable, Sendable {
    public var cause: AlarmTransition.Cause
    public var reason: TriggerReason?
    /// When, on the wall clock, µs since 1970.
    public var wallMicros: Int64

    public init(cause: AlarmTransition.Cause, reason: TriggerReason?, wallMicros: Int64) {
        self.cause = cause
        self.reason = reason
        self.wallMicros = wallMicros
    }

    /// "tamper: moved 61 mm/s for 180 ms", "shake: shaken (peak 2.41 g)", "panic".
    public var text: String {
        let c = EventRecord.causeName(cause)
        guard let r = reason, r.kind.rawValue != c else { return reason?.text ?? c }
        return c + ": " + r.text
    }

    /// {"cause":"tamper","reason":"moved","mm_s":61,"ms":180,"text":"tamper: moved 61 mm/s for 180 ms","utc":"…"}
    public var jsonValue: JSON {
        var f: [(String, JSON)] = [("cause", .string(EventRecord.causeName(cause)))]
        if let reason { f += reason.jsonFields }
        f.append(("text", .string(text)))
        f.append(("utc", .string(WallClock.iso8601(wallMicros))))
        return .members(f)
    }
}

/// How far past its setting a trigger went: the figure of its reason over the setting it passed
/// (a slide at 61 mm/s against `move_mm_s` 20: 3.05×). What a walk test reports, so that an owner
/// sees how much room a disturbance left, or how little a theft needed.
public struct TriggerMargin: Equatable, Sendable {
    /// The ratio, hundredths (305: 3.05×).
    public var hundredths: Int
    /// The setting it passed (`move_mm_s`); nil for a fixed limit (the start of a tilt).
    public var setting: String?
    /// The setting's value, as a person reads it: "20 mm/s", "10.0°", "1.80 g", "2000 ms".
    public var limit: String

    public init(hundredths: Int, setting: String?, limit: String) {
        self.hundredths = hundredths
        self.setting = setting
        self.limit = limit
    }

    /// The margin of `reason` against the settings it was judged by; nil for a reason without a
    /// figure (a flip, the panel).
    public init?(_ reason: TriggerReason, detection d: DetectionSettings, alarm a: AlarmSettings) {
        func ratio(_ v: Int, _ limit: Int) -> Int { limit > 0 ? (v * 100 + limit / 2) / limit : 0 }
        let deci = { (x: Int) in TraceWriter.decimal(Int64(x), places: 1, trim: false) + "°" }
        switch reason.kind {
        case .moved:
            guard let v = reason.speedMMs else { return nil }
            self.init(hundredths: ratio(v, Int(d.tamper.moveSpeedMMs)), setting: DetectionKeys.moveSpeed.name, limit: "\(d.tamper.moveSpeedMMs) mm/s")
        case .tilt:
            guard let v = reason.deciDegrees else { return nil }
            self.init(hundredths: ratio(v, Int(d.tamper.tiltDeci)), setting: DetectionKeys.tilt.name, limit: deci(Int(d.tamper.tiltDeci)))
        case .tilting:
            guard let v = reason.deciDegrees else { return nil }
            let start = TriggerReason.deci(atan2(Double(Movement.turnMilliG), 1000))
            self.init(hundredths: ratio(v, start), setting: nil, limit: deci(start) + " (the start of a tilt)")
        case .shake:
            guard let p = reason.peakMilliG else { return nil }
            // The service runs Jolt's own shake detector: its peak against its threshold.
            self.init(hundredths: ratio(Int(p), Int(d.shake.thresholdMilliG)), setting: DetectionKeys.shakeThreshold.name, limit: EventRecord.g(d.shake.thresholdMilliG) + " g")
        case .sensor:
            guard let ms = reason.millis, a.sensorLostMillis > 0 else { return nil }
            self.init(hundredths: ratio(ms, Int(a.sensorLostMillis)), setting: "sensor_lost_ms", limit: "\(a.sensorLostMillis) ms")
        case .flip, .panic:
            return nil
        }
    }

    /// "3.05"
    public var ratioText: String { TraceWriter.decimal(Int64(hundredths), places: 2, trim: false) }

    /// The keys it adds to an event's JSON: "margin":3.05,"setting":"move_mm_s".
    public var jsonFields: [(String, JSON)] {
        [("margin", .decimal(ratioText))] + (setting.map { [("setting", .string($0))] } ?? [])
    }

    /// "3.05× move_mm_s 20 mm/s", "1.40× 1.7° (the start of a tilt)".
    public var text: String { ratioText + "× " + (setting.map { $0 + " " } ?? "") + limit }
}
