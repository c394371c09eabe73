/// Integer trigonometry for configuration time: angles from settings become fixed-point cosines
/// once, so the per-sample path compares integers only.
public enum Trig {
    /// cos(d°) × 32768 for d = 0…90, rounded to nearest (generated with `round(32768*cos(d°))`).
    static let cosTableQ15: InlineArray<91, Int32> = [
        32768, 32763, 32748, 32723, 32688, 32643, 32588, 32524, 32449, 32365, 32270, 32166, 32052,
        31928, 31795, 31651, 31499, 31336, 31164, 30983, 30792, 30592, 30382, 30163, 29935, 29698,
        29452, 29197, 28932, 28660, 28378, 28088, 27789, 27482, 27166, 26842, 26510, 26170, 25822,
        25466, 25102, 24730, 24351, 23965, 23571, 23170, 22763, 22348, 21926, 21498, 21063, 20622,
        20174, 19720, 19261, 18795, 18324, 17847, 17364, 16877, 16384, 15886, 15384, 14876, 14365,
        13848, 13328, 12803, 12275, 11743, 11207, 10668, 10126, 9580, 9032, 8481, 7927, 7371, 6813,
        6252, 5690, 5126, 4560, 3993, 3425, 2856, 2286, 1715, 1144, 572, 0,
    ]

    /// cos of an angle given in tenths of a degree, × 32768 (Q15), linearly interpolated between
    /// whole degrees (error below 2e-5). Angles are folded into 0…180°; beyond 90° the result is
    /// negative.
    public static func cosQ15(deciDegrees: Int32) -> Int32 {
        var a = deciDegrees % 3600
        if a < 0 { a += 3600 }
        if a > 1800 { a = 3600 - a }
        if a > 900 { return -cosQ15(deciDegrees: 1800 - a) }
        let whole = Int(a / 10)
        let frac = a % 10
        let lo = cosTableQ15[whole]
        if frac == 0 { return lo }
        let hi = cosTableQ15[whole + 1]
        return lo + ((hi - lo) * frac + (hi > lo ? 5 : -5)) / 10
    }

    /// cos of an angle in tenths of a degree, × 1000, rounded: the fraction of 1 g that gravity
    /// shows along an axis tilted that far from vertical.
    public static func cosMilli(deciDegrees: Int32) -> Int32 {
        let q = cosQ15(deciDegrees: deciDegrees)
        return (q * 1000 + (q >= 0 ? 16384 : -16384)) / 32768
    }
}
