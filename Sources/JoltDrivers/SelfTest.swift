/// What a chip's self-test found. The datasheets' procedure: readings at rest, then readings
/// with the built-in test force on (an electrostatic pull on the proof mass), and the change
/// between the two averages, per axis, must fall within the range the datasheet gives. A stuck,
/// cracked or unpowered sense element moves too little or too much. The readings at rest also
/// give the noise floor: a chip far noisier than its datasheet, or a device being moved, cannot
/// be judged.
public struct SelfTestResult: Equatable, Sendable {
    /// The test force's change of the reading, mg, x y z.
    public var changeMilliG: [Int32]
    /// The change each axis may show, mg (from the datasheet, for the way the chip was set up).
    public var limits: [ClosedRange<Int32>]
    /// Whether only the size of the change is judged (a datasheet that gives no sign).
    public var magnitudeOnly: Bool
    /// The largest standard deviation of an axis over the readings at rest, mg.
    public var noiseMilliG: Int32

    public init(changeMilliG: [Int32], limits: [ClosedRange<Int32>], magnitudeOnly: Bool, noiseMilliG: Int32) {
        self.changeMilliG = changeMilliG
        self.limits = limits
        self.magnitudeOnly = magnitudeOnly
        self.noiseMilliG = noiseMilliG
    }

    /// The noise at rest past which the test cannot be judged (the device moved, or the chip is
    /// broken), mg: every supported chip's datasheet noise is a few mg at 100 Hz.
    public static let maxNoiseMilliG: Int32 = 30

    /// The axes whose change is out of range.
    public var failedAxes: [Int] {
        (0..<3).filter { i in !limits[i].contains(magnitudeOnly ? abs(changeMilliG[i]) : changeMilliG[i]) }
    }

    /// Whether the chip passed: every axis within its range, and quiet enough to tell.
    public var passed: Bool { failedAxes.isEmpty && noiseMilliG <= Self.maxNoiseMilliG }

    /// "x +559 y +561 z +570 mg (allowed 480..640 mg), noise 2 mg".
    public var text: String {
        let names = ["x", "y", "z"]
        func signed(_ v: Int32) -> String { v >= 0 ? "+\(v)" : "\(v)" }
        var s = (0..<3).map { "\(names[$0]) \(signed(changeMilliG[$0]))" }.joined(separator: " ") + " mg"
        let ranges = Set(limits.map { "\($0.lowerBound)..\($0.upperBound)" })
        s += ranges.count == 1 ? " (allowed \(magnitudeOnly ? "±" : "")\(ranges.first!) mg)"
            : " (allowed " + (0..<3).map { "\(names[$0]) \(limits[$0].lowerBound)..\(limits[$0].upperBound)" }.joined(separator: ", ") + " mg)"
        return s + ", noise \(noiseMilliG) mg"
    }

    /// Why it failed, for an owner ("the test force moved z by +12 mg, not 480..640 mg: ...").
    public var failure: String? {
        if passed { return nil }
        if noiseMilliG > Self.maxNoiseMilliG {
            return "the chip read \(noiseMilliG) mg of noise at rest (at most \(Self.maxNoiseMilliG)): keep the device still while arming; if it is still, the chip is faulty"
        }
        let names = ["x", "y", "z"]
        let axes = failedAxes.map { "\(names[$0]) by \(changeMilliG[$0]) mg, not \(limits[$0].lowerBound)..\(limits[$0].upperBound)" }
        return "the self-test force moved " + axes.joined(separator: ", ") + ": the chip's sense element is damaged; replace the sensor"
    }
}

/// A driver whose chip has a self-test force: a reading, and the force on or off.
public protocol SelfTestForce {
    mutating func readSample() throws(ChipError) -> ChipSample
    mutating func setSelfTestForce(_ on: Bool) throws(ChipError)
}

/// The measuring half of a self-test, shared by the chips.
public enum SelfTest {
    /// The procedure every chip's datasheet gives, once the plug-in has set the chip up for it:
    /// let the output settle, average with the force off, turn it on, let it settle, average
    /// again, turn it off. The change on each axis, and the noise with the force off, mg; the
    /// plug-in judges them against its own limits.
    public static func measure(_ driver: inout some SelfTestForce, settleMillis: UInt32, periodMillis: UInt32,
                               delay: inout some Delay) throws(ChipError) -> (change: [Int32], noise: Int32) {
        delay.delay(milliseconds: settleMillis)
        let off = try average(periodMillis: periodMillis, delay: &delay) { () throws(ChipError) in try driver.readSample() }
        try driver.setSelfTestForce(true)
        delay.delay(milliseconds: settleMillis)
        let on = try average(periodMillis: periodMillis, delay: &delay) { () throws(ChipError) in try driver.readSample() }
        try driver.setSelfTestForce(false)
        return (change(off.mean, on.mean), off.noise)
    }

    /// Readings averaged for each half of the test.
    public static let readings = 10

    /// `readings` readings a period apart: the mean of each axis and the largest standard
    /// deviation, mg.
    public static func average(periodMillis: UInt32, delay: inout some Delay, read: () throws(ChipError) -> ChipSample) throws(ChipError) -> (mean: [Int32], noise: Int32) {
        var sum = [Int64](repeating: 0, count: 3), squares = [Int64](repeating: 0, count: 3)
        for _ in 0..<readings {
            delay.delay(milliseconds: max(periodMillis, 1))
            let s = try read()
            for (i, v) in [s.ax, s.ay, s.az].enumerated() {
                sum[i] += Int64(v)
                squares[i] += Int64(v) * Int64(v)
            }
        }
        let n = Int64(readings)
        var noise: Int64 = 0
        for i in 0..<3 {
            let variance = max((squares[i] - sum[i] * sum[i] / n) / (n - 1), 0)
            var r: Int64 = 0
            while (r + 1) * (r + 1) <= variance { r += 1 }
            noise = max(noise, r)
        }
        return (sum.map { Int32(($0 + ($0 >= 0 ? n / 2 : -n / 2)) / n) }, Int32(noise))
    }

    /// The change from `off` to `on`, per axis.
    public static func change(_ off: [Int32], _ on: [Int32]) -> [Int32] { zip(on, off).map { $0 - $1 } }
}
