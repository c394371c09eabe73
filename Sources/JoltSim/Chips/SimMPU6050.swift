import JoltCore
import JoltDrivers

/// A register-level simulated MPU6050: power-on values, sleep, reset, ranges, the sample-rate
/// divider, the data registers and the 1024-byte FIFO behave as the register map
/// (RM-MPU-6000A-00) describes; readings come from a `MotionSource`.
public final class SimMPU6050: PinnedTwin, RegisterWrites {
    public static let chipInfo = MPU6050Sensor<SimBus>.info
    var regs = RegisterFile<MPU6050Register>(count: 128)
    var pointer: UInt8 = 0
    var fifo = [UInt8](repeating: 0, count: MPU6050Spec.fifoSize)
    var fifoHead = 0
    var fifoCount = 0
    public internal(set) var tap: MotionTap
    /// What WHO_AM_I reads (0x68 for a genuine part; a clone's value to test those).
    public let whoAmI: UInt8
    /// How long DEVICE_RESET takes, µs (the bit reads 1 until then).
    public var resetMicros: Int64 = 50_000
    var resetDoneAt: Int64 = 0
    var awake = false
    /// Frames lost to FIFO overflow.
    public private(set) var overflowedBytes = 0
    public var frozen = false
    public var selfTestGainPercent: Int32 = 100
    /// The motion detector's high-pass filter.
    var motionFilter = HighPass()
    /// INT: a 50 µs pulse each, or a latched level's rise.
    var int1 = PinLevel()
    /// The factory trim it reads in SELF_TEST_X … _A: A_TEST 16 on every axis, 559 mg.
    static let aTest: UInt8 = 16

    public convenience init(source: MotionSource) { self.init(source: source, whoAmI: MPU6050Spec.whoAmI) }

    public init(source: MotionSource, whoAmI: UInt8) {
        tap = MotionTap(source)
        self.whoAmI = whoAmI
        powerOnReset(now: 0)
    }

    public func powerOnReset(now: Int64) {
        regs.clear()
        regs[.PWR_MGMT_1] = MPU6050Spec.powerOnPowerManagement1
        regs[.WHO_AM_I] = whoAmI
        for r in [MPU6050Register.SELF_TEST_X, .SELF_TEST_Y, .SELF_TEST_Z] { regs[r] = (Self.aTest >> 2) << 5 }
        let low = Self.aTest & 3
        regs[.SELF_TEST_A] = low << 4 | low << 2 | low
        fifoHead = 0
        fifoCount = 0
        awake = false
        motionFilter.reset()
    }

    /// Sample period from SMPLRT_DIV and DLPF_CFG (8 kHz gyro rate when the filter is off).
    var periodMicros: Int64 {
        let dlpf = regs[.CONFIG] & 0x07
        let base: Int64 = (dlpf == 0 || dlpf == 7) ? 125 : 1000
        return base * (Int64(regs[.SMPLRT_DIV]) + 1)
    }

    /// Produces every sample due by `now`.
    func advance(to now: Int64) {
        guard awake else { return }
        let p = periodMicros
        tap.due(by: now, period: p, frozen: frozen) { latch($0) }
    }

    /// Puts a sample in the data registers (and the FIFO, when it is on).
    func latch(_ sample: Sample) {
        // The self-test force pulls each axis whose XA/YA/ZA_ST bit is set by its factory trim.
        let st = regs[.ACCEL_CONFIG] & MPU6050Spec.accelSelfTestBits
        let trim = MPU6050Spec.factoryTrimMilliG[Int(Self.aTest) - 1]
        let last = selfTested(sample, on: st != 0, response: Vec3(st & 0x80 != 0 ? trim : 0, st & 0x40 != 0 ? trim : 0, st & 0x20 != 0 ? trim : 0))
        let accelCounts = MPU6050AccelRange(rawValue: (regs[.ACCEL_CONFIG] >> 3) & 3)!.countsPerG
        let gyroTenths = MPU6050GyroRange(rawValue: (regs[.GYRO_CONFIG] >> 3) & 3)!.tenthCountsPerDPS
        func counts(_ v: Int32, _ num: Int64, _ den: Int64) -> (UInt8, UInt8) {
            let c = Int64(Convert.scale(v, num, den))
            let u = UInt16(bitPattern: Int16(clamping: c))
            return (UInt8(u >> 8), UInt8(u & 0xFF))
        }
        var data: [UInt8] = []
        for v in [last.accel.x, last.accel.y, last.accel.z] {
            let (h, l) = counts(v, accelCounts, 1000)
            data += [h, l]
        }
        data += [0xF0, 0xB0]   // TEMP_OUT: -3920 counts ≈ 25 °C ((T − 36.53) × 340)
        for v in [last.gyro.x, last.gyro.y, last.gyro.z] {
            let (h, l) = counts(v, gyroTenths, 10_000)
            data += [h, l]
        }
        regs.fill(from: .ACCEL_XOUT_H, data)
        var raised: MPU6050Interrupt = .dataReady
        if detectMotion(last.accel) { raised.insert(.motion) }
        defer { signal(raised) }
        let user = MPU6050UserControl(rawValue: regs[.USER_CTRL])
        let en = MPU6050FIFOEnable(rawValue: regs[.FIFO_EN])
        guard user.contains(.fifoEnable) else { return }
        var frame: [UInt8] = []
        if en.contains(.accel) { frame += data[0..<6] }
        if en.contains(.temperature) { frame += data[6..<8] }
        if en.contains(.gyroX) { frame += data[8..<10] }
        if en.contains(.gyroY) { frame += data[10..<12] }
        if en.contains(.gyroZ) { frame += data[12..<14] }
        for b in frame { push(b) }
    }

