import JoltCore
import JoltDrivers

/// A register-level simulated LIS3DH: WHO_AM_I, power-on values (power-down, axes enabled),
/// BOOT, CTRL_REG1 (rate, power-down), CTRL_REG4 (range, high resolution), the data registers
/// with auto-increment, and the 32-level FIFO in bypass or stream mode with OVRN_FIFO, as the
/// data sheet (DocID17530) describes; readings come from a `MotionSource`.
public final class SimLIS3DH: PinnedTwin, RegisterWrites {
    public static let chipInfo = LIS3DHSensor<SimBus>.info
    var regs = RegisterFile<LIS3DHRegister>(count: 0x40)
    var pointer: UInt8 = 0
    var autoIncrement = false
    var fifo: [(Int16, Int16, Int16)] = []
    var overrun = false
    public internal(set) var tap: MotionTap
    var bootDoneAt: Int64 = 0
    /// How long BOOT takes, µs (the bit reads 1 until then).
    public var bootMicros: Int64 = 2_000
    var latest: (Int16, Int16, Int16) = (0, 0, 0)
    public var frozen = false
    public var selfTestGainPercent: Int32 = 100
    /// Interrupt 1: the high-pass filter's base (mg × 1024), whether its condition holds, a
    /// reading not yet read (ZYXDA); INT1's level and its rises since power-on.
    var highPass = HighPass()
    var interrupt1Active = false
    var unread = false
    var int1 = PinLevel()

    public init(source: MotionSource) {
        tap = MotionTap(source)
        powerOnReset(now: 0)
    }

    public func powerOnReset(now: Int64) {
        regs.clear()
        regs[.WHO_AM_I] = LIS3DHSpec.whoAmI
        regs[.CTRL_REG1] = LIS3DHSpec.powerOnControl1
        fifo.removeAll()
        overrun = false
        latest = (0, 0, 0)
        highPass.reset()
        interrupt1Active = false
        unread = false
        int1.drive(false)
    }

    /// The rate from CTRL_REG1's ODR, µs per sample; nil when powered down.
    var periodMicros: Int64? {
        guard let rate = LIS3DHRate(rawValue: regs[.CTRL_REG1] & 0xF0) else { return nil }
        return 1_000_000_000 / Int64(rate.milliHz)
    }

    var fifoMode: UInt8 { regs[.FIFO_CTRL_REG] & 0xC0 }
    var fifoOn: Bool { regs[.CTRL_REG5] & LIS3DHControl5.fifoEnable.rawValue != 0 && fifoMode != LIS3DHFIFOMode.bypass.rawValue }

    func advance(to now: Int64) {
        guard let p = periodMicros else { return }
        tap.due(by: now, period: p, frozen: frozen) { latch($0) }
    }

    /// Puts a sample in the data registers (and the FIFO, when it is on).
    func latch(_ sample: Sample) {
        let last = selfTested(sample, on: regs[.CTRL_REG4] & LIS3DHControl4.selfTest0.rawValue != 0, response: Vec3(420, 420, 580))
        let range = LIS3DHRange(rawValue: regs[.CTRL_REG4] & 0x30) ?? .g2
        let highRes = regs[.CTRL_REG4] & LIS3DHControl4.highResolution.rawValue != 0
        // 12 bits in high-resolution mode, 10 in normal mode (4× the mg per digit), left-justified.
        let perDigit = Int64(range.milliGPerDigit) * (highRes ? 1 : 4)
        let shift: Int64 = highRes ? 4 : 6
        let top: Int64 = highRes ? 2047 : 511
        func c(_ v: Int32) -> Int16 {
            let x = Int64(Convert.scale(v, 1, perDigit))
            return Int16(max(-top - 1, min(top, x)) << shift)
        }
        latest = (c(last.accel.x), c(last.accel.y), c(last.accel.z))
        if fifoOn {
            if fifo.count == LIS3DHSpec.fifoDepth {
                fifo.removeFirst()
                overrun = true
            }
            fifo.append(latest)
            if fifo.count == LIS3DHSpec.fifoDepth { overrun = true }
        }
        unread = true
        interrupt1Active = interrupt1(last.accel, range: range)
        updatePin()
    }

    /// Interrupt 1's condition (non-latched): a high event on an enabled axis of INT1_CFG, the
    /// reading high-passed when CTRL_REG2's HP_IA1 says (normal mode, the cutoff HPCF gives at
    /// the rate: ODR / 50 halved per step), past INT1_THS.
    func interrupt1(_ a: Vec3, range: LIS3DHRange) -> Bool {
        var f = (x: Int64(a.x) << 10, y: Int64(a.y) << 10, z: Int64(a.z) << 10)
        if regs[.CTRL_REG2] & 0x01 != 0, let p = periodMicros {
            let cutoffMilliHz = max(Int64(1_000_000_000 / p) / 50 >> Int64((regs[.CTRL_REG2] >> 4) & 3), 1)
            f = highPass.filter(a, periodMicros: p, cutoffMilliHz: cutoffMilliHz)
        }
        let cfg = regs[.INT1_CFG]
        return HighPass.past(f, limitMilliG: Int64(regs[.INT1_THS] & 0x7F) * Int64(range.thresholdMilliG), axes: (cfg & 0x02 != 0, cfg & 0x08 != 0, cfg & 0x20 != 0))
    }

