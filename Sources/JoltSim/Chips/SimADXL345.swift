import JoltCore
import JoltDrivers

/// A register-level simulated ADXL345: DEVID, power-on values (standby, 100 Hz), BW_RATE,
/// DATA_FORMAT (full resolution and range), the data registers and the 32-sample FIFO in bypass
/// or stream mode behave as the data sheet (Rev. G) describes; readings come from a
/// `MotionSource`.
public final class SimADXL345: SimulatedChip, RegisterWrites {
    public static let chipInfo = ADXL345Sensor<SimBus>.info
    var regs = [UInt8](repeating: 0, count: 0x3A)
    var pointer: UInt8 = 0
    var fifo: [(Int16, Int16, Int16)] = []
    public internal(set) var tap: MotionTap
    var measuring = false
    var latest: (Int16, Int16, Int16) = (0, 0, 0)
    public var frozen = false
    public var selfTestGainPercent: Int32 = 100

    public init(source: MotionSource) {
        tap = MotionTap(source)
        powerOnReset(now: 0)
    }

    public func powerOnReset(now: Int64) {
        for i in regs.indices { regs[i] = 0 }
        regs[Int(ADXL345Register.DEVID.rawValue)] = ADXL345Spec.deviceID
        regs[Int(ADXL345Register.BW_RATE.rawValue)] = ADXL345Spec.powerOnBandwidthRate
        fifo.removeAll()
        measuring = false
    }

    var periodMicros: Int64 {
        let code = regs[Int(ADXL345Register.BW_RATE.rawValue)] & 0x0F
        // Rate = 3200 Hz / 2^(15 - code) (DS Table 7).
        let milliHz = Int64(3_200_000) >> Int64(15 - Int(code))
        return 1_000_000_000 / max(milliHz, 1)
    }

    var mode: UInt8 { regs[Int(ADXL345Register.FIFO_CTL.rawValue)] & 0xC0 }

    func advance(to now: Int64) {
        guard measuring else { return }
        let p = periodMicros
        tap.due(by: now, period: p, frozen: frozen) { latch($0) }
    }

    /// Puts a sample in the data registers (and the FIFO, when it is on).
    func latch(_ sample: Sample) {
        let format = regs[Int(ADXL345Register.DATA_FORMAT.rawValue)]
        // The self-test force: x up, y down, z up, as a part at 3.3 V pulls them.
        let last = selfTested(sample, on: format & ADXL345DataFormat.selfTest.rawValue != 0, response: Vec3(850, -850, 1250))
        let rangeG = Int64(2) << Int64(format & 3)
        let fullRes = format & ADXL345DataFormat.fullResolution.rawValue != 0
        // Full resolution keeps 3.9 mg/LSB; otherwise 10 bits span the range.
        let countsPerG: Int64 = fullRes ? ADXL345Spec.countsPerG : 512 / rangeG
        let limit = countsPerG * rangeG
        func c(_ v: Int32) -> Int16 {
            let x = Int64(Convert.scale(v, countsPerG, 1000))
            return Int16(max(-limit, min(limit - 1, x)))
        }
        latest = (c(last.accel.x), c(last.accel.y), c(last.accel.z))
        regs[Int(ADXL345Register.INT_SOURCE.rawValue)] |= ADXL345Interrupt.dataReady.rawValue
        if mode != ADXL345FIFOMode.bypass.rawValue {
            if fifo.count == ADXL345Spec.fifoDepth {
                fifo.removeFirst()
                regs[Int(ADXL345Register.INT_SOURCE.rawValue)] |= ADXL345Interrupt.overrun.rawValue
            }
            fifo.append(latest)
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer, now: Int64) { takeWrite(bytes, now: now) }


    func store(_ r: UInt8, _ v: UInt8, now: Int64) {
        guard Int(r) < regs.count else { return }
        switch ADXL345Register(rawValue: r) {
        case .DEVID, .INT_SOURCE, .FIFO_STATUS, .DATAX0:
            return
        case .POWER_CTL:
            regs[Int(r)] = v
            let was = measuring
            measuring = v & ADXL345Power.measure.rawValue != 0
            if measuring && !was { tap.start(now: now, period: periodMicros) }
        case .FIFO_CTL:
            // Entering bypass mode clears the FIFO.
            if v & 0xC0 == ADXL345FIFOMode.bypass.rawValue { fifo.removeAll() }
            regs[Int(r)] = v
        default:
            if r >= 0x33 && r <= 0x37 { return }
            regs[Int(r)] = v
        }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, now: Int64) {
        advance(to: now)
        if pointer == ADXL345Register.DATAX0.rawValue {
            // A read of the data registers pops the oldest FIFO entry (FIFO modes) or returns
            // the newest sample (bypass).
            let v = (mode != ADXL345FIFOMode.bypass.rawValue && !fifo.isEmpty) ? fifo.removeFirst() : latest
            let bytes: [UInt8] = [v.0, v.1, v.2].flatMap { x -> [UInt8] in
                let u = UInt16(bitPattern: x)
                return [UInt8(u & 0xFF), UInt8(u >> 8)]
            }
            for i in 0..<buffer.count { buffer[i] = i < 6 ? bytes[i] : load(UInt8(0x32 + i)) }
            pointer &+= UInt8(buffer.count)
            return
        }
        for i in 0..<buffer.count {
            buffer[i] = load(pointer)
            pointer &+= 1
        }
    }

    func load(_ r: UInt8) -> UInt8 {
        guard Int(r) < regs.count else { return 0 }
        switch ADXL345Register(rawValue: r) {
        case .FIFO_STATUS: return UInt8(fifo.count)
        case .INT_SOURCE:
            let v = regs[Int(r)]
            regs[Int(r)] = v & ADXL345Interrupt.dataReady.rawValue
            return v
        default:
            return regs[Int(r)]
        }
    }

    /// Whether the chip is measuring.
    public var isMeasuring: Bool { measuring }
    /// A register's current value (for tests).
    public func register(_ r: ADXL345Register) -> UInt8 { regs[Int(r.rawValue)] }
}
