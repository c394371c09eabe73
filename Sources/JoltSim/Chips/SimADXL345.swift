import JoltCore
import JoltDrivers

/// A register-level simulated ADXL345: DEVID, power-on values (standby, 100 Hz), BW_RATE,
/// DATA_FORMAT (full resolution and range), the data registers and the 32-sample FIFO in bypass
/// or stream mode behave as the data sheet (Rev. G) describes; readings come from a
/// `MotionSource`.
public final class SimADXL345: PinnedTwin, RegisterWrites {
    public static let chipInfo = ADXL345Sensor<SimBus>.info
    var regs = RegisterFile<ADXL345Register>(count: 0x3A)
    var pointer: UInt8 = 0
    var fifo: [(Int16, Int16, Int16)] = []
    public internal(set) var tap: MotionTap
    var measuring = false
    var latest: (Int16, Int16, Int16) = (0, 0, 0)
    public var frozen = false
    public var selfTestGainPercent: Int32 = 100
    /// The activity and inactivity functions (DS "Register 0x27"): the ac-coupled references,
    /// whether linked activity waits for inactivity, and the readings below THRESH_INACT so far.
    var activityReference: Vec3?
    var inactivityReference = Vec3.zero
    var awaitingInactivity = false
    var quietReadings = 0
    var int1 = PinLevel()

    public init(source: MotionSource) {
        tap = MotionTap(source)
        powerOnReset(now: 0)
    }

    public func powerOnReset(now: Int64) {
        regs.clear()
        regs[.DEVID] = ADXL345Spec.deviceID
        regs[.BW_RATE] = ADXL345Spec.powerOnBandwidthRate
        fifo.removeAll()
        measuring = false
        activityReference = nil
        awaitingInactivity = false
        quietReadings = 0
        int1.drive(false)
    }

    var periodMicros: Int64 {
        let code = regs[.BW_RATE] & 0x0F
        // Rate = 3200 Hz / 2^(15 - code) (DS Table 7).
        let milliHz = Int64(3_200_000) >> Int64(15 - Int(code))
        return 1_000_000_000 / max(milliHz, 1)
    }

    var mode: UInt8 { regs[.FIFO_CTL] & 0xC0 }

    func advance(to now: Int64) {
        guard measuring else { return }
        let p = periodMicros
        tap.due(by: now, period: p, frozen: frozen) { latch($0) }
    }

    /// Puts a sample in the data registers (and the FIFO, when it is on).
    func latch(_ sample: Sample) {
        let format = regs[.DATA_FORMAT]
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
        regs[.INT_SOURCE] |= ADXL345Interrupt.dataReady.rawValue
        if mode != ADXL345FIFOMode.bypass.rawValue {
            if fifo.count == ADXL345Spec.fifoDepth {
                fifo.removeFirst()
                regs[.INT_SOURCE] |= ADXL345Interrupt.overrun.rawValue
            }
            fifo.append(latest)
        }
        detectActivity(last.accel)
        updatePin()
    }

    /// Activity: any enabled axis past THRESH_ACT from the reference taken when activity
    /// detection started (ac-coupled); linked (POWER_CTL's Link), activity then waits for
    /// TIME_INACT of readings within THRESH_INACT, which takes a new reference (DS "Register
    /// 0x27", "Link Bit").
    func detectActivity(_ a: Vec3) {
        let ctl = regs[.ACT_INACT_CTL]
        guard ctl & 0x70 != 0 else { return }
        let linked = regs[.POWER_CTL] & ADXL345Power.link.rawValue != 0
        let k = ADXL345Spec.thresholdDeciMilliGPerCount
        if awaitingInactivity && linked {
            let limit = Int32(regs[.THRESH_INACT]) * k / 10
            if Self.past(a - inactivityReference, limit, axes: ctl) { inactivityReference = a; quietReadings = 0 } else { quietReadings += 1 }
            let needed = Int(regs[.TIME_INACT]) * Int(1_000_000 / periodMicros)
            if quietReadings >= needed {
                regs[.INT_SOURCE] |= ADXL345Interrupt.inactivity.rawValue
                awaitingInactivity = false
                activityReference = a
            }
            return
        }
        guard let ref = activityReference else {
            activityReference = a
            return
        }
        let limit = Int32(regs[.THRESH_ACT]) * k / 10
        guard Self.past(a - ref, limit, axes: ctl >> 4) else { return }
        regs[.INT_SOURCE] |= ADXL345Interrupt.activity.rawValue
        if linked {
            awaitingInactivity = true
            inactivityReference = a
            quietReadings = 0
        }
    }

