import JoltChips
import JoltJSON
import JoltCore
import JoltLinux
import JoltTrace
import JoltDrivers
import JoltSupport

/// The `detection` section: a preset, then the shake, flip and tamper settings it tunes.
extension BoardProfile {
    /// Reads the `detection` section (absent: the medium preset).
    package static func parseDetection(_ r: ObjectReader?, sensitivity override: Sensitivity? = nil) throws(JoltError) -> DetectionSettings {
        var sensitivity = Sensitivity.medium
        if let r, let s = try r.choice("sensitivity", ["low", "medium", "high"]) {
            sensitivity = Sensitivity(name: s)!
        }
        var d = DetectionSettings(sensitivity: override ?? sensitivity, rateMilliHz: 100_000, gyro: true)
        guard let r else { return d }
        try DetectionKeys.gravityTau.read(r, into: &d)
        if let s = try r.object("shake") { try parseShake(s, &d) }
        if let f = try r.object("flip") { try parseFlip(f, &d) }
        if let t = try r.object("tamper") { try parseTamper(t, &d) }
        try r.finish()
        return d
    }

    package static func parseShake(_ r: ObjectReader, _ d: inout DetectionSettings) throws(JoltError) {
        if let a = try r.choice("algorithm", ShakeAlgorithm.allCases.map { "\($0.name)" }) {
            d.shakeAlgorithm = ShakeAlgorithm.allCases.first { "\($0.name)" == a }!
        }
        for key in DetectionKeys.shake { try key.read(r, into: &d) }
        let s = d.shake
        if s.hysteresisMilliG >= s.thresholdMilliG {
            if !r.has("hysteresis_g") {
                throw r.fail("threshold_g", r.node("threshold_g"), "must be above hysteresis_g (\(g(s.thresholdMilliG)) ≤ \(g(s.hysteresisMilliG)) g, its default): raise threshold_g, or set hysteresis_g below it")
            }
            throw r.fail("hysteresis_g", r.node("hysteresis_g"), "must be below threshold_g (\(g(s.hysteresisMilliG)) ≥ \(g(s.thresholdMilliG)) g)")
        }
        if s.strongMilliG < s.thresholdMilliG {
            throw r.fail("strong_g", r.node("strong_g"), "must be at least threshold_g (\(g(s.strongMilliG)) < \(g(s.thresholdMilliG)) g)")
        }
        if s.maxHalfPeriodMillis <= s.minHalfPeriodMillis {
            throw r.fail("max_half_period_ms", r.node("max_half_period_ms"), "must be above min_half_period_ms (\(s.maxHalfPeriodMillis) ≤ \(s.minHalfPeriodMillis))")
        }
        try r.finish()
    }

    package static func g(_ mg: Int32) -> String { ObjectReader.clean(TraceWriter.decimal(Int64(mg), places: 3, trim: true)) }

    package static func parseFlip(_ r: ObjectReader, _ d: inout DetectionSettings) throws(JoltError) {
        if let a = try r.choice("algorithm", FlipAlgorithm.allCases.map { "\($0.name)" }) {
            d.flipAlgorithm = FlipAlgorithm.allCases.first { "\($0.name)" == a }!
        }
        for key in DetectionKeys.flip { try key.read(r, into: &d) }
        if d.flip.releaseAngleDeci <= d.flip.faceDownAngleDeci {
            throw r.fail("release_angle_deg", r.node("release_angle_deg"), "must be larger than face_down_angle_deg")
        }
        try r.finish()
    }

    package static func parseTamper(_ r: ObjectReader, _ d: inout DetectionSettings) throws(JoltError) {
        for key in DetectionKeys.tamper { try key.read(r, into: &d) }
        // The motion meter these set is gone (a slammed door filled it).
        r.retired("motion_g", replacedBy: "move_mm_s and move_ms")
        r.retired("motion_ms", replacedBy: "move_mm_s and move_ms")
        try r.finish()
    }
}
