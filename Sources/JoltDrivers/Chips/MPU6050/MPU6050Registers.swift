// MPU6050 register map. Source: InvenSense "MPU-6000 and MPU-6050 Register Map and Descriptions",
// RM-MPU-6000A-00 rev 4.2 (RM), and the product specification PS-MPU-6000A-00 rev 3.4 (PS).
// Addresses, bit fields and tables only; no logic.

/// MPU6050 registers (RM §3, register map table).
public enum MPU6050Register: UInt8, Sendable, DatasheetRegister {
    /// SELF_TEST_X, _Y, _Z: XA_TEST [4:2] in bits [7:5] (and XG_TEST [4:0]); SELF_TEST_A:
    /// XA_TEST [1:0] in bits [5:4], YA_TEST [1:0] in [3:2], ZA_TEST [1:0] in [1:0]: the
    /// accelerometer's factory self-test trim, 5 bits per axis (RM §4.1).
    case SELF_TEST_X = 0x0D
    case SELF_TEST_Y = 0x0E
    case SELF_TEST_Z = 0x0F
    case SELF_TEST_A = 0x10
    /// Sample rate divider: rate = gyroscope output rate / (1 + SMPLRT_DIV) (RM §4.2).
    case SMPLRT_DIV = 0x19
    /// CONFIG: EXT_SYNC_SET [5:3], DLPF_CFG [2:0] (RM §4.3).
    case CONFIG = 0x1A
    /// GYRO_CONFIG: FS_SEL [4:3] (RM §4.4).
    case GYRO_CONFIG = 0x1B
    /// ACCEL_CONFIG: XA/YA/ZA_ST [7:5], AFS_SEL [4:3], ACCEL_HPF [2:0]: the high-pass filter the
    /// motion detector reads, not the data registers (RM rev 3.2 §4.5).
    case ACCEL_CONFIG = 0x1C
    /// MOT_THR: the motion detector's threshold, 2 mg a count, on any axis of the high-passed
    /// acceleration (RM rev 3.2 §4.7).
    case MOT_THR = 0x1F
    /// MOT_DUR: how long past the threshold before the interrupt, 1 ms a count (RM rev 3.2 §4.8).
    case MOT_DUR = 0x20
    /// FIFO_EN: which measurements go into the FIFO (RM §4.6).
    case FIFO_EN = 0x23
    /// INT_PIN_CFG: INT_LEVEL bit 7 (1: active low), INT_OPEN bit 6 (1: open drain),
    /// LATCH_INT_EN bit 5 (0: a 50 µs pulse), INT_RD_CLEAR bit 4 (RM §4.15).
    case INT_PIN_CFG = 0x37
    /// INT_ENABLE: MOT_EN bit 6, FIFO_OFLOW_EN bit 4, DATA_RDY_EN bit 0 (RM §4.16; MOT_EN: RM
    /// rev 3.2 §4.16).
    case INT_ENABLE = 0x38
    /// INT_STATUS: MOT_INT bit 6, FIFO_OFLOW_INT bit 4, DATA_RDY_INT bit 0; cleared on read (RM §4.17).
    case INT_STATUS = 0x3A
    /// ACCEL_XOUT_H: first of 14 data bytes: accel x/y/z, temperature, gyro x/y/z, each a
    /// big-endian int16 (RM §4.17-4.19).
    case ACCEL_XOUT_H = 0x3B
    /// TEMP_OUT_H (RM §4.18).
    case TEMP_OUT_H = 0x41
    /// GYRO_XOUT_H (RM §4.19).
    case GYRO_XOUT_H = 0x43
    /// SIGNAL_PATH_RESET (RM §4.26).
    case SIGNAL_PATH_RESET = 0x68
    /// USER_CTRL: FIFO_EN bit 6, FIFO_RESET bit 2 (RM §4.27).
    case USER_CTRL = 0x6A
    /// PWR_MGMT_1: DEVICE_RESET bit 7, SLEEP bit 6, CLKSEL [2:0]; power-on value 0x40 (RM §4.28).
    case PWR_MGMT_1 = 0x6B
    /// PWR_MGMT_2 (RM §4.29).
    case PWR_MGMT_2 = 0x6C
    /// FIFO_COUNTH: bytes in the FIFO, big-endian with FIFO_COUNTL (RM §4.30).
    case FIFO_COUNTH = 0x72
    /// FIFO_COUNTL (RM §4.30).
    case FIFO_COUNTL = 0x73
    /// FIFO_R_W: reading it pops FIFO bytes; the address does not advance (RM §4.31).
    case FIFO_R_W = 0x74
    /// WHO_AM_I: bits [6:1] of the address, 0x68, whatever AD0 is (RM §4.32).
    case WHO_AM_I = 0x75
}

