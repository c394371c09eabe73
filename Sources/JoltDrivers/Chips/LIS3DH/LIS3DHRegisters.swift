// LIS3DH register map. Source: ST "LIS3DH MEMS digital output motion sensor: ultra-low-power
// high-performance 3-axis nano accelerometer", DocID17530 Rev 2 (DS), section 7 "Register
// mapping" (Table 17) and section 8 "Register description", and the application note AN3308
// ("LIS3DH: MEMS digital output motion sensor", FIFO). Addresses, bit fields and tables only; no
// logic.

/// LIS3DH registers (DS Table 17).
public enum LIS3DHRegister: UInt8, Sendable, CaseIterable, DatasheetRegister {
    /// WHO_AM_I: fixed 0x33 (DS 8.6).
    case WHO_AM_I = 0x0F
    /// CTRL_REG1: ODR [7:4], LPen bit 3, Zen bit 2, Yen bit 1, Xen bit 0; power-on 0x07 (DS 8.8).
    case CTRL_REG1 = 0x20
    /// CTRL_REG2: HPM [7:6], HPCF [5:4], FDS bit 3, HP_IA1 bit 0: the high-pass filter, and
    /// whether interrupt 1 reads through it (DS 8.9).
    case CTRL_REG2 = 0x21
    /// CTRL_REG3: what INT1 raises: I1_IA1 bit 6, I1_ZYXDA bit 4, I1_WTM bit 2 (DS 8.10).
    case CTRL_REG3 = 0x22
    /// CTRL_REG4: BDU bit 7, BLE bit 6, FS [5:4], HR bit 3, ST [2:1], SIM bit 0 (DS 8.11).
    case CTRL_REG4 = 0x23
    /// CTRL_REG5: BOOT bit 7, FIFO_EN bit 6, LIR_INT1 bit 3, D4D_INT1 bit 2 (DS 8.12).
    case CTRL_REG5 = 0x24
    /// CTRL_REG6: INT_POLARITY bit 1 (0: INT1 and INT2 active high) (DS 8.13).
    case CTRL_REG6 = 0x25
    /// REFERENCE: reading it resets the high-pass filter in normal mode (DS 8.14, AN3308 §4.3).
    case REFERENCE = 0x26
    /// STATUS_REG: ZYXOR bit 7, ZYXDA bit 3 (DS 8.15).
    case STATUS_REG = 0x27
    /// OUT_X_L: first of 6 data bytes, x, y, z, each a left-justified little-endian int16
    /// (DS 8.16-8.21). Read them in one transaction with the auto-increment bit set.
    case OUT_X_L = 0x28
    /// FIFO_CTRL_REG: FM [7:6], TR bit 5, FTH [4:0] (DS 8.22, Table 45).
    case FIFO_CTRL_REG = 0x2E
    /// FIFO_SRC_REG: WTM bit 7, OVRN_FIFO bit 6, EMPTY bit 5, FSS [4:0] unread levels (DS 8.23).
    case FIFO_SRC_REG = 0x2F
    /// INT1_CFG: AOI bit 7, 6D bit 6, ZHIE bit 5, ZLIE 4, YHIE 3, YLIE 2, XHIE 1, XLIE 0 (DS 8.24).
    case INT1_CFG = 0x30
    /// INT1_SRC: IA bit 6 (an interrupt is active), then ZH … XL (DS 8.25).
    case INT1_SRC = 0x31
    /// INT1_THS: the threshold, 7 bits: 16, 32, 62 or 186 mg a count at ±2, ±4, ±8, ±16 g (DS 8.26).
    case INT1_THS = 0x32
    /// INT1_DURATION: how long past the threshold, 1/ODR a count (DS 8.27).
    case INT1_DURATION = 0x33
}

/// LIS3DH constants.
public enum LIS3DHSpec {
    /// The address with SA0 (SDO) low; 0x19 with it high (DS 6.1.1, Table 15).
    public static let addressLow: UInt8 = 0x18
    public static let addressHigh: UInt8 = 0x19
    /// WHO_AM_I (DS 8.6).
    public static let whoAmI: UInt8 = 0x33
    /// The sub-address bit that makes a multi-byte read advance the register address (DS 6.1.1:
    /// "the MSb of the SUB field enables address auto increment").
    public static let autoIncrement: UInt8 = 0x80
    /// CTRL_REG1 after power-on or a reboot: power-down, all three axes enabled (DS Table 17).
    public static let powerOnControl1: UInt8 = 0x07
    /// FIFO depth, samples (DS 3.3).
    public static let fifoDepth = 32
    /// Bytes of one sample (x, y, z; 2 bytes each).
    public static let sampleSize = 6
    /// Time the BOOT procedure takes (DS Table 4, "turn-on time" ≈ 1/ODR + 1 ms; 5 ms is the
    /// boot time AN3308 gives), ms.
    public static let bootMillis: UInt32 = 5
    /// The self-test's output change, mg: 17 … 360 LSb at ±2 g in normal mode, 4 mg a digit (DS
    /// Table 4, "Self-test output change"); the datasheet gives its size, not its sign.
    public static let selfTestLimits: ClosedRange<Int32> = 68...1440
    /// The self-test is specified at ±2 g (DS Table 4).
    public static let selfTestRange = LIS3DHRange.g2
    /// FIFO_CTRL_REG's FTH with INT wired: WTM rises once the FIFO holds more than 23 levels,
    /// at 24 of 32, a quarter left for the host to answer in (DS 8.22-8.23).
    public static let watermarkThreshold: UInt8 = 23
    /// CTRL_REG2 with INT wired: normal high-pass mode, HPCF 10 (0.5 Hz at 100 Hz, DS Table 32,
    /// AN3308 Table 9), for interrupt 1 only (HP_IA1); the data registers stay unfiltered.
    public static let interruptHighPass: UInt8 = 0x21
    /// INT1_CFG with INT wired: an OR of the high events of x, y and z.
    public static let interruptAxes: UInt8 = 0x2A
}

