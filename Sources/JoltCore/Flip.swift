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
