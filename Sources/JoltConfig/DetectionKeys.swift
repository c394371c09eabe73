import JoltCore
import JoltSupport
import JoltTrace

/// One number of the `detection` section, declared once: where a profile writes it, how (its
/// decimal places, and its range in the unit the detectors keep), the setting it fills, and what
/// it means. The loader reads the section by these, docs/config.md and its sample profile are
/// made from them, and `jolt tune` and an event's `"setting"` name them.
///
/// `@unchecked Sendable`: a key path literal is an immutable value.
package struct DetectionKey: @unchecked Sendable {
    /// A setting that moves with it.
    package enum Companion {
        case none
        /// Kept at least as large: `strong_g` follows a `threshold_g` raised past it (a value
        /// the profile writes for it later still wins).
        case atLeast(WritableKeyPath<DetectionSettings, Int32>)
        /// Given the same value: the phone algorithms share Jolt's refractory time.
        case same(WritableKeyPath<DetectionSettings, Int32>)
    }

    /// Its object within `detection`: "shake", "flip", "tamper", or "" for `detection` itself.
    package let section: String
    package let name: String
    /// Decimal places from the kept unit to the profile's: 0 (milliseconds, counts), 1 (tenths
    /// of a degree), 2 (hundredths of a ratio), 3 (mg, thousandths of a degree a second).
    package let places: Int
    /// What a profile may give, in the kept unit.
    package let range: ClosedRange<Int64>
    /// The profile's unit as an error names it: "g", "ms", "degrees"; "" for a ratio or a count.
    package let unit: String
    package let field: WritableKeyPath<DetectionSettings, Int32>
    package let companion: Companion
    package let meaning: String

    init(_ section: String, _ name: String, places: Int = 0, _ range: ClosedRange<Int64>, _ unit: String,
         _ field: WritableKeyPath<DetectionSettings, Int32>, _ companion: Companion = .none, meaning: String) {
        self.section = section
        self.name = name
        self.places = places
        self.range = range
        self.unit = unit
        self.field = field
        self.companion = companion
        self.meaning = meaning
    }

    /// "detection.shake.threshold_g".
    package var path: String { "detection." + (section.isEmpty ? "" : section + ".") + name }

    /// A kept value as a profile writes it: "0.7" (g), "10" (degrees), "500" (ms).
    package func text(_ v: Int32) -> String {
        places == 0 ? "\(v)" : ObjectReader.clean(TraceWriter.decimal(Int64(v), places: places, trim: true))
    }

    /// Sets it in `d`, with its companion.
    package func set(_ v: Int32, in d: inout DetectionSettings) {
        d[keyPath: field] = v
        switch companion {
        case .none: break
        case .atLeast(let other): d[keyPath: other] = max(d[keyPath: other], v)
        case .same(let other): d[keyPath: other] = v
        }
    }

    /// Reads it from its section's object, if the profile gives it, into `d`.
    func read(_ r: ObjectReader, into d: inout DetectionSettings) throws(JoltError) {
        let v = places == 0
            ? try r.integer(name, range, unit)
            : try r.fixed(name, places: places, range: range, unit: unit).map { Int32($0) }
        if let v { set(v, in: &d) }
    }
}

