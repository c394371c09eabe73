import Foundation

/// How a person moves a thing from rest to rest: the minimum-jerk profile (Flash and Hogan), the
/// shape of a drag, a lean or a slow tilt in the tests.
public enum MinimumJerk {
    /// How far along a move is, 0 to 1, at `x` of its time (0 to 1): 10x³ − 15x⁴ + 6x⁵.
    public static func ease(_ x: Double) -> Double {
        x <= 0 ? 0 : x >= 1 ? 1 : x * x * x * (10 - 15 * x + 6 * x * x)
    }

    /// The acceleration `u` s into a move of `metres` over `seconds`, mg (0 outside it):
    /// d/T²·(60x − 180x² + 120x³), at most 5.77·d/T².
    public static func acceleration(metres d: Double, seconds T: Double, at u: Double) -> Double {
        guard u > 0 && u < T else { return 0 }
        let x = u / T
        return d / (T * T) * (60 * x - 180 * x * x + 120 * x * x * x) / 9.80665 * 1000
    }
}

/// A gentle drag along a level kiosk's x axis from u = 0: 15 cm over 1.8 s (27 mg at most),
/// tilting it 0.5° about y on the way (in over 0.2 s, and out over 0.2 s once it stops), the
/// size of a customer's lean.
public enum GentleDrag {
    public static let seconds = 1.8

    /// The push along x, mg.
    public static func push(_ u: Double) -> Double { MinimumJerk.acceleration(metres: 0.15, seconds: seconds, at: u) }

    /// The tilt about y, degrees.
    public static func tilt(_ u: Double) -> Double {
        u < 0 ? 0 : 0.5 * min(u / 0.2, 1) * (u < seconds ? 1 : max(0, 1 - (u - seconds) / 0.2))
    }
}
