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

/// Waits for a bit the chip clears by itself when it has finished (a reset, a reboot): reads
/// `register` up to 50 more times, 20 ms apart (a second), while `mask` is set in it.
func waitForClear<D: Delay>(_ mask: UInt8, in register: UInt8, delay: inout D, read: () throws(ChipError) -> UInt8) throws(ChipError) {
    var v = try read()
    var tries = 0
    while v & mask != 0 {
        tries += 1
        if tries > 50 { throw .resetTimeout(register: register, value: v) }
        delay.delay(milliseconds: 20)
        v = try read()
    }
}
