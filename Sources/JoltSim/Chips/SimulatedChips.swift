/// A register-level simulated chip: a device on the simulated bus whose readings come from a
/// `MotionSource`, the twin of a chip in the registry.
public protocol SimulatedChip: FaultableDevice {
    /// The registry name of the chip it simulates ("lis3dh").
    static var chipName: String { get }
    init(source: MotionSource)
    /// Sim time of the source's sample 0 minus one period, µs, once the chip has made its first
    /// sample: source sample i is made at `sourceStart + (i + 1) × period`.
    var sourceStart: Int64? { get }
    /// Whether the motion has run out (the chip then makes no more samples).
    var exhausted: Bool { get }
}

/// The simulated twins, one line per chip.
public enum SimulatedChips {
    public static var all: [any SimulatedChip.Type] { [SimMPU6050.self, SimADXL345.self, SimLIS3DH.self] }

    /// The twin of the chip a board names.
    public static func twin(of chip: String) -> (any SimulatedChip.Type)? { all.first { $0.chipName == chip } }
}
