/// Jolt's flip detector: the device turned over and settled face down.
///
/// What it measures: *settled* means no axis of acceleration has moved more than `still` from
/// where it came to rest (and, with a gyroscope, no axis turns faster than `stillRate`) for
/// `hold`; *face down* means the settled reading is within `faceDownAngle` of -z; *turned over*
/// means that the device was tilted past the release angle no more than `flipWindow` before it
/// came to rest. A hand or a wrist that swings through face down never settles there, and a device
/// slowly drifting there did not turn over. `face_up` follows when the acceleration has stayed past
/// the release angle for `release` (a knock on the table is shorter than that).
///
/// Works from the accelerometer alone; the gyroscope, when present, only tightens "settled".
public struct JoltFlip: Sendable {
    @usableFromInline let downZ: Int32
    @usableFromInline let releaseZ: Int32
    @usableFromInline let still: Int32
    @usableFromInline let stillRate: Int32
    @usableFromInline let useGyro: Bool
    @usableFromInline let hold: Int64
    @usableFromInline let window: Int64
    @usableFromInline let release: Int64

    @usableFromInline var anchor = Vec3.zero
    @usableFromInline var stillSince: Int64 = .min
    @usableFromInline var lastNotDown: Int64 = .min
    @usableFromInline var releaseSince: Int64 = .min
    /// Whether the device is face down (as last reported).
    @inlinable public var isFaceDown: Bool { _isFaceDown }
    @usableFromInline var _isFaceDown: Bool = false

    /// A detector with `settings`; `gyro` says whether samples carry rotation rate.
    public init(settings s: FlipSettings, gyro: Bool) {
        downZ = -Trig.cosMilli(deciDegrees: s.faceDownAngleDeci)
        releaseZ = -Trig.cosMilli(deciDegrees: s.releaseAngleDeci)
        still = s.stillMilliG
        stillRate = s.stillRateMdps
        useGyro = gyro
        hold = Int64(s.holdMillis) * Units.microsPerMilli
        window = Int64(s.flipWindowMillis) * Units.microsPerMilli
        release = Int64(s.releaseMillis) * Units.microsPerMilli
    }

    /// Feeds one sample; `gravity` is the current gravity estimate in mg.
    @inlinable @inline(__always)
    public mutating func update(_ s: Sample, gravity: Vec3) -> FaceState? {
        let a = s.accel
        if !(a - anchor).within(still) || (useGyro && !s.gyro.within(stillRate)) {
            anchor = a
            stillSince = s.t
        }
        if _isFaceDown {
            if a.z > releaseZ {
                if releaseSince == .min { releaseSince = s.t }
                if s.t - releaseSince >= release {
                    _isFaceDown = false
                    return .faceUp
                }
            } else {
                releaseSince = .min
            }
            return nil
        }
        if a.z > releaseZ {
            lastNotDown = s.t
            return nil
        }
        if a.z <= downZ && s.t - stillSince >= hold && lastNotDown != .min
            && stillSince - lastNotDown <= window
        {
            _isFaceDown = true
            releaseSince = .min
            return .faceDown
        }
        return nil
    }

    /// Narrows `box` to the readings for which `update` changes nothing but what `rest` does:
    /// still (within `still` of the anchor, the gyroscope within `stillRate`), and on the same
    /// side of the release angle, with no release under way.
    @inlinable @inline(__always)
    public func restBox(_ box: inout RestBox) -> Bool {
        box.limit(around: anchor, within: still)
        if useGyro { box.limitRotation(stillRate) }
        if _isFaceDown {
            guard releaseSince == .min else { return false }
            box.limitZ(hi: releaseZ)
        } else {
            box.limitZ(lo: releaseZ &+ 1)
        }
        return true
    }

    /// What `update` does with a sample in its `restBox`: face up, it notes the time.
    @inlinable @inline(__always)
    public mutating func rest(at t: Int64) {
        if !_isFaceDown { lastNotDown = t }
    }