    func push(_ b: UInt8) {
        let cap = fifo.count
        if fifoCount == cap {
            // Full: the oldest byte is lost (RM §4.17: "the oldest data will be lost").
            fifoHead = (fifoHead + 1) % cap
            fifoCount -= 1
            overflowedBytes += 1
            if regs[.INT_STATUS] & MPU6050Interrupt.fifoOverflow.rawValue == 0 { signal(.fifoOverflow) }
        }
        fifo[(fifoHead + fifoCount) % cap] = b
        fifoCount += 1
    }

    func pop() -> UInt8 {
        guard fifoCount > 0 else { return 0 }
        let b = fifo[fifoHead]
        fifoHead = (fifoHead + 1) % fifo.count
        fifoCount -= 1
        return b
    }

    /// The motion detector: the reading high-passed by ACCEL_HPF (a first-order filter; "hold"
    /// keeps the reference it had) past MOT_THR (2 mg a count) on any axis. With the filter at
    /// reset its output is zero: never motion.
    func detectMotion(_ a: Vec3) -> Bool {
        let code = regs[.ACCEL_CONFIG] & 0x07
        let cutoffMilliHz: Int64
        switch MPU6050HighPass(rawValue: code) {
        case .hz5: cutoffMilliHz = 5000
        case .hz2_5: cutoffMilliHz = 2500
        case .hz1_25: cutoffMilliHz = 1250
        case .hz0_63: cutoffMilliHz = 630
        case .hold: cutoffMilliHz = 0
        case .reset, nil:
            motionFilter.reset()
            return false
        }
        let d = motionFilter.filter(a, periodMicros: periodMicros, cutoffMilliHz: cutoffMilliHz)
        return HighPass.past(d, limitMilliG: Int64(regs[.MOT_THR]) * Int64(MPU6050Spec.motionThresholdMilliGPerCount))
    }

    /// Sets `raised` in INT_STATUS and drives INT for the enabled ones: a 50 µs pulse each time
    /// (LATCH_INT_EN 0), or a level held until INT_STATUS is read (1).
    func signal(_ raised: MPU6050Interrupt) {
        let enabled = regs[.INT_ENABLE]
        let latched = regs[.INT_PIN_CFG] & (1 << 5) != 0
        let wasHigh = regs[.INT_STATUS] & enabled != 0
        regs[.INT_STATUS] |= raised.rawValue
        if raised.rawValue & enabled != 0 && !(latched && wasHigh) { int1.pulse() }
    }

    public func write(_ bytes: UnsafeRawBufferPointer, now: Int64) { takeWrite(bytes, now: now) }

    func next(after r: UInt8) -> UInt8 { r == MPU6050Register.FIFO_R_W.rawValue ? r : r &+ 1 }

    func store(_ r: UInt8, _ v: UInt8, now: Int64) {
        guard regs.holds(r) else { return }
        switch MPU6050Register(rawValue: r) {
        case .WHO_AM_I, .INT_STATUS, .FIFO_COUNTH, .FIFO_COUNTL, .SELF_TEST_X, .SELF_TEST_Y, .SELF_TEST_Z, .SELF_TEST_A:
            return   // read-only
        case .PWR_MGMT_1:
            if v & MPU6050Power.deviceReset.rawValue != 0 {
                powerOnReset(now: now)
                regs[address: r] = MPU6050Spec.powerOnPowerManagement1 | MPU6050Power.deviceReset.rawValue
                resetDoneAt = now + resetMicros
                return
            }
            regs[address: r] = v
            let wasAwake = awake
            awake = v & MPU6050Power.sleep.rawValue == 0
            if awake && !wasAwake { tap.start(now: now, period: periodMicros) }
        case .USER_CTRL:
            if v & MPU6050UserControl.fifoReset.rawValue != 0 {
                fifoHead = 0
                fifoCount = 0
            }
            regs[address: r] = v & ~MPU6050UserControl.fifoReset.rawValue   // FIFO_RESET clears itself
        case .FIFO_R_W:
            push(v)
        default:
            regs[address: r] = v
        }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, now: Int64) {
        advance(to: now)
        if resetDoneAt != 0 && now >= resetDoneAt {
            regs[.PWR_MGMT_1] &= ~MPU6050Power.deviceReset.rawValue
            resetDoneAt = 0
        }
        for i in 0..<buffer.count {
            buffer[i] = load(pointer)
            if pointer != MPU6050Register.FIFO_R_W.rawValue { pointer &+= 1 }
        }
    }

    func load(_ r: UInt8) -> UInt8 {
        switch MPU6050Register(rawValue: r) {
        case .FIFO_R_W: return pop()
        case .FIFO_COUNTH: return UInt8(fifoCount >> 8)
        case .FIFO_COUNTL: return UInt8(fifoCount & 0xFF)
        case .INT_STATUS:
            let v = regs[address: r]
            regs[address: r] = 0   // cleared on read
            return v
        default:
            return regs[address: r]
        }
    }

    /// Whether the chip is awake (measuring).
    public var isAwake: Bool { awake }
    /// A register's current value (for tests).
    public func register(_ r: MPU6050Register) -> UInt8 { regs[r] }
}
