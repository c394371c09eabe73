import JoltCore

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
