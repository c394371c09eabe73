import JoltDrivers

/// What answered at an address when probing.
public enum ProbeResult: Equatable {
    /// Nothing acknowledged the address.
    case absent
    /// A supported chip: which (its registry name), the part, and what its identity register read.
    case found(chip: String, part: String, id: UInt8)
    /// Something answered, but its identity register read this.
    case unknown(register: UInt8, id: UInt8)
    /// The bus failed in another way.
    case error(I2CError)
}

/// Finds which supported chips answer where: every address of every chip in the registry, its
/// identity register read and matched against the chip's plug-in.
public enum ChipProbe {
    /// The addresses probed, in order, with the chip expected there.
    public static var candidates: [(address: UInt8, chip: Chip)] {
        ChipRegistry.all.flatMap { c in c.info.addresses.map { (address: $0, chip: c) } }
    }

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

    /// Probes `address` for `chip`.
    public static func probe<Bus: I2CBus>(_ bus: inout Bus, address: UInt8, for chip: Chip) -> ProbeResult {
        let reg = chip.info.idRegister
        let id: UInt8
        do {
            id = try bus.readRegister(address: address, reg)
        } catch {
            return error.kind == .noAcknowledge ? .absent : .error(error)
        }
        if let part = chip.sensor.part(forID: id) { return .found(chip: chip.name, part: part, id: id) }
        return .unknown(register: reg, id: id)
    }

    /// The first supported chip answering on `bus`, among `candidates` (all by default).
    public static func locate<Bus: I2CBus>(_ bus: inout Bus, among list: [(address: UInt8, chip: Chip)] = candidates) -> (Chip, UInt8)? {
        for c in list {
            if case .found = probe(&bus, address: c.address, for: c.chip) { return (c.chip, c.address) }
        }
        return nil
    }
}