    /// Whether `d` passes `limit` on an axis enabled in the low three bits of `axes` (x: bit 2).
    static func past(_ d: Vec3, _ limit: Int32, axes: UInt8) -> Bool {
        (axes & 4 != 0 && abs(d.x) > limit) || (axes & 2 != 0 && abs(d.y) > limit) || (axes & 1 != 0 && abs(d.z) > limit)
    }

    /// INT1's level: an enabled source mapped to it (INT_MAP bit 0), the watermark's bit
    /// following the FIFO's entries; a rise counted.
    func updatePin() {
        let samples = Int(regs[.FIFO_CTL] & 0x1F)
        if mode != ADXL345FIFOMode.bypass.rawValue && samples > 0 && fifo.count >= samples {
            regs[.INT_SOURCE] |= ADXL345Interrupt.watermark.rawValue
        } else {
            regs[.INT_SOURCE] &= ~ADXL345Interrupt.watermark.rawValue
        }
        let high = regs[.INT_SOURCE] & regs[.INT_ENABLE] & ~regs[.INT_MAP] != 0
        int1.drive(high)
    }

    public func write(_ bytes: UnsafeRawBufferPointer, now: Int64) { takeWrite(bytes, now: now) }

    func store(_ r: UInt8, _ v: UInt8, now: Int64) {
        guard regs.holds(r) else { return }
        switch ADXL345Register(rawValue: r) {
        case .DEVID, .INT_SOURCE, .FIFO_STATUS, .DATAX0:
            return
        case .POWER_CTL:
            regs[address: r] = v
            let was = measuring
            measuring = v & ADXL345Power.measure.rawValue != 0
            if measuring && !was {
                tap.start(now: now, period: periodMicros)
                activityReference = nil
                awaitingInactivity = false
            }
        case .FIFO_CTL:
            // Entering bypass mode clears the FIFO.
            if v & 0xC0 == ADXL345FIFOMode.bypass.rawValue { fifo.removeAll() }
            regs[address: r] = v
        default:
            if r >= 0x33 && r <= 0x37 { return }
            regs[address: r] = v
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
            // DATA_READY clears once the data is read (in a FIFO mode, once it is empty).
            if mode == ADXL345FIFOMode.bypass.rawValue || fifo.isEmpty {
                regs[.INT_SOURCE] &= ~ADXL345Interrupt.dataReady.rawValue
            }
            updatePin()
            return
        }
        for i in 0..<buffer.count {
            buffer[i] = load(pointer)
            pointer &+= 1
        }
        updatePin()
    }

    func load(_ r: UInt8) -> UInt8 {
        guard regs.holds(r) else { return 0 }
        switch ADXL345Register(rawValue: r) {
        case .FIFO_STATUS: return UInt8(fifo.count)
        case .INT_SOURCE:
            // Reading it clears Activity and Inactivity (and, here, Overrun); DATA_READY and
            // Watermark follow the data.
            let v = regs[address: r]
            regs[address: r] = v & (ADXL345Interrupt.dataReady.rawValue | ADXL345Interrupt.watermark.rawValue)
            return v
        default:
            return regs[address: r]
        }
    }

    /// Whether the chip is measuring.
    public var isMeasuring: Bool { measuring }
    /// A register's current value (for tests).
    public func register(_ r: ADXL345Register) -> UInt8 { regs[r] }
}