    /// Forgets motion history (a gap in the data); the reported orientation is kept.
    public mutating func reset() {
        stillSince = .min
        anchor = .zero
    }
}

/// `phone`: the flip rule of phone "flip to mute" features: the accelerometer's z past 0.85 g
/// toward face down together with a rotation rate past 3.5 rad/s (within the last 0.5 s). Back
/// face up when z is past 0.85 g the other way. Needs a gyroscope; without one it never fires.
public struct PhoneFlip: Sendable {
    @usableFromInline let z: Int32
    @usableFromInline let rate2: Int64
    @usableFromInline let window: Int64
    @usableFromInline var lastFast: Int64 = .min
    /// Whether the device is face down (as last reported).
    @inlinable public var isFaceDown: Bool { _isFaceDown }
    @usableFromInline var _isFaceDown: Bool = false

    /// A detector with the phone settings.
    public init(settings s: PhoneFlipSettings) {
        z = s.gravityZMilliG
        rate2 = Int64(s.rateMdps) * Int64(s.rateMdps)
        window = Int64(s.rateWindowMillis) * Units.microsPerMilli
    }

    /// Feeds one sample.
    @inlinable
    public mutating func update(_ s: Sample) -> FaceState? {
        if s.gyro.lengthSquared > rate2 { lastFast = s.t }
        if !_isFaceDown {
            if s.accel.z < -z && lastFast != .min && s.t - lastFast <= window {
                _isFaceDown = true
                return .faceDown
            }
        } else if s.accel.z > z {
            _isFaceDown = false
            return .faceUp
        }
        return nil
    }

    /// Forgets motion history.
    public mutating func reset() { lastFast = .min }
}

/// `android`: AOSP's FaceDownDetector (flip to screen off). Moving averages (weight 0.5 per
/// sample) of z and of x²+y²; face down when the z average is below -9.5 m/s² for over 1 s and the
/// x²+y² average has not changed by more than 0.2 m²/s⁴ for 1 s; face up once z rises past the
/// lenient -8.5 m/s².
public struct AndroidFlip: Sendable {
    @usableFromInline let z: Int32
    @usableFromInline let lenientZ: Int32
    @usableFromInline let move: Int64
    @usableFromInline let hold: Int64
    @usableFromInline var avgXY: Int64 = 0
    @usableFromInline var avgZ: Int32 = 0
    @usableFromInline var prevXY: Int64 = 0
    @usableFromInline var lastMove: Int64 = .min
    @usableFromInline var downSince: Int64 = .min
    /// Whether the device is face down (as last reported).
    @inlinable public var isFaceDown: Bool { _isFaceDown }
    @usableFromInline var _isFaceDown: Bool = false

    /// A detector with the phone settings.
    public init(settings s: PhoneFlipSettings) {
        z = s.androidZMilliG
        lenientZ = s.androidLenientZMilliG
        move = Int64(s.androidMoveMilliG2)
        hold = Int64(s.androidHoldMillis) * Units.microsPerMilli
    }

    /// Feeds one sample.
    @inlinable
    public mutating func update(_ s: Sample) -> FaceState? {
        let x = Int64(s.accel.x), y = Int64(s.accel.y)
        avgXY = (avgXY + x * x + y * y) >> 1
        avgZ = Int32((Int64(avgZ) + Int64(s.accel.z)) >> 1)
        if lastMove == .min || (avgXY - prevXY).magnitude > move {
            prevXY = avgXY
            lastMove = s.t
        }
        let moving = s.t - lastMove <= hold
        let down = avgZ < (isFaceDown ? lenientZ : z)
        if down {
            if downSince == .min { downSince = s.t }
        } else {
            downSince = .min
        }
        let downForPeriod = down && s.t - downSince > hold
        if !moving && downForPeriod && !isFaceDown {
            _isFaceDown = true
            return .faceDown
        }
        if !downForPeriod && isFaceDown {
            _isFaceDown = false
            return .faceUp
        }
        return nil
    }

    /// Forgets motion history.
    public mutating func reset() {
        lastMove = .min
        downSince = .min
    }
}
