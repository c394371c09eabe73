// ADXL345 register map. Source: Analog Devices ADXL345 data sheet, Rev. G (DS), Table 19
// "Register Map" and the register definitions that follow it. Addresses, bit fields and tables
// only; no logic.

/// ADXL345 registers (DS Table 19).
public enum ADXL345Register: UInt8, Sendable, DatasheetRegister {
    /// DEVID: fixed 0xE5 (DS "Register 0x00—DEVID").
    case DEVID = 0x00
    /// THRESH_ACT: the activity threshold, 62.5 mg a count (DS "Register 0x24—THRESH_ACT").
    case THRESH_ACT = 0x24
    /// THRESH_INACT: the inactivity threshold, 62.5 mg a count (DS "Register 0x25").
    case THRESH_INACT = 0x25
    /// TIME_INACT: how long below THRESH_INACT is inactivity, 1 s a count (DS "Register 0x26").
    case TIME_INACT = 0x26
    /// ACT_INACT_CTL: ACT ac/dc bit 7, ACT_X/Y/Z enable [6:4], INACT ac/dc bit 3, INACT_X/Y/Z
    /// enable [2:0] (DS "Register 0x27").
    case ACT_INACT_CTL = 0x27
    /// BW_RATE: LOW_POWER bit 4, Rate [3:0] (DS "Register 0x2C—BW_RATE", Table 7).
    case BW_RATE = 0x2C
    /// POWER_CTL: Link bit 5, Measure bit 3 (0 = standby, the power-on state) (DS "Register 0x2D").
    case POWER_CTL = 0x2D
    /// INT_ENABLE (DS "Register 0x2E").
    case INT_ENABLE = 0x2E
    /// INT_MAP: a 0 bit sends that interrupt to INT1 (DS "Register 0x2F").
    case INT_MAP = 0x2F
    /// INT_SOURCE: DATA_READY bit 7, Activity bit 4, Inactivity bit 3, Watermark bit 1, Overrun
    /// bit 0; reading it clears Activity and Inactivity (DS "Register 0x30").
    case INT_SOURCE = 0x30
    /// DATA_FORMAT: FULL_RES bit 3, Justify bit 2, Range [1:0] (DS "Register 0x31").
    case DATA_FORMAT = 0x31
    /// DATAX0: first of 6 data bytes, x, y, z, each a little-endian int16 (DS "Register 0x32 to
    /// Register 0x37"); read all six in one transaction.
    case DATAX0 = 0x32
    /// FIFO_CTL: FIFO_MODE [7:6], Trigger bit 5, Samples [4:0] (DS "Register 0x38", Table 22).
    case FIFO_CTL = 0x38
    /// FIFO_STATUS: FIFO_TRIG bit 7, Entries [5:0] (DS "Register 0x39").
    case FIFO_STATUS = 0x39
}

