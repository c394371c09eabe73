import JoltCore
import JoltDrivers

/// A register-level simulated LSM6DSO: WHO_AM_I, power-on values (both sensors powered down,
/// IF_INC set), SW_RESET and BOOT (each reading 1 until done), CTRL1_XL and CTRL2_G (rate,
/// ranges; the gyroscope reads zero while it is off), the twelve output registers, and the FIFO
/// of tagged words (FIFO_CTRL3's batch rates, FIFO_CTRL4's bypass and continuous modes, 512
/// words, the oldest overwritten when full, FIFO_STATUS1/2 with DIFF_FIFO and the overrun flags;
/// a read from FIFO_DATA_OUT_TAG takes a word and rolls back from 0x7E to the next), as the
/// datasheet (DS12140) describes; readings come from a `MotionSource`. Each time slot's words go
/// in gyroscope first, under one TAG_CNT. TAG_PARITY is written as the parity of the tag's other
/// seven bits (the driver, like Linux's, does not check it).
public final class SimLSM6DSO: PinnedTwin, RegisterWrites {
    public static let chipInfo = LSM6DSOSensor<SimBus>.info
    var regs = RegisterFile<LSM6DSORegister>(count: 0x80)
    var pointer: UInt8 = 0
    /// FIFO words, seven bytes each, oldest first.
    var fifo: [[UInt8]] = []
    var overrunLatched = false
    var overrunNow = false
    /// TAG_CNT of the next time slot.
    var slotCounter: UInt8 = 0
    /// The word being read out of FIFO_DATA_OUT_TAG..Z_H.
    var word = [UInt8](repeating: 0, count: LSM6DSOSpec.fifoWordSize)
    public internal(set) var tap: MotionTap
    var resetDoneAt: Int64 = 0
    var bootDoneAt: Int64 = 0
    /// How long SW_RESET and BOOT take, µs (the bits read 1 until then).
    public var resetMicros: Int64 = 50
    public var bootMicros: Int64 = 10_000
    public var frozen = false
    public var selfTestGainPercent: Int32 = 100
    /// The wake-up: the last accelerometer reading (mg) for the slope filter, whether the event
    /// holds (WU_IA, not latched); an accelerometer reading not yet read (XLDA); INT1's level and
    /// its rises since power-on.
    var lastAccel: Vec3?
    var highPass = HighPass()
    var wakeUp = false
    var unread = false
    var int1 = PinLevel()

    public init(source: MotionSource) {
        tap = MotionTap(source)
        powerOnReset(now: 0)
    }

    public func powerOnReset(now: Int64) {
        regs.clear()
        regs[.WHO_AM_I] = LSM6DSOSpec.whoAmI
        regs[.CTRL3_C] = LSM6DSOSpec.powerOnCTRL3
        fifo.removeAll()
        overrunLatched = false
        overrunNow = false
        slotCounter = 0
        lastAccel = nil
        highPass.reset()
        wakeUp = false
        unread = false
        int1.drive(false)
    }

    var autoIncrement: Bool { regs[.CTRL3_C] & LSM6DSOCTRL3.IF_INC.rawValue != 0 }

    /// The accelerometer's rate from ODR_XL, µs per sample; nil when powered down.
    var periodMicros: Int64? {
        guard let rate = LSM6DSORate(rawValue: regs[.CTRL1_XL] >> 4) else { return nil }
        return 1_000_000_000 / Int64(rate.milliHz)
    }

    var gyroOn: Bool { LSM6DSORate(rawValue: regs[.CTRL2_G] >> 4) != nil }
    var fifoOn: Bool { regs[.FIFO_CTRL4] & 0x07 == LSM6DSOFIFOMode.continuous.rawValue }

    func advance(to now: Int64) {
        guard let p = periodMicros else { return }
        tap.due(by: now, period: p, frozen: frozen) { latch($0) }
    }

