import JoltDrivers

/// A supported chip: its plug-in (`ChipPlugin` over the driver in its folder under
/// JoltDrivers/Chips), over the bus everything above the drivers shares.
public struct Chip {
    public let sensor: any Sensor<SharedBus>.Type

    public init(_ sensor: any Sensor<SharedBus>.Type) { self.sensor = sensor }

    public var info: ChipInfo { sensor.info }
    public var name: String { sensor.info.name }
}

/// The chips Jolt supports. Adding a chip is one line here (and its twin's line in JoltSim's
/// `SimulatedChips`); nothing else above the drivers names a chip.
public enum ChipRegistry {
    public static var all: [Chip] {
        [
            Chip(MPU6050Sensor<SharedBus>.self),
            Chip(ADXL345Sensor<SharedBus>.self),
            Chip(LIS3DHSensor<SharedBus>.self),
            Chip(LSM6DSOSensor<SharedBus>.self),
        ]
    }

    /// The chip a board profile names ("lis3dh").
    public static func named(_ name: String) -> Chip? { all.first { $0.name == name } }

    /// Every chip's name, in registry order.
    public static var names: [String] { all.map(\.name) }
}

/// Any bus as one concrete type, so that a chip's plug-in is compiled once for every bus the
/// application opens (a Linux adapter, the simulated bus, a test's mock).
public final class SharedBus: I2CBus {
    public var base: any I2CBus

    public init(_ base: any I2CBus) { self.base = base }

    public func writeRead(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer) throws(I2CError) {
        try base.writeRead(address: address, write: write, read: read)
    }

    public var maxReadLength: Int { base.maxReadLength }
    public var maxWriteLength: Int { base.maxWriteLength }
}
