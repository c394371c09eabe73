// LSM6DSO register map. Source: ST "LSM6DSO: iNEMO inertial module: always-on 3D accelerometer
// and 3D gyroscope", DS12140 (DS): "Register mapping" and "Register description" (each register
// by its name and address, as cited below), "Mechanical characteristics" (sensitivities) and the
// FIFO's description ("each FIFO word is composed of 7 bytes: one tag byte ... and 6 bytes of
// fixed data"). Register names are the datasheet's, written once. Addresses, bit fields and
// tables only; no logic.

/// LSM6DSO registers (DS, Register mapping).
public enum LSM6DSORegister: UInt8, Sendable, CaseIterable, DatasheetRegister {
    /// WTM[7:0]: the FIFO watermark, in words.
    case FIFO_CTRL1 = 0x07
    /// STOP_ON_WTM bit 7, ..., WTM8 bit 0.
    case FIFO_CTRL2 = 0x08
    /// BDR_GY [7:4], BDR_XL [3:0]: the rates at which the gyroscope and the accelerometer are
    /// batched in the FIFO, coded as the output data rates.
    case FIFO_CTRL3 = 0x09
    /// DEC_TS_BATCH [7:6], ODR_T_BATCH [5:4], FIFO_MODE [2:0].
    case FIFO_CTRL4 = 0x0A
    /// INT1 pin routing: INT1_CNT_BDR bit 6, INT1_FIFO_FULL bit 5, INT1_FIFO_OVR bit 4,
    /// INT1_FIFO_TH bit 3, INT1_DRDY_G bit 1, INT1_DRDY_XL bit 0.
    case INT1_CTRL = 0x0D
    /// WHO_AM_I: fixed 0x6C.
    case WHO_AM_I = 0x0F
    /// CTRL1_XL: ODR_XL [7:4], FS_XL [3:2], LPF2_XL_EN bit 1.
    case CTRL1_XL = 0x10
    /// CTRL2_G: ODR_G [7:4], FS_G [3:2], FS_125 bit 1.
    case CTRL2_G = 0x11
    /// CTRL3_C: BOOT bit 7, BDU bit 6, H_LACTIVE bit 5, PP_OD bit 4, SIM bit 3, IF_INC bit 2,
    /// SW_RESET bit 0; power-on 0x04.
    case CTRL3_C = 0x12
    /// CTRL5_C: ROUNDING [6:5], ST_G [3:2], ST_XL [1:0] (01: the accelerometer's positive
    /// self-test).
    case CTRL5_C = 0x14
    /// WAKE_UP_SRC: WU_IA bit 3 (a wake-up event), X_WU, Y_WU, Z_WU bits 2-0.
    case WAKE_UP_SRC = 0x1B
    /// STATUS_REG: TDA bit 2, GDA bit 1, XLDA bit 0.
    case STATUS_REG = 0x1E
    /// OUTX_L_G: the first of 12 data bytes, the gyroscope's x, y, z and then the accelerometer's,
    /// each a little-endian int16. One read with IF_INC set takes them all.
    case OUTX_L_G = 0x22
    /// OUTX_L_A: the accelerometer's x, y, z, 6 bytes.
    case OUTX_L_A = 0x28
    /// FIFO_STATUS1: DIFF_FIFO [7:0], the words in the FIFO.
    case FIFO_STATUS1 = 0x3A
    /// FIFO_STATUS2: FIFO_WTM_IA bit 7, FIFO_OVR_IA bit 6, FIFO_FULL_IA bit 5, COUNTER_BDR_IA
    /// bit 4, FIFO_OVR_LATCHED bit 3 (cleared by reading), DIFF_FIFO [9:8] bits 1-0.
    case FIFO_STATUS2 = 0x3B
    /// CTRL8_XL: HPCF_XL [7:5] (the filters' cutoff: ODR/4 … ODR/800), HP_REF_MODE_XL bit 4,
    /// HP_SLOPE_XL_EN bit 2 (the outputs through the high-pass or slope filter; 0: not).
    case CTRL8_XL = 0x17
    /// TAP_CFG0: SLOPE_FDS bit 4 (0: the wake-up reads the slope filter; 1: the high-pass
    /// filter), LIR bit 0.
    case TAP_CFG0 = 0x56
    /// TAP_CFG2: INTERRUPTS_ENABLE bit 7 (the basic interrupts: wake-up, free fall, tap, 6D).
    case TAP_CFG2 = 0x58
    /// WAKE_UP_THS: WK_THS [5:0], a count of FS_XL / 2⁶ or, with WAKE_THS_W, FS_XL / 2⁸.
    case WAKE_UP_THS = 0x5B
    /// WAKE_UP_DUR: FF_DUR5 bit 7, WAKE_DUR [6:5] (1/ODR a count), WAKE_THS_W bit 4, SLEEP_DUR [3:0].
    case WAKE_UP_DUR = 0x5C
    /// MD1_CFG: INT1_WU bit 5 routes the wake-up to INT1.
    case MD1_CFG = 0x5E
    /// FIFO_DATA_OUT_TAG: TAG_SENSOR [7:3], TAG_CNT [2:1], TAG_PARITY bit 0; the six
    /// data bytes of the word follow at 0x79-0x7E. A longer read rolls back from 0x7E to 0x78 and
    /// takes the next word (what Linux's st_lsm6dsx driver relies on).
    case FIFO_DATA_OUT_TAG = 0x78
}