/// Every number of the `detection` section, in the order the loader reads them (which is the
/// order docs/config.md lists them in).
package enum DetectionKeys {
    package static let gravityTau = DetectionKey("", "gravity_tau_ms", 50...10_000, "ms", \.gravityTauMillis,
        meaning: "Time constant of the gravity estimate the detectors share.")

    package static let shakeThreshold = DetectionKey(
        "shake", "threshold_g", places: 3, 50...16_000, "g", \.shake.thresholdMilliG, .atLeast(\.shake.strongMilliG),
        meaning: "A lobe of dynamic acceleration (gravity removed) counts when its peak reaches this.")

    package static let calmPair = DetectionKey("shake", "calm_pair", places: 2, 0...200, "", \.shake.calmPairPercent,
        meaning: """
            A shake from a still hand (nothing past `hysteresis_g` for `quiet_before_ms`) is \
            recognised at its second lobe when that lobe comes within 200 ms of the first and \
            reaches this share of its peak; 0 turns the rule off (`min_lobes`, or two `strong_g` \
            lobes).
            """)

    package static let shake: [DetectionKey] = [
        shakeThreshold,
        DetectionKey("shake", "strong_g", places: 3, 50...32_000, "g", \.shake.strongMilliG,
            meaning: """
                Two opposite lobes in a row both past this make a shake at once; gentler ones need \
                `min_lobes`. Neither applies to a shake from rest (nothing past `hysteresis_g` for \
                `quiet_before_ms`) whose second lobe comes within 200 ms at `calm_pair` of the \
                first's peak, when that is on (`high`): that is a shake at its second lobe.
                """),
        DetectionKey("shake", "hysteresis_g", places: 3, 20...8_000, "g", \.shake.hysteresisMilliG,
            meaning: "A lobe ends when the level falls below this; below threshold_g."),
        DetectionKey("shake", "min_lobes", 2...12, "", \.shake.minLobes,
            meaning: """
                Alternating lobes in a row that make a shake when they are not strong (`strong_g`); \
                a quick pair from rest is one sooner (see `strong_g`).
                """),
        DetectionKey("shake", "min_half_period_ms", 5...1000, "ms", \.shake.minHalfPeriodMillis,
            meaning: "Shortest time between lobes (a knock rings faster)."),
        DetectionKey("shake", "max_half_period_ms", 20...2000, "ms", \.shake.maxHalfPeriodMillis,
            meaning: "Longest time between lobes (a stride is slower)."),
        DetectionKey("shake", "max_half_period_ratio", places: 2, 100...1000, "", \.shake.maxHalfPeriodRatioPercent,
            meaning: "How irregular the rhythm may be: the longest half period over the shortest."),
        DetectionKey("shake", "quiet_ms", 50...10_000, "ms", \.shake.quietMillis,
            meaning: "Quiet time that ends a shake."),
        DetectionKey("shake", "quiet_before_ms", 0...10_000, "ms", \.shake.quietBeforeMillis,
            meaning: "Quiet needed before a shake can begin (walking never gives it)."),
        calmPair,
        DetectionKey("shake", "opposition", places: 2, 0...100, "", \.shake.oppositionPercent,
            meaning: "How opposed successive lobes must be (1: exactly back and forth)."),
        DetectionKey("shake", "fill", places: 2, 0...100, "", \.shake.fillPercent,
            meaning: "How much of the time between lobes must be above the hysteresis level."),
        DetectionKey("shake", "clipped_opposition", places: 2, 0...100, "", \.shake.clippedOppositionPercent,
            meaning: "The opposition required when the chip clips at its full scale."),
        DetectionKey(
            "shake", "refractory_ms", 0...60_000, "ms", \.shake.refractoryMillis, .same(\.phoneShake.refractoryMillis),
            meaning: "After a shake ends, no new one for this long (the phone algorithms use it too)."),
        DetectionKey("shake", "max_duration_ms", 200...600_000, "ms", \.shake.maxDurationMillis,
            meaning: "A shake longer than this is cancelled (a machine vibrating, not a hand)."),
        DetectionKey("shake", "axis_threshold_g", places: 3, 100...32_000, "g", \.phoneShake.axisThresholdMilliG,
            meaning: "`threshold` algorithm: the per-axis level."),
        DetectionKey("shake", "lowpass_factor", places: 3, 1...1000, "", \.phoneShake.lowpassFactorPerMille,
            meaning: "`lowpass` algorithm: the filter factor at 60 Hz."),
        DetectionKey("shake", "lowpass_delta_g", places: 3, 10...16_000, "g", \.phoneShake.lowpassDeltaMilliG,
            meaning: "`lowpass` algorithm: the change that counts."),
        DetectionKey("shake", "planar_g", places: 3, 100...32_000, "g", \.phoneShake.planarMilliG,
            meaning: "`planar` algorithm: the x-y magnitude that counts."),
        DetectionKey("shake", "window_g", places: 3, 100...32_000, "g", \.phoneShake.windowMilliG,
            meaning: "`window` algorithm: the magnitude that counts."),
        DetectionKey("shake", "window_min_ms", 20...2_000, "ms", \.phoneShake.windowMinMillis,
            meaning: "`window` algorithm: how long it must last."),
    ]

    package static let flip: [DetectionKey] = [
        DetectionKey("flip", "face_down_angle_deg", places: 1, 10...890, "degrees", \.flip.faceDownAngleDeci,
            meaning: "Within this angle of straight down counts as face down."),
        DetectionKey("flip", "release_angle_deg", places: 1, 10...1790, "degrees", \.flip.releaseAngleDeci,
            meaning: "Past this angle from straight down counts as face up again; above face_down_angle_deg."),
        DetectionKey("flip", "still_g", places: 3, 5...1000, "g", \.flip.stillMilliG,
            meaning: """
                Still: every axis keeps within a band twice this wide, and the line fitted through \
                its readings drifts by less than half this over the spell.
                """),
        DetectionKey("flip", "still_rate_dps", places: 3, 100...2_000_000, "°/s", \.flip.stillRateMdps,
            meaning: "Rotation rate below this counts as still."),
        DetectionKey("flip", "hold_ms", 0...10_000, "ms", \.flip.holdMillis,
            meaning: "How long it must lie still face down."),
        DetectionKey("flip", "flip_window_ms", 100...60_000, "ms", \.flip.flipWindowMillis,
            meaning: "The turn over must have happened within this long before settling."),
        DetectionKey("flip", "release_ms", 0...10_000, "ms", \.flip.releaseMillis,
            meaning: "How long past the release angle before `face_up`."),
        DetectionKey("flip", "phone_gravity_z_g", places: 3, 100...1000, "g", \.phoneFlip.gravityZMilliG,
            meaning: "`phone` rule: gravity z past this (negative, face down)."),
        DetectionKey("flip", "phone_rate_dps", places: 3, 1000...2_000_000, "°/s", \.phoneFlip.rateMdps,
            meaning: "`phone` rule: the rotation rate that counts as turning."),
    ]

    package static let tilt = DetectionKey("tamper", "tilt_deg", places: 1, 5...900, "degrees", \.tamper.tiltDeci,
        meaning: "Tilt from the armed orientation that counts as tamper.")
    package static let moveSpeed = DetectionKey("tamper", "move_mm_s", 5...1000, "mm/s", \.tamper.moveSpeedMMs,
        meaning: """
            The speed, measured by integrating the acceleration, that counts as the kiosk moving (a \
            tap's comes back to zero within tens of milliseconds).
            """)

    package static let tamper: [DetectionKey] = [
        tilt,
        moveSpeed,
        DetectionKey("tamper", "move_ms", 20...2000, "ms", \.tamper.moveMillis,
            meaning: """
                How long the kiosk must keep moving the same way: a slide or a lift does, a ringing \
                counter does not.
                """),
        DetectionKey("tamper", "holdoff_ms", 0...600_000, "ms", \.tamper.holdoffMillis,
            meaning: "After a tamper event, the next one is held off this long."),
    ]

    package static var all: [DetectionKey] { [gravityTau] + shake + flip + tamper }
}