/// CTRL_REG3 bits: what INT1 raises (DS 8.10).
public struct LIS3DHInterrupt1: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let ia1 = LIS3DHInterrupt1(rawValue: 1 << 6)
    public static let dataReady = LIS3DHInterrupt1(rawValue: 1 << 4)
    public static let watermark = LIS3DHInterrupt1(rawValue: 1 << 2)
}

/// CTRL_REG4 bits (DS 8.11).
public struct LIS3DHControl4: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Block data update: the output registers are not updated between reading the low and
    /// high bytes.
    public static let blockDataUpdate = LIS3DHControl4(rawValue: 1 << 7)
    /// High-resolution (12-bit) output.
    public static let highResolution = LIS3DHControl4(rawValue: 1 << 3)
    /// ST [2:1] = 01: self-test 0, the test force on (DS 8.11, Table 34).
    public static let selfTest0 = LIS3DHControl4(rawValue: 1 << 1)
}

/// CTRL_REG5 bits (DS 8.12).
public struct LIS3DHControl5: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Reboot memory content: every register back to its power-on value; clears itself.
    public static let boot = LIS3DHControl5(rawValue: 1 << 7)
    public static let fifoEnable = LIS3DHControl5(rawValue: 1 << 6)
}

/// FIFO_SRC_REG bits (DS 8.23).
public struct LIS3DHFIFOSource: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let watermark = LIS3DHFIFOSource(rawValue: 1 << 7)
    /// The FIFO is full (32 unread samples); in stream mode the next sample replaces the oldest.
    public static let overrun = LIS3DHFIFOSource(rawValue: 1 << 6)
    public static let empty = LIS3DHFIFOSource(rawValue: 1 << 5)
    /// FSS [4:0]: unread samples.
    public static let levelMask: UInt8 = 0x1F
}

/// FM [7:6] in FIFO_CTRL_REG (DS Table 45).
public enum LIS3DHFIFOMode: UInt8, Sendable {
    case bypass = 0x00, fifo = 0x40, stream = 0x80, streamToFIFO = 0xC0
}

/// FS [5:4] in CTRL_REG4 (DS 8.11), with the high-resolution sensitivity (DS Table 4, So: 1, 2,
/// 4 and 12 mg/digit at ±2, ±4, ±8 and ±16 g, 12-bit output).
public enum LIS3DHRange: UInt8, CaseIterable, Sendable {
    case g2 = 0x00, g4 = 0x10, g8 = 0x20, g16 = 0x30

    /// The range in g.
    public var g: Int32 {
        switch self {
        case .g2: return 2
        case .g4: return 4
        case .g8: return 8
        case .g16: return 16
        }
    }

    /// mg a count of INT1_THS at this range (DS 8.26).
    public var thresholdMilliG: Int32 {
        switch self {
        case .g2: return 16
        case .g4: return 32
        case .g8: return 62
        case .g16: return 186
        }
    }

    /// mg per digit of the 12-bit output.
    public var milliGPerDigit: Int32 {
        switch self {
        case .g2: return 1
        case .g4: return 2
        case .g8: return 4
        case .g16: return 12
        }
    }

    public init?(g: Int32) {
        guard let r = Self.allCases.first(where: { $0.g == g }) else { return nil }
        self = r
    }
}

/// ODR [7:4] in CTRL_REG1 (DS Table 25), for the rates of normal and high-resolution mode.
public enum LIS3DHRate: UInt8, CaseIterable, Sendable {
    case hz1 = 0x10, hz10 = 0x20, hz25 = 0x30, hz50 = 0x40, hz100 = 0x50, hz200 = 0x60, hz400 = 0x70, hz1344 = 0x90

    /// The rate, mHz.
    public var milliHz: Int32 {
        switch self {
        case .hz1: return 1_000
        case .hz10: return 10_000
        case .hz25: return 25_000
        case .hz50: return 50_000
        case .hz100: return 100_000
        case .hz200: return 200_000
        case .hz400: return 400_000
        case .hz1344: return 1_344_000
        }
    }

    public init?(milliHz: Int32) {
        guard let r = Self.allCases.first(where: { $0.milliHz == milliHz }) else { return nil }
        self = r
    }
}
