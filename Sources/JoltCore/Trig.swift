/// Integer trigonometry for configuration time: angles from settings become fixed-point cosines
/// once, so the per-sample path compares integers only.
public enum Trig {
    /// cos(d°) × 32768 for a whole degree d in 0…90, rounded to nearest (generated with
    /// `round(32768*cos(d°))`). A switch of constants, which the compiler makes a table in read-only
    /// data.
    static func cosTable(_ degrees: Int) -> Int32 {
        switch degrees {
        case 0: 32768; case 1: 32763; case 2: 32748; case 3: 32723; case 4: 32688; case 5: 32643
        case 6: 32588; case 7: 32524; case 8: 32449; case 9: 32365; case 10: 32270; case 11: 32166
        case 12: 32052; case 13: 31928; case 14: 31795; case 15: 31651; case 16: 31499; case 17: 31336
        case 18: 31164; case 19: 30983; case 20: 30792; case 21: 30592; case 22: 30382; case 23: 30163
        case 24: 29935; case 25: 29698; case 26: 29452; case 27: 29197; case 28: 28932; case 29: 28660
        case 30: 28378; case 31: 28088; case 32: 27789; case 33: 27482; case 34: 27166; case 35: 26842
        case 36: 26510; case 37: 26170; case 38: 25822; case 39: 25466; case 40: 25102; case 41: 24730
        case 42: 24351; case 43: 23965; case 44: 23571; case 45: 23170; case 46: 22763; case 47: 22348
        case 48: 21926; case 49: 21498; case 50: 21063; case 51: 20622; case 52: 20174; case 53: 19720
        case 54: 19261; case 55: 18795; case 56: 18324; case 57: 17847; case 58: 17364; case 59: 16877
        case 60: 16384; case 61: 15886; case 62: 15384; case 63: 14876; case 64: 14365; case 65: 13848
        case 66: 13328; case 67: 12803; case 68: 12275; case 69: 11743; case 70: 11207; case 71: 10668
        case 72: 10126; case 73: 9580; case 74: 9032; case 75: 8481; case 76: 7927; case 77: 7371
        case 78: 6813; case 79: 6252; case 80: 5690; case 81: 5126; case 82: 4560; case 83: 3993
        case 84: 3425; case 85: 2856; case 86: 2286; case 87: 1715; case 88: 1144; case 89: 572
        case 90: 0
        default: 0
        }
    }

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
        let lo = cosTable(whole)
        if frac == 0 { return lo }
        let hi = cosTable(whole + 1)
        return lo + ((hi - lo) * frac + (hi > lo ? 5 : -5)) / 10
    }

    /// cos of an angle in tenths of a degree, × 1000, rounded: the fraction of 1 g that gravity
    /// shows along an axis tilted that far from vertical.
    public static func cosMilli(deciDegrees: Int32) -> Int32 {
        let q = cosQ15(deciDegrees: deciDegrees)
        return (q * 1000 + (q >= 0 ? 16384 : -16384)) / 32768
    }
}