/// ADXL345 constants.
public enum ADXL345Spec {
    /// The address with ALT ADDRESS low; 0x1D with it high (DS "Serial Communications", I2C).
    public static let addressLow: UInt8 = 0x53
    public static let addressHigh: UInt8 = 0x1D
    /// DEVID (DS "Register 0x00").
    public static let deviceID: UInt8 = 0xE5
    /// Full-resolution sensitivity, LSB per g: 256 (3.9 mg/LSB) at every range (DS Table 1,
    /// "Sensitivity at XOUT, YOUT, ZOUT", all g ranges, full resolution).
    public static let countsPerG: Int64 = 256
    /// FIFO depth, samples (DS "FIFO").
    public static let fifoDepth = 32
    /// BW_RATE value after power-on: 0x0A, 100 Hz (DS Table 19).
    public static let powerOnBandwidthRate: UInt8 = 0x0A
    /// The self-test's output change, mg, x y z: 0.20 … 2.10 g, −2.10 … −0.20 g, 0.30 … 3.40 g at
    /// a 2.5 V supply (DS Table 1, "Self-Test"), scaled by up to 1.77 (x, y) and 1.47 (z) at 3.3 V
    /// (DS Table 14): the union of the two, for a breakout at either supply.
    public static let selfTestLimits: [ClosedRange<Int32>] = [200...3717, -3717...(-200), 300...4998]
    /// The self-test is specified at ±16 g, full resolution (DS "Self-Test").
    public static let selfTestRange = ADXL345Range.g16
    /// THRESH_ACT's and THRESH_INACT's count, mg ×10 (62.5 mg) (DS "Register 0x24").
    public static let thresholdDeciMilliGPerCount: Int32 = 625
    /// The FIFO's watermark with INT wired: three quarters full, so that the interrupt leaves a
    /// quarter of the FIFO for the host to answer in (DS "FIFO_CTL", Samples bits).
    public static let watermark = 24
    /// The FIFO's Samples bits when INT is not wired (nothing reads the watermark then).
    public static let pollingSamples: UInt8 = 16
    /// ACT_INACT_CTL with INT wired: activity and inactivity ac-coupled on all three axes, so that
    /// each compares with a reference of its own (gravity, an offset) rather than with zero.
    public static let activityControl: UInt8 = 0xFF
    /// TIME_INACT with INT wired, s: a second below the threshold ends a motion and takes a new
    /// reference for the next (the Link bit joins the two).
    public static let inactivitySeconds: UInt8 = 1
}

/// DATA_FORMAT bits (DS "Register 0x31").
public struct ADXL345DataFormat: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let selfTest = ADXL345DataFormat(rawValue: 1 << 7)
    public static let fullResolution = ADXL345DataFormat(rawValue: 1 << 3)
    public static let justifyLeft = ADXL345DataFormat(rawValue: 1 << 2)
}

/// POWER_CTL bits (DS "Register 0x2D").
public struct ADXL345Power: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let link = ADXL345Power(rawValue: 1 << 5)
    public static let measure = ADXL345Power(rawValue: 1 << 3)
    public static let sleep = ADXL345Power(rawValue: 1 << 2)
}

/// INT_SOURCE bits (DS "Register 0x30").
public struct ADXL345Interrupt: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let dataReady = ADXL345Interrupt(rawValue: 1 << 7)
    public static let activity = ADXL345Interrupt(rawValue: 1 << 4)
    public static let inactivity = ADXL345Interrupt(rawValue: 1 << 3)
    public static let watermark = ADXL345Interrupt(rawValue: 1 << 1)
    public static let overrun = ADXL345Interrupt(rawValue: 1 << 0)
}

/// FIFO_MODE in FIFO_CTL [7:6] (DS Table 22).
public enum ADXL345FIFOMode: UInt8, Sendable {
    case bypass = 0x00, fifo = 0x40, stream = 0x80, trigger = 0xC0
}

/// Range [1:0] in DATA_FORMAT (DS Table 21).
public enum ADXL345Range: UInt8, CaseIterable, Sendable {
    case g2 = 0, g4 = 1, g8 = 2, g16 = 3

    /// The range in g.
    public var g: Int32 { 2 << Int32(rawValue) }

    public init?(g: Int32) {
        guard let r = Self.allCases.first(where: { $0.g == g }) else { return nil }
        self = r
    }
}

/// Output data rates, the Rate code in BW_RATE [3:0] (DS Table 7), for the rates Jolt supports.
public enum ADXL345Rate: UInt8, CaseIterable, Sendable {
    case hz12_5 = 0x7, hz25 = 0x8, hz50 = 0x9, hz100 = 0xA, hz200 = 0xB, hz400 = 0xC, hz800 = 0xD

    /// The rate, mHz.
    public var milliHz: Int32 {
        switch self {
        case .hz12_5: return 12_500
        case .hz25: return 25_000
        case .hz50: return 50_000
        case .hz100: return 100_000
        case .hz200: return 200_000
        case .hz400: return 400_000
        case .hz800: return 800_000
        }
    }

    public init?(milliHz: Int32) {
        guard let r = Self.allCases.first(where: { $0.milliHz == milliHz }) else { return nil }
        self = r
    }
}