    /// INT1's level from what CTRL_REG3 routes to it; a rise counted.
    func updatePin() {
        let en = LIS3DHInterrupt1(rawValue: regs[.CTRL_REG3])
        let fth = Int(regs[.FIFO_CTRL_REG] & 0x1F)
        let high = (en.contains(.ia1) && interrupt1Active) || (en.contains(.watermark) && fifoOn && fifo.count > fth)
            || (en.contains(.dataReady) && unread)
        int1.drive(high)
    }

    public func write(_ bytes: UnsafeRawBufferPointer, now: Int64) { takeWrite(bytes, now: now) }

    func point(_ first: UInt8) {
        pointer = first & ~LIS3DHSpec.autoIncrement
        autoIncrement = first & LIS3DHSpec.autoIncrement != 0
    }

    func next(after r: UInt8) -> UInt8 { autoIncrement ? r &+ 1 : r }

    func store(_ r: UInt8, _ v: UInt8, now: Int64) {
        guard regs.holds(r) else { return }
        switch LIS3DHRegister(rawValue: r) {
        case .WHO_AM_I, .STATUS_REG, .FIFO_SRC_REG, .OUT_X_L, .INT1_SRC, .REFERENCE:
            return
        case .CTRL_REG1:
            let wasOn = periodMicros != nil
            regs[address: r] = v
            if !wasOn, let p = periodMicros { tap.start(now: now, period: p) }
        case .CTRL_REG5:
            if v & LIS3DHControl5.boot.rawValue != 0 {
                powerOnReset(now: now)
                bootDoneAt = now + bootMicros
                regs[address: r] = v & ~LIS3DHControl5.boot.rawValue
                return
            }
            regs[address: r] = v
        case .FIFO_CTRL_REG:
            // Bypass mode empties the FIFO.
            if v & 0xC0 == LIS3DHFIFOMode.bypass.rawValue {
                fifo.removeAll()
                overrun = false
            }
            regs[address: r] = v
        default:
            if r >= 0x28 && r <= 0x2D { return }
            regs[address: r] = v
        }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, now: Int64) {
        advance(to: now)
        var data: [UInt8] = []
        for i in 0..<buffer.count {
            if pointer >= 0x28 && pointer <= 0x2D {
                // A read of OUT_X_L pops the oldest FIFO level (FIFO on) or takes the newest sample.
                if pointer == 0x28 || data.isEmpty { data = popSample() }
                buffer[i] = data[Int(pointer - 0x28)]
                if autoIncrement { pointer = pointer == 0x2D && fifoOn ? 0x28 : pointer &+ 1 }
            } else {
                buffer[i] = load(pointer, now: now)
                if autoIncrement { pointer &+= 1 }
            }
        }
        updatePin()
    }

    func popSample() -> [UInt8] {
        let v = fifoOn && !fifo.isEmpty ? fifo.removeFirst() : latest
        if fifo.count < LIS3DHSpec.fifoDepth { overrun = false }
        unread = false
        return [v.0, v.1, v.2].flatMap { x -> [UInt8] in
            let u = UInt16(bitPattern: x)
            return [UInt8(u & 0xFF), UInt8(u >> 8)]
        }
    }

    func load(_ r: UInt8, now: Int64) -> UInt8 {
        guard regs.holds(r) else { return 0 }
        switch LIS3DHRegister(rawValue: r) {
        case .CTRL_REG5:
            return regs[address: r] | (now < bootDoneAt ? LIS3DHControl5.boot.rawValue : 0)
        case .FIFO_SRC_REG:
            let level = UInt8(min(fifo.count, 31))
            let wtm = fifo.count > Int(regs[.FIFO_CTRL_REG] & 0x1F) ? LIS3DHFIFOSource.watermark.rawValue : 0
            return wtm | (overrun ? LIS3DHFIFOSource.overrun.rawValue : 0) | (fifo.isEmpty ? LIS3DHFIFOSource.empty.rawValue : 0) | level
        case .INT1_SRC:
            return interrupt1Active ? 0x40 : 0
        case .REFERENCE:
            highPass.reset()   // reading it resets the high-pass filter
            return regs[address: r]
        default:
            return regs[address: r]
        }
    }

    /// Whether the chip is measuring (not powered down).
    public var isMeasuring: Bool { periodMicros != nil }
    /// Levels in the FIFO.
    public var fifoLevels: Int { fifo.count }
    /// A register's current value (for tests).
    public func register(_ r: LIS3DHRegister) -> UInt8 { regs[r] }
}
