#if canImport(Glibc)
import Glibc
#endif
import JoltActions
import JoltChips
import JoltConfig
import JoltCore
import JoltDrivers
import JoltLinux
import JoltSupport
import JoltEngine
import JoltTrace

/// An opened board, as `jolt run` and the tools see it: the chip on its bus, the clock the run
/// follows, its lines. A real one is `LinuxBoard`; the simulated one lives in
/// JoltSimBoard, linked only by what opens it: the service's path never sees a simulator.
package protocol Board: AnyObject {
    /// The chip, its plug-in and its bus.
    var sensor: ChipSensor { get }
    /// Bus transactions so far.
    var transactions: Int { get }
    /// The device node one Jolt at a time may hold (the bus's /dev/i2c-N, locked for the run);
    /// nil where the bus is the process's own.
    var exclusiveNode: String? { get }
    /// The run's clock: real time, or (a simulated board opened to run fast) simulated time that
    /// jumps from deadline to deadline; a simulated board's also says where its stream's time
    /// starts, when its motion ends and when it stalls.
    var clock: RunClock { get }
    /// A board output, and a board input.
    func output(_ line: NamedLine) throws(JoltError) -> OutputLine
    func input(_ line: NamedLine) throws(JoltError) -> InputLine
    /// The chip's INT pin, wired to `line`.
    func interrupt(_ line: InterruptLine) throws(JoltError) -> InterruptPin
}

extension Board {
    /// The bus's name for messages: "/dev/i2c-1" or "the simulated bus".
    package var busName: String { sensor.busName }
}

/// A board on a Raspberry Pi: the chip on /dev/i2c-N, lines on the GPIO character device.
package final class LinuxBoard: Board {
    package let sensor: ChipSensor
    package let bus: LinuxI2CBus
    /// Real time: a chip keeps its own.
    package let clock = RunClock(virtual: false, sim: nil)

    package init(sensor: ChipSensor, bus: LinuxI2CBus) {
        self.sensor = sensor
        self.bus = bus
    }

    /// Bus transactions so far, counted by the adapter wrapper.
    package var transactions: Int { bus.transactions }
    package var exclusiveNode: String? { bus.path }

    package func output(_ line: NamedLine) throws(JoltError) -> OutputLine { try ChardevOutput(name: line.name, spec: line.line) }
    package func input(_ line: NamedLine) throws(JoltError) -> InputLine { try ChardevInput(name: line.name, spec: line.line) }
    package func interrupt(_ line: InterruptLine) throws(JoltError) -> InterruptPin { try ChardevInterrupt(line) }

    /// Opens the board's bus, finds its chip and builds the sensor (not yet configured).
    package static func open(_ board: BoardProfile) throws(JoltError) -> LinuxBoard {
        let bus = try openLinuxBus(board.bus)
        let (chip, address) = try locate(board, bus: bus)
        let sensor = try makeSensor(chip, bus: bus, busName: bus.path, address: address, board: board)
        return LinuxBoard(sensor: sensor, bus: bus)
    }

    /// The sensor for `chip`, or the board's error when the chip cannot do its settings.
    package static func makeSensor(_ chip: Chip, bus: any I2CBus, busName: String, address: UInt8, board: BoardProfile) throws(JoltError) -> ChipSensor {
        do {
            return try ChipSensor(chip, bus: bus, busName: busName, address: address, settings: board.sensorSettings, oversample: board.oversampled)
        } catch {
            throw JoltError(.config, "\(board.file.isEmpty ? "board" : board.file): \(error.message)")
        }
    }

    /// Opens a Linux I2C bus, turning failures into errors a person can act on.
    package static func openLinuxBus(_ path: String) throws(JoltError) -> LinuxI2CBus {
        do {
            return try LinuxI2CBus(path: path)
        } catch {
            let p = LinuxI2CPath.normalize(path) ?? path
            switch (error.step, error.errno) {
            case ("open", .noEntry):
                throw JoltError(.unavailable, "no I2C bus \(p): enable I2C (raspi-config → Interface Options → I2C, or dtparam=i2c_arm=on in /boot/firmware/config.txt) and reboot")
            case ("open", .accessDenied), ("open", .permitted):
                throw JoltError(.noPermission, "permission denied opening \(p): add the user to the i2c group (sudo adduser $USER i2c) and log in again")
            case ("capabilities", _):
                throw JoltError(.unavailable, "\(p): the adapter does neither plain I2C nor SMBus I2C-block reads; Jolt cannot read a chip through it")
            default:
                throw JoltError(.unavailable, "\(p): \(error.step) failed: \(error.errno) (\(error.errno.name))")
            }
        }
    }

    /// The chip and address to use: as the board says, or found by probing.
    package static func locate(_ board: BoardProfile, bus: LinuxI2CBus) throws(JoltError) -> (Chip, UInt8) {
        var b = bus
        if let name = board.chip, let chip = ChipRegistry.named(name) {
            return (chip, board.address ?? chip.info.addresses[0])
        }
        let candidates = board.address.map { a in ChipProbe.candidates.filter { $0.address == a } } ?? ChipProbe.candidates
        if let found = ChipProbe.locate(&b, among: candidates) { return found }
        throw JoltError(.unavailable, "no supported chip answers on \(bus.path) (tried \(candidates.map { "0x" + hex($0.address) }.joined(separator: ", "))): check the wiring (3.3 V pin 1, SDA pin 3, SCL pin 5, GND pin 6) and run 'jolt probe'")
    }
}

/// Turns a chip driver's failure into one line naming the chip, the address, the bus and the fix.
package func chipError(_ e: ChipError, _ sensor: ChipSensor) -> JoltError {
    if case .bus(let err, _) = e, err.kind == .other(EBUSY) {
        return JoltError(.tempFailure, "0x\(hex(sensor.address)) on \(sensor.busName) is claimed by a kernel driver: unbind it (e.g. remove a dtoverlay for the chip) so Jolt can use the chip")
    }
    let f = sensor.describe(e)
    return JoltError(f.kind == .settings ? .config : .unavailable, f.message)
}

extension BoardProfile {
    /// Whether the chip is read faster than `rate_hz` and its readings filtered down: below 50 Hz,
    /// when the alarm watches for tamper. The filter keeps a counter's ring from folding into a
    /// push there (docs/detection.md); it also takes a quarter off a fast gentle shake, so a
    /// board that only watches for gestures is read at its rate.
    package var oversampled: Bool {
        rateMilliHz < Oversampler.belowMilliHz && alarm?.settings.triggers.contains(.tamper) == true
    }

    /// What the board asks of its chip, in physical units.
    package var sensorSettings: SensorSettings {
        SensorSettings(rateMilliHz: rateMilliHz, accelRangeG: accelRangeG, gyroRangeDps: gyroRangeDps, fifo: fifo,
                       interrupt: interrupt.map { InterruptPlan(motionMilliG: $0.motionMilliG) })
    }
}