/// LSM6DSO constants.
public enum LSM6DSOSpec {
    /// The address with SDO/SA0 low; 0x6B with it high (DS, I²C serial interface).
    public static let addressLow: UInt8 = 0x6A
    public static let addressHigh: UInt8 = 0x6B
    /// WHO_AM_I.
    public static let whoAmI: UInt8 = 0x6C
    /// CTRL3_C after power-on or a reset: IF_INC set, everything else clear (DS, Register mapping).
    public static let powerOnCTRL3: UInt8 = 0x04
    /// The FIFO: 512 words of 7 bytes, 3 KB uncompressed (DS, FIFO).
    public static let fifoWords = 512
    /// A FIFO word: the tag byte and six data bytes.
    public static let fifoWordSize = 7
    /// Bytes of one reading without the FIFO: the gyroscope's x, y, z and the accelerometer's.
    public static let burstSize = 12
    /// How long SW_RESET and BOOT take at most, ms: the reset a few tens of µs, BOOT the 10 ms
    /// that its description in CTRL3_C and the turn-on time give.
    public static let resetMillis: UInt32 = 1
    public static let bootMillis: UInt32 = 10
    /// CTRL5_C's ST_XL = 01: the accelerometer's positive self-test.
    public static let accelSelfTestPositive: UInt8 = 0x01
    /// The accelerometer's self-test output change, mg: 50 … 1700 at ±4 g ("Mechanical
    /// characteristics", LA_ST).
    public static let selfTestLimits: ClosedRange<Int32> = 50...1700
    /// The self-test is specified at ±4 g.
    public static let selfTestRange = LSM6DSOAccelRange.g4
    /// With INT wired, the FIFO's watermark in readings: a second of them, at most three
    /// quarters of the FIFO (a reading is two words, the gyroscope's and the accelerometer's).
    public static func watermarkReadings(rateMilliHz: Int32) -> Int { min(fifoWords / 2 * 3 / 4, max(1, Int(rateMilliHz / 1000))) }
    /// INT1_CTRL bits: the FIFO's threshold, and each accelerometer reading.
    public static let INT1_FIFO_TH: UInt8 = 1 << 3, INT1_DRDY_XL: UInt8 = 1 << 0
    /// With INT wired, the wake-up reads the high-pass filter (TAP_CFG0's SLOPE_FDS) at HPCF_XL
    /// 101, ODR/200 (0.52 Hz at 104 Hz): the slope filter (half the change from one reading to
    /// the next) misses a smooth lift. HP_SLOPE_XL_EN stays 0, so the outputs are not filtered.
    public static let SLOPE_FDS: UInt8 = 1 << 4, wakeUpHighPass: UInt8 = 0xA0
    /// MD1_CFG's INT1_WU, TAP_CFG2's INTERRUPTS_ENABLE, WAKE_UP_DUR's WAKE_THS_W, WAKE_UP_SRC's WU_IA.
    public static let INT1_WU: UInt8 = 1 << 5, INTERRUPTS_ENABLE: UInt8 = 1 << 7, WAKE_THS_W: UInt8 = 1 << 4, WU_IA: UInt8 = 1 << 3
}

/// CTRL3_C bits.
public struct LSM6DSOCTRL3: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Reboots the memory content (the trimming); clears itself.
    public static let BOOT = LSM6DSOCTRL3(rawValue: 1 << 7)
    /// Block data update: an output register pair is not updated between its two reads.
    public static let BDU = LSM6DSOCTRL3(rawValue: 1 << 6)
    /// The register address advances on a multi-byte read (set at power-on).
    public static let IF_INC = LSM6DSOCTRL3(rawValue: 1 << 2)
    /// Every register back to its power-on value; clears itself.
    public static let SW_RESET = LSM6DSOCTRL3(rawValue: 1 << 0)
}

