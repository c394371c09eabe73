/// A chip driver's failure: a bus error while touching a register, or a chip that is not what it
/// should be or does not do what it is told.
public enum ChipError: Error, Equatable, Sendable {
    /// The bus failed while reading or writing `register`.
    case bus(I2CError, register: UInt8)
    /// The identity register read `found`, which is not a supported chip.
    case wrongID(found: UInt8)
    /// A reset did not complete: `register` still read `value`.
    case resetTimeout(register: UInt8, value: UInt8)
    /// The chip cannot sample at this rate (mHz).
    case unsupportedRate(milliHz: Int32)
    /// A configuration register did not keep what was written.
    case notApplied(register: UInt8, wrote: UInt8, read: UInt8)
}

/// What answered at an address when probing.
public enum ProbeResult: Equatable, Sendable {
    /// Nothing acknowledged the address.
    case absent
    /// A genuine MPU6050 (WHO_AM_I 0x68).
    case mpu6050
    /// A part that answers like an MPU6050, with its WHO_AM_I and what it is.
    case mpu6050Compatible(id: UInt8, part: String)
    /// An ADXL345 (DEVID 0xE5).
    case adxl345
    /// Something answered, but its identity register read this.
    case unknown(register: UInt8, id: UInt8)
    /// The bus failed in another way.
    case error(I2CError)
}

/// Finds which supported chips answer where: MPU6050 at 0x68/0x69 (WHO_AM_I at 0x75), ADXL345 at
/// 0x53/0x1D (DEVID at 0x00).
public enum ChipProbe {
    /// The addresses probed, in order, with the chip expected there.
    public static let candidates: [(address: UInt8, chip: String)] = [
        (MPU6050Spec.addressLow, "mpu6050"), (MPU6050Spec.addressHigh, "mpu6050"),
        (ADXL345Spec.addressLow, "adxl345"), (ADXL345Spec.addressHigh, "adxl345"),
    ]

    /// Whether anything acknowledges `address`: a one-byte read, as `i2cdetect -r` does (a
    /// read never changes a register's value on the chips a Pi usually carries). nil when the
    /// bus failed another way (busy, timeout).
    public static func answers<Bus: I2CBus>(_ bus: inout Bus, address: UInt8) -> Bool? {
        var b: UInt8 = 0
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        do {
            try withUnsafeMutableBytes(of: &b) { (r) throws(I2CError) in try bus.writeRead(address: address, write: empty, read: r) }
            return true
        } catch {
            return error.kind == .noAcknowledge ? false : nil
        }
    }

    /// Probes one address for the chip expected there.
    public static func probe<Bus: I2CBus>(_ bus: inout Bus, address: UInt8) -> ProbeResult {
        let isMPU = address == MPU6050Spec.addressLow || address == MPU6050Spec.addressHigh
        let reg = isMPU ? MPU6050Register.whoAmI.rawValue : ADXL345Register.deviceID.rawValue
        let id: UInt8
        do {
            id = try bus.readRegister(address: address, reg)
        } catch {
            return error.kind == .noAcknowledge ? .absent : .error(error)
        }
        if isMPU {
            if id == MPU6050Spec.whoAmI { return .mpu6050 }
            if let c = MPU6050Spec.compatibleIDs.first(where: { $0.id == id }) { return .mpu6050Compatible(id: id, part: c.part) }
        } else if id == ADXL345Spec.deviceID {
            return .adxl345
        }
        return .unknown(register: reg, id: id)
    }
}
