import JoltDrivers

/// A chip driver's failure in one line that names the chip, the address, the bus and the fix.
public struct ChipFailure: Error {
    public enum Kind: Sendable { case absent, unreliable, settings }
    /// `absent`: nothing (or the wrong thing) answers; `unreliable`: it answers but misbehaves;
    /// `settings`: the chip cannot do what was asked.
    public let kind: Kind
    public let message: String
}

extension ChipSensor {
    /// The words for `e`, from the chip's facts in the registry.
    public func describe(_ e: ChipError) -> ChipFailure {
        let name = info.part
        let at = "0x" + hex(address)
        let bus = busName
        switch e {
        case .bus(let err, let reg):
            if err.kind == .noAcknowledge {
                return ChipFailure(kind: .absent, message: "no \(name) at \(at) on \(bus): no acknowledge reading \(registerName(reg)) — check the wiring (3.3 V pin 1, SDA pin 3, SCL pin 5, GND pin 6), the address (\(info.addressPin)), and run 'jolt probe'")
            }
            return ChipFailure(kind: .absent, message: "\(err.kind.words) talking to the \(name) at \(at) on \(bus) (\(registerName(reg))): check the wiring and the pull-ups, then try again")
        case .wrongID(let found):
            var hint = ""
            if found == 0x00 { hint = " (all zeros: a chip that is not powered, or not an \(name))" }
            else if let other = ChipRegistry.all.first(where: { $0.name != chip.name && $0.sensor.part(forID: found) != nil && $0.info.addresses.contains(address) }) {
                hint = " (that is an \(other.info.part): set \"chip\": \"\(other.name)\")"
            } else if address == 0x68 { hint = " (an RTC such as a DS3231 also lives at 0x68)" }
            return ChipFailure(kind: .absent, message: "no \(name) at \(at) on \(bus): \(info.idRegisterName) read 0x\(hex(found)), expected 0x\(hex(info.id))\(hint) — run 'jolt probe' to see what answers")
        case .resetTimeout(let reg, let v):
            return ChipFailure(kind: .unreliable, message: "the \(name) at \(at) on \(bus) did not finish its reset: \(registerName(reg)) still 0x\(hex(v)) after 1 s — power-cycle the board")
        case .unsupportedRate(let r):
            return ChipFailure(kind: .settings, message: "the \(name) cannot sample at \(Hz.text(r)) Hz")
        case .notApplied(let reg, let w, let r):
            return ChipFailure(kind: .unreliable, message: "the \(name) at \(at) on \(bus) did not keep its configuration: \(registerName(reg)) wrote 0x\(hex(w)), read 0x\(hex(r)) — is another chip answering at this address?")
        }
    }
}
