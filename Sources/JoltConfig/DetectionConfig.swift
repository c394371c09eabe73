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
        if let t = try r.integer("gravity_tau_ms", 50...10_000, "ms") { d.gravityTauMillis = t }
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
        var s = d.shake
        if let v = try r.milli("threshold_g", 50...16_000, "g") { s.thresholdMilliG = v }
        if let v = try r.milli("strong_g", 50...32_000, "g") { s.strongMilliG = v }
        // A threshold raised past the unwritten strong_g takes it along: the profile said only
        // threshold_g, and an error about a key it never wrote would not help.
        else if r.has("threshold_g") { s.strongMilliG = max(s.strongMilliG, s.thresholdMilliG) }
        if let v = try r.milli("hysteresis_g", 20...8_000, "g") { s.hysteresisMilliG = v }
        if let v = try r.integer("min_lobes", 2...12) { s.minLobes = v }
        if let v = try r.integer("min_half_period_ms", 5...1000, "ms") { s.minHalfPeriodMillis = v }
        if let v = try r.integer("max_half_period_ms", 20...2000, "ms") { s.maxHalfPeriodMillis = v }
        if let v = try r.fixed("max_half_period_ratio", places: 2, range: 100...1000, unit: "") { s.maxHalfPeriodRatioPercent = Int32(v) }
        if let v = try r.integer("quiet_ms", 50...10_000, "ms") { s.quietMillis = v }
        if let v = try r.integer("quiet_before_ms", 0...10_000, "ms") { s.quietBeforeMillis = v }
        if let v = try r.fixed("calm_pair", places: 2, range: 0...200, unit: "") { s.calmPairPercent = Int32(v) }
        if let v = try r.fixed("opposition", places: 2, range: 0...100, unit: "") { s.oppositionPercent = Int32(v) }
        if let v = try r.fixed("fill", places: 2, range: 0...100, unit: "") { s.fillPercent = Int32(v) }
        if let v = try r.fixed("clipped_opposition", places: 2, range: 0...100, unit: "") { s.clippedOppositionPercent = Int32(v) }
        if let v = try r.integer("refractory_ms", 0...60_000, "ms") {
            s.refractoryMillis = v
            d.phoneShake.refractoryMillis = v
        }
        if let v = try r.integer("max_duration_ms", 200...600_000, "ms") { s.maxDurationMillis = v }
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
        d.shake = s
        var p = d.phoneShake
        if let v = try r.milli("axis_threshold_g", 100...32_000, "g") { p.axisThresholdMilliG = v }
        if let v = try r.fixed("lowpass_factor", places: 3, range: 1...1000, unit: "") { p.lowpassFactorPerMille = Int32(v) }
        if let v = try r.milli("lowpass_delta_g", 10...16_000, "g") { p.lowpassDeltaMilliG = v }
        if let v = try r.milli("planar_g", 100...32_000, "g") { p.planarMilliG = v }
        if let v = try r.milli("window_g", 100...32_000, "g") { p.windowMilliG = v }
        if let v = try r.integer("window_min_ms", 20...2_000, "ms") { p.windowMinMillis = v }
        d.phoneShake = p
        try r.finish()
    }

    package static func g(_ mg: Int32) -> String { ObjectReader.clean(TraceWriter.decimal(Int64(mg), places: 3, trim: true)) }

    package static func parseFlip(_ r: ObjectReader, _ d: inout DetectionSettings) throws(JoltError) {
        if let a = try r.choice("algorithm", FlipAlgorithm.allCases.map { "\($0.name)" }) {
            d.flipAlgorithm = FlipAlgorithm.allCases.first { "\($0.name)" == a }!
        }
        var f = d.flip
        if let v = try r.fixed("face_down_angle_deg", places: 1, range: 10...890, unit: "degrees") { f.faceDownAngleDeci = Int32(v) }
        if let v = try r.fixed("release_angle_deg", places: 1, range: 10...1790, unit: "degrees") { f.releaseAngleDeci = Int32(v) }
        if let v = try r.milli("still_g", 5...1000, "g") { f.stillMilliG = v }
        if let v = try r.milli("still_rate_dps", 100...2_000_000, "°/s") { f.stillRateMdps = v }
        if let v = try r.integer("hold_ms", 0...10_000, "ms") { f.holdMillis = v }
        if let v = try r.integer("flip_window_ms", 100...60_000, "ms") { f.flipWindowMillis = v }
        if let v = try r.integer("release_ms", 0...10_000, "ms") { f.releaseMillis = v }
        if f.releaseAngleDeci <= f.faceDownAngleDeci {
            throw r.fail("release_angle_deg", r.node("release_angle_deg"), "must be larger than face_down_angle_deg")
        }
        d.flip = f
        var p = d.phoneFlip
        if let v = try r.milli("phone_gravity_z_g", 100...1000, "g") { p.gravityZMilliG = v }
        if let v = try r.milli("phone_rate_dps", 1000...2_000_000, "°/s") { p.rateMdps = v }
        d.phoneFlip = p
        try r.finish()
    }

    package static func parseTamper(_ r: ObjectReader, _ d: inout DetectionSettings) throws(JoltError) {
        var t = d.tamper
        if let v = try r.fixed("tilt_deg", places: 1, range: 5...900, unit: "degrees") { t.tiltDeci = Int32(v) }
        if let v = try r.integer("move_mm_s", 5...1000, "mm/s") { t.moveSpeedMMs = v }
        if let v = try r.integer("move_ms", 20...2000, "ms") { t.moveMillis = v }
        // The motion meter these set is gone (a slammed door filled it).
        r.retired("motion_g", replacedBy: "move_mm_s and move_ms")
        r.retired("motion_ms", replacedBy: "move_mm_s and move_ms")
        if let v = try r.integer("holdoff_ms", 0...600_000, "ms") { t.holdoffMillis = v }
        d.tamper = t
        try r.finish()
    }
}