/// MPU6050 constants.
public enum MPU6050Spec {
    /// The address with AD0 low; 0x69 with AD0 high (PS §9.2).
    public static let addressLow: UInt8 = 0x68
    public static let addressHigh: UInt8 = 0x69
    /// WHO_AM_I of a genuine MPU6050 (RM §4.32).
    public static let whoAmI: UInt8 = 0x68
    /// The sample rate: the gyroscope's 1 kHz output (with the low-pass filter on) divided by
    /// 1 + SMPLRT_DIV (RM §4.2).
    public static let rates = ChipRates.divided(baseMilliHz: 1_000_000, maxDivider: 255)
    /// WHO_AM_I values of compatible parts and known clones, with what they are. They share the
    /// accelerometer, gyroscope and FIFO registers Jolt uses.
    public static let compatibleIDs: [(id: UInt8, part: String)] = [
        (0x70, "MPU6500"), (0x71, "MPU9250"), (0x73, "MPU9255"),
        (0x72, "an MPU6050 clone"), (0x98, "an MPU6050 clone"), (0x19, "MPU6886"),
    ]
    /// Register values after power-on or DEVICE_RESET: all 0x00 except PWR_MGMT_1 (0x40, asleep)
    /// and WHO_AM_I (RM §3).
    public static let powerOnPowerManagement1: UInt8 = 0x40
    /// FIFO size, bytes (PS §7.17).
    public static let fifoSize = 1024
    /// Bytes of one FIFO frame with accel and gyro enabled: 3 × 2 accel + 3 × 2 gyro.
    public static let fifoFrameSize = 12
    /// Time for DEVICE_RESET to complete (PS §6.8, start-up time 100 ms max at reset).
    public static let resetMillis: UInt32 = 100
    /// Gyroscope output rate with the DLPF enabled (DLPF_CFG 1…6): 1 kHz (RM §4.2).
    public static let internalRateHz: Int32 = 1000
    /// ACCEL_CONFIG's XA_ST, YA_ST, ZA_ST bits [7:5]: the self-test force on each axis (RM §4.5).
    public static let accelSelfTestBits: UInt8 = 0xE0
    /// MOT_THR's count, mg (RM rev 3.2 §4.7).
    public static let motionThresholdMilliGPerCount: Int32 = 2
    /// The motion detector's filter: 0.63 Hz passes a lift's push (a few hertz and below) and
    /// takes out gravity and the offset's drift.
    public static let motionHighPass = MPU6050HighPass.hz0_63
    /// MOT_DUR, ms: one count, so that the first reading past the threshold raises INT.
    public static let motionDurationMillis: UInt8 = 1
    /// INT_PIN_CFG for Jolt's wiring: active high, push-pull, a 50 µs pulse per event, the
    /// status cleared by reading INT_STATUS (all bits 0).
    public static let interruptPinConfig: UInt8 = 0x00
    /// The self-test is specified at ±8 g (RM §4.1).
    public static let selfTestRange = MPU6050AccelRange.g8
    /// The factory trim for A_TEST 1 … 31, mg: 4096 × 0.34 × (0.92 / 0.34)^((A_TEST − 1) / (2⁵ − 2))
    /// LSB at ±8 g, 4096 LSB/g; A_TEST 0 means no trim (RM §4.1).
    public static let factoryTrimMilliG: [Int32] = [
        340, 351, 363, 376, 388, 401, 415, 429, 443, 458, 474, 490, 506, 523, 541, 559,
        578, 598, 618, 639, 660, 682, 706, 729, 754, 779, 806, 833, 861, 890, 920,
    ]
    /// The self-test response may differ from the factory trim by ±14 % (PS §6.2, "Self test
    /// response: relative, change from factory trim −14 … +14 %").
    public static let selfTestTolerancePercent: Int32 = 14
    /// A part with no trim (A_TEST 0, as some clones read): the range the trims span, 0.34 to
    /// 0.92 g, widened by the tolerance, mg.
    public static let selfTestUntrimmed: ClosedRange<Int32> = 292...1049
}

/// PWR_MGMT_1 bits (RM §4.28).
public struct MPU6050Power: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let deviceReset = MPU6050Power(rawValue: 1 << 7)
    public static let sleep = MPU6050Power(rawValue: 1 << 6)
    public static let cycle = MPU6050Power(rawValue: 1 << 5)
    public static let temperatureDisable = MPU6050Power(rawValue: 1 << 3)
    /// CLKSEL = 1: PLL with the X axis gyroscope as reference, recommended over the internal
    /// 8 MHz oscillator (RM §4.28).
    public static let clockPLLGyroX = MPU6050Power(rawValue: 0x01)
}