/// FIFO_STATUS2 bits.
public struct LSM6DSOFIFOStatus2: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let FIFO_WTM_IA = LSM6DSOFIFOStatus2(rawValue: 1 << 7)
    /// The FIFO is full and a word was overwritten (in continuous mode the oldest goes).
    public static let FIFO_OVR_IA = LSM6DSOFIFOStatus2(rawValue: 1 << 6)
    public static let FIFO_FULL_IA = LSM6DSOFIFOStatus2(rawValue: 1 << 5)
    /// An overrun since FIFO_STATUS2 was last read.
    public static let FIFO_OVR_LATCHED = LSM6DSOFIFOStatus2(rawValue: 1 << 3)
    /// DIFF_FIFO [9:8].
    public static let diffHighMask: UInt8 = 0x03
}

/// FIFO_MODE [2:0] in FIFO_CTRL4.
public enum LSM6DSOFIFOMode: UInt8, Sendable {
    /// The FIFO is off and emptied.
    case bypass = 0x00
    /// Stops when full.
    case fifo = 0x01
    /// Continuous: when full, a new word replaces the oldest.
    case continuous = 0x06
}

/// TAG_SENSOR in FIFO_DATA_OUT_TAG (78h), the FIFO tag.
public enum LSM6DSOTag: UInt8, Sendable {
    /// Gyroscope, not compressed.
    case gyroscopeNC = 0x01
    /// Accelerometer, not compressed.
    case accelerometerNC = 0x02
    case temperature = 0x03
    case timestamp = 0x04
    case configChange = 0x05

    /// TAG_SENSOR is the tag byte's top five bits; TAG_CNT the next two.
    public static func sensor(_ tagByte: UInt8) -> UInt8 { tagByte >> 3 }
    public static func counter(_ tagByte: UInt8) -> UInt8 { (tagByte >> 1) & 0x03 }
}

/// ODR_XL and ODR_G [7:4] in CTRL1_XL (10h) and CTRL2_G (11h), the same codes as the batch rates
/// of FIFO_CTRL3 (09h); high-performance mode.
public enum LSM6DSORate: UInt8, CaseIterable, Sendable {
    case hz12_5 = 0x1, hz26 = 0x2, hz52 = 0x3, hz104 = 0x4, hz208 = 0x5, hz416 = 0x6, hz833 = 0x7, hz1666 = 0x8, hz3333 = 0x9, hz6667 = 0xA

    /// The rate, mHz.
    public var milliHz: Int32 {
        switch self {
        case .hz12_5: return 12_500
        case .hz26: return 26_000
        case .hz52: return 52_000
        case .hz104: return 104_000
        case .hz208: return 208_000
        case .hz416: return 416_000
        case .hz833: return 833_000
        case .hz1666: return 1_666_000
        case .hz3333: return 3_333_000
        case .hz6667: return 6_667_000
        }
    }

    public init?(milliHz: Int32) {
        guard let r = Self.allCases.first(where: { $0.milliHz == milliHz }) else { return nil }
        self = r
    }
}

/// FS_XL [3:2] in CTRL1_XL (10h), with the sensitivity (DS, Mechanical characteristics, LA_So:
/// 0.061, 0.122, 0.244 and 0.488 mg/LSB at ±2, ±4, ±8 and ±16 g). The codes are not in order of
/// range.
public enum LSM6DSOAccelRange: UInt8, CaseIterable, Sendable {
    case g2 = 0x0, g16 = 0x1, g4 = 0x2, g8 = 0x3

    /// The range in g.
    public var g: Int32 {
        switch self {
        case .g2: return 2
        case .g4: return 4
        case .g8: return 8
        case .g16: return 16
        }
    }

    /// µg per LSB (61 at ±2 g, doubling with the range).
    public var microGPerLSB: Int64 { 61 * Int64(g / 2) }

    public init?(g: Int32) {
        guard let r = Self.allCases.first(where: { $0.g == g }) else { return nil }
        self = r
    }
}

/// FS_G [3:2] and FS_125 (bit 1) in CTRL2_G (11h), as the three bits [3:1], with the sensitivity
/// (DS, Mechanical characteristics, G_So: 4.375, 8.75, 17.50, 35 and 70 mdps/LSB).
public enum LSM6DSOGyroRange: UInt8, CaseIterable, Sendable {
    case dps125 = 0x1, dps250 = 0x0, dps500 = 0x2, dps1000 = 0x4, dps2000 = 0x6

    /// The range, °/s.
    public var dps: Int32 {
        switch self {
        case .dps125: return 125
        case .dps250: return 250
        case .dps500: return 500
        case .dps1000: return 1000
        case .dps2000: return 2000
        }
    }

    /// µdps per LSB (4375 at ±125 °/s, doubling with the range).
    public var microDpsPerLSB: Int64 { 4375 * Int64(dps / 125) }

    /// The bits [3:1] of CTRL2_G, in place.
    public var bits: UInt8 { rawValue << 1 }

    public init?(dps: Int32) {
        guard let r = Self.allCases.first(where: { $0.dps == dps }) else { return nil }
        self = r
    }
}