    /// Puts a sample in the output registers (and the FIFO, when it batches).
    func latch(_ sample: Sample) {
        let s = selfTested(sample, on: regs[.CTRL5_C] & 0x03 == LSM6DSOSpec.accelSelfTestPositive, response: Vec3(600, 600, 700))
        let accel = LSM6DSOAccelRange(rawValue: (regs[.CTRL1_XL] >> 2) & 0x3) ?? .g2
        let gyro = LSM6DSOGyroRange(rawValue: (regs[.CTRL2_G] >> 1) & 0x7) ?? .dps250
        func bytes(_ v: Vec3, _ perLSB: Int64) -> [UInt8] {
            [v.x, v.y, v.z].flatMap { x -> [UInt8] in
                let u = UInt16(bitPattern: Int16(clamping: Int64(Convert.scale(x, 1_000_000, perLSB * 1000))))
                return [UInt8(u & 0xFF), UInt8(u >> 8)]
            }
        }
        let a = bytes(s.accel, accel.microGPerLSB)
        let g = gyroOn ? bytes(s.gyro, gyro.microDpsPerLSB) : [UInt8](repeating: 0, count: 6)
        regs.fill(from: .OUTX_L_G, g + a)
        unread = true
        wakeUp = detectWakeUp(s.accel, range: accel)
        defer { updatePin() }
        guard fifoOn else { return }
        let batch = regs[.FIFO_CTRL3]
        if batch >> 4 != 0 { push(.gyroscopeNC, g) }
        if batch & 0x0F != 0 { push(.accelerometerNC, a) }
        slotCounter = (slotCounter + 1) & 0x03
    }

    func push(_ tag: LSM6DSOTag, _ data: [UInt8]) {
        var t = tag.rawValue << 3 | slotCounter << 1
        if t.nonzeroBitCount % 2 == 1 { t |= 1 }
        if fifo.count == LSM6DSOSpec.fifoWords {
            fifo.removeFirst()
            overrunLatched = true
            overrunNow = true
        }
        fifo.append([t] + data)
    }

    /// The wake-up (TAP_CFG2's INTERRUPTS_ENABLE): the slope filter (half the change since the
    /// last reading) or, with TAP_CFG0's SLOPE_FDS, the high-pass filter (first order, at the
    /// ODR divided as CTRL8_XL's HPCF_XL says), past WK_THS (FS_XL / 2⁶ a count, or / 2⁸ with
    /// WAKE_THS_W) on any axis.
    func detectWakeUp(_ a: Vec3, range: LSM6DSOAccelRange) -> Bool {
        defer { lastAccel = a }
        var d: (x: Int64, y: Int64, z: Int64)
        if regs[.TAP_CFG0] & LSM6DSOSpec.SLOPE_FDS != 0, let p = periodMicros {
            let divider: [Int64] = [4, 10, 20, 45, 100, 200, 400, 800]
            d = highPass.filter(a, periodMicros: p, cutoffMilliHz: max(1_000_000_000 / p / divider[Int(regs[.CTRL8_XL] >> 5)], 1))
        } else {
            guard let last = lastAccel else { return false }
            d = ((Int64(a.x - last.x) << 10) / 2, (Int64(a.y - last.y) << 10) / 2, (Int64(a.z - last.z) << 10) / 2)
        }
        guard regs[.TAP_CFG2] & LSM6DSOSpec.INTERRUPTS_ENABLE != 0 else { return false }
        let fine = regs[.WAKE_UP_DUR] & LSM6DSOSpec.WAKE_THS_W != 0
        return HighPass.past(d, limitMilliG: Int64(regs[.WAKE_UP_THS] & 0x3F) * Int64(range.g) * 1000 / (fine ? 256 : 64))
    }

    /// INT1's level, active high (CTRL3_C's H_LACTIVE 0): the FIFO at its watermark (INT1_CTRL's
    /// INT1_FIFO_TH), a reading not yet read (INT1_DRDY_XL), the wake-up (MD1_CFG's INT1_WU); a
    /// rise counted.
    func updatePin() {
        let ctrl = regs[.INT1_CTRL]
        let mark = Int(regs[.FIFO_CTRL1]) | Int(regs[.FIFO_CTRL2] & 1) << 8
        let high = (ctrl & LSM6DSOSpec.INT1_FIFO_TH != 0 && fifoOn && mark > 0 && fifo.count >= mark)
            || (ctrl & LSM6DSOSpec.INT1_DRDY_XL != 0 && unread)
            || (regs[.MD1_CFG] & LSM6DSOSpec.INT1_WU != 0 && wakeUp)
        int1.drive(high)
    }