/// USER_CTRL bits (RM §4.27).
public struct MPU6050UserControl: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let fifoEnable = MPU6050UserControl(rawValue: 1 << 6)
    public static let fifoReset = MPU6050UserControl(rawValue: 1 << 2)
    public static let signalConditionReset = MPU6050UserControl(rawValue: 1 << 0)
}

/// FIFO_EN bits (RM §4.6).
public struct MPU6050FIFOEnable: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let temperature = MPU6050FIFOEnable(rawValue: 1 << 7)
    public static let gyroX = MPU6050FIFOEnable(rawValue: 1 << 6)
    public static let gyroY = MPU6050FIFOEnable(rawValue: 1 << 5)
    public static let gyroZ = MPU6050FIFOEnable(rawValue: 1 << 4)
    public static let accel = MPU6050FIFOEnable(rawValue: 1 << 3)
}

/// INT_ENABLE / INT_STATUS bits (RM §4.16, §4.17).
public struct MPU6050Interrupt: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let motion = MPU6050Interrupt(rawValue: 1 << 6)
    public static let fifoOverflow = MPU6050Interrupt(rawValue: 1 << 4)
    public static let dataReady = MPU6050Interrupt(rawValue: 1 << 0)
}

/// The motion detector's high-pass filter, ACCEL_HPF in ACCEL_CONFIG [2:0] (RM rev 3.2 §4.5):
/// 0 holds its output at zero (no motion is ever seen).
public enum MPU6050HighPass: UInt8, Sendable {
    case reset = 0, hz5 = 1, hz2_5 = 2, hz1_25 = 3, hz0_63 = 4, hold = 7
}

/// Accelerometer full-scale range, AFS_SEL in ACCEL_CONFIG [4:3] (RM §4.5; PS §6.2 sensitivity).
public enum MPU6050AccelRange: UInt8, CaseIterable, Sendable {
    case g2 = 0, g4 = 1, g8 = 2, g16 = 3

    /// The range in g.
    public var g: Int32 { 2 << Int32(rawValue) }
    /// ACCEL_CONFIG value.
    public var register: UInt8 { rawValue << 3 }
    /// Sensitivity, LSB per g: 16384, 8192, 4096, 2048.
    public var countsPerG: Int64 { 16384 >> Int64(rawValue) }

    public init?(g: Int32) {
        guard let r = Self.allCases.first(where: { $0.g == g }) else { return nil }
        self = r
    }
}

/// Gyroscope full-scale range, FS_SEL in GYRO_CONFIG [4:3] (RM §4.4; PS §6.1 sensitivity).
public enum MPU6050GyroRange: UInt8, CaseIterable, Sendable {
    case dps250 = 0, dps500 = 1, dps1000 = 2, dps2000 = 3

    /// The range in °/s.
    public var dps: Int32 { 250 << Int32(rawValue) }
    /// GYRO_CONFIG value.
    public var register: UInt8 { rawValue << 3 }
    /// Sensitivity in tenths of an LSB per °/s: 131, 65.5, 32.8, 16.4 LSB/(°/s).
    public var tenthCountsPerDPS: Int64 {
        switch self {
        case .dps250: return 1310
        case .dps500: return 655
        case .dps1000: return 328
        case .dps2000: return 164
        }
    }

    public init?(dps: Int32) {
        guard let r = Self.allCases.first(where: { $0.dps == dps }) else { return nil }
        self = r
    }
}

/// Digital low-pass filter, DLPF_CFG in CONFIG [2:0] (RM §4.3): accelerometer bandwidth in Hz.
/// 0 and 7 are not used: they switch the gyroscope to an 8 kHz output rate.
public enum MPU6050LowPass: UInt8, CaseIterable, Sendable {
    case hz184 = 1, hz94 = 2, hz44 = 3, hz21 = 4, hz10 = 5, hz5 = 6

    /// Accelerometer bandwidth, Hz.
    public var bandwidthHz: Int32 {
        switch self {
        case .hz184: return 184
        case .hz94: return 94
        case .hz44: return 44
        case .hz21: return 21
        case .hz10: return 10
        case .hz5: return 5
        }
    }

    /// The widest filter that still keeps below half the output rate (anti-aliasing).
    public static func forRate(milliHz: Int32) -> MPU6050LowPass {
        let nyquist = milliHz / 2000
        return allCases.first { $0.bandwidthHz <= nyquist } ?? .hz5
    }
}
