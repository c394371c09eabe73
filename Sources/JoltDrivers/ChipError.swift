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