    public func write(_ bytes: UnsafeRawBufferPointer, now: Int64) { takeWrite(bytes, now: now) }

    func next(after r: UInt8) -> UInt8 { autoIncrement ? r &+ 1 : r }

    func store(_ r: UInt8, _ v: UInt8, now: Int64) {
        guard regs.holds(r) else { return }
        switch LSM6DSORegister(rawValue: r) {
        case .WHO_AM_I, .STATUS_REG, .FIFO_STATUS1, .FIFO_STATUS2, .FIFO_DATA_OUT_TAG, .WAKE_UP_SRC:
            return
        case .CTRL3_C:
            if v & LSM6DSOCTRL3.SW_RESET.rawValue != 0 {
                powerOnReset(now: now)
                resetDoneAt = now + resetMicros
                return
            }
            if v & LSM6DSOCTRL3.BOOT.rawValue != 0 { bootDoneAt = now + bootMicros }
            regs[address: r] = v & ~(LSM6DSOCTRL3.SW_RESET.rawValue | LSM6DSOCTRL3.BOOT.rawValue)
        case .CTRL1_XL:
            let wasOn = periodMicros != nil
            regs[address: r] = v
            if !wasOn, let p = periodMicros { tap.start(now: now, period: p) }
        case .FIFO_CTRL4:
            if v & 0x07 == LSM6DSOFIFOMode.bypass.rawValue {
                fifo.removeAll()
                overrunLatched = false
                overrunNow = false
            }
            regs[address: r] = v
        default:
            if (0x20...0x2D).contains(r) || (0x78...0x7E).contains(r) { return }
            regs[address: r] = v
        }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, now: Int64) {
        advance(to: now)
        for i in 0..<buffer.count {
            if (0x78...0x7E).contains(pointer) {
                if pointer == 0x78 { word = popWord() }
                buffer[i] = word[Int(pointer - 0x78)]
                if autoIncrement { pointer = pointer == 0x7E ? 0x78 : pointer + 1 }
            } else {
                if (0x22...0x2D).contains(pointer) { unread = false }
                buffer[i] = load(pointer, now: now)
                if autoIncrement { pointer &+= 1 }
            }
        }
        updatePin()
    }

    func popWord() -> [UInt8] {
        guard !fifo.isEmpty else { return [UInt8](repeating: 0, count: LSM6DSOSpec.fifoWordSize) }
        overrunNow = false
        return fifo.removeFirst()
    }

    func load(_ r: UInt8, now: Int64) -> UInt8 {
        guard regs.holds(r) else { return 0 }
        switch LSM6DSORegister(rawValue: r) {
        case .CTRL3_C:
            return regs[address: r] | (now < resetDoneAt ? LSM6DSOCTRL3.SW_RESET.rawValue : 0) | (now < bootDoneAt ? LSM6DSOCTRL3.BOOT.rawValue : 0)
        case .FIFO_STATUS1:
            return UInt8(fifo.count & 0xFF)
        case .FIFO_STATUS2:
            var s: LSM6DSOFIFOStatus2 = []
            if overrunNow { s.insert(.FIFO_OVR_IA) }
            if overrunLatched { s.insert(.FIFO_OVR_LATCHED) }
            if fifo.count == LSM6DSOSpec.fifoWords { s.insert(.FIFO_FULL_IA) }
            let mark = Int(regs[.FIFO_CTRL1]) | Int(regs[.FIFO_CTRL2] & 1) << 8
            if mark > 0 && fifo.count >= mark { s.insert(.FIFO_WTM_IA) }
            overrunLatched = false
            return s.rawValue | UInt8(fifo.count >> 8) & LSM6DSOFIFOStatus2.diffHighMask
        case .WAKE_UP_SRC:
            return wakeUp ? LSM6DSOSpec.WU_IA : 0
        default:
            return regs[address: r]
        }
    }

    /// Whether the chip is measuring (the accelerometer not powered down).
    public var isMeasuring: Bool { periodMicros != nil }
    /// Words in the FIFO.
    public var fifoWords: Int { fifo.count }
    /// A register's current value (for tests).
    public func register(_ r: LSM6DSORegister) -> UInt8 { regs[r] }
}
