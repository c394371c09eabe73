import JoltCore

/// Two simple tamper rules, kept in the core to compare Jolt's tamper detector against (as the
/// phone shake algorithms are kept for the shake).

/// The ADXL345's own activity interrupt, as its data sheet suggests for "has it moved":
/// AC-coupled (the reading when armed is the reference), any axis, THRESH_ACT 0.25 g
/// (Analog Devices ADXL345, Rev. G, "Register 0x27—ACT_INACT_CTL" and "THRESH_ACT").
public struct ActivityTamper: Sendable {
    public let thresholdMilliG: Int32
    @usableFromInline var reference = Vec3.zero
    @usableFromInline var armed = false
    @usableFromInline var referenced = false

    public init(thresholdMilliG: Int32 = 250) { self.thresholdMilliG = thresholdMilliG }

    /// Arms: the next sample is the reference.
    public mutating func arm() {
        armed = true
        referenced = false
    }

    /// Whether `s` differs from the reference by more than the threshold on any axis.
    @inlinable
    public mutating func update(_ s: Sample) -> Bool {
        guard armed else { return false }
        guard referenced else {
            reference = s.accel
            referenced = true
            return false
        }
        return !(s.accel - reference).within(thresholdMilliG)
    }
}

/// "Tilted past 10° from where it was armed": the gravity estimate against the armed one, and
/// nothing else.
public struct TiltTamper: Sendable {
    @usableFromInline var reference = Vec3.zero
    @usableFromInline var reference2: Int64 = 0
    @usableFromInline var armed = false
    @usableFromInline let cos2Q30: Int64

    public init(tiltDeci: Int32 = 100) {
        let c = Int64(Trig.cosQ15(deciDegrees: tiltDeci))
        cos2Q30 = c * c
    }

    public mutating func arm(gravity: Vec3) {
        armed = true
        reference = gravity
        reference2 = gravity.lengthSquared
    }

    /// Whether `gravity` (mg) is tilted past the angle from the armed reference.
    @inlinable
    public func tilted(_ gravity: Vec3) -> Bool {
        armed && Tamper.tilted(gravity, from: reference, reference2: reference2, cos2Q30: cos2Q30)
    }
}
