import JoltChips
import JoltDrivers
import JoltLinux
import JoltSim
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltConfig
import JoltControl
import JoltCore
import JoltCorpus
import JoltEngine
import JoltJSON
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSimBoard
import JoltSupport
import JoltTrace

/// `jolt probe`: which supported chips answer where, like i2cdetect for Jolt.
enum ProbeCommand {
    /// The I2C buses present (/dev/i2c-*), sorted by number.
    static func buses() -> [String] {
        var found: [(Int, String)] = []
        for name in (try? Files.list("/dev")) ?? [] {
            if name.hasPrefix("i2c-"), let n = Int(name.dropFirst(4)) { found.append((n, "/dev/" + name)) }
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Probes `bus` ("sim" for the simulated board) and writes a report. Returns how many
    /// supported chips answered.
    static func run(bus: String?, all: Bool = false, simulated: BoardProfile = .builtInSim, out: TextOutput) throws(JoltError) -> Int {
        if bus == "sim" {
            var b = try SimBoard.open(simulated).world.bus
            out.write("the simulated bus:\n")
            if all { grid(&b, out: out) }
            return report(&b, out: out)
        }
        let paths: [String]
        if let bus {
            guard let p = LinuxI2CPath.normalize(bus) else {
                throw JoltError(.usage, "jolt probe: --bus must be a bus number, i2c-N or /dev/i2c-N (or sim), found '\(bus)'")
            }
            paths = [p]
        } else {
            paths = buses()
            guard !paths.isEmpty else {
                throw JoltError(.unavailable, "no I2C bus found (no /dev/i2c-*): enable I2C (raspi-config → Interface Options → I2C, or dtparam=i2c_arm=on in /boot/firmware/config.txt) and reboot; 'jolt probe --bus sim' shows the simulated board")
            }
        }
        var total = 0
        for p in paths {
            var b = try LinuxBoard.openLinuxBus(p)
            out.write("\(p) (\(b.mode == .combined ? "I2C, combined transactions" : "SMBus only, I2C-block reads")):\n")
            if all { grid(&b, out: out) }
            total += report(&b, out: out)
        }
        return total
    }

    /// Every address from 0x03 to 0x77 as `i2cdetect -r` draws it: the address where something
    /// acknowledged a one-byte read, `--` where nothing did, `UU` where the bus failed otherwise
    /// (busy: often a kernel driver owns that address).
    static func grid<Bus: I2CBus>(_ bus: inout Bus, out: TextOutput) {
        var s = "     0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f\n"
        for row in stride(from: 0, to: 0x80, by: 16) {
            s += hex(UInt8(row)).lowercased() + ":"
            for col in 0..<16 {
                let a = row + col
                guard (0x03...0x77).contains(a) else { s += "   "; continue }
                switch ChipProbe.answers(&bus, address: UInt8(a)) {
                case true?: s += " " + hex(UInt8(a)).lowercased()
                case false?: s += " --"
                case nil: s += " UU"
                }
            }
            s += "\n"
        }
        out.write(s + "supported chips:\n")
    }

    static func report<Bus: I2CBus>(_ bus: inout Bus, out: TextOutput) -> Int {
        var found = 0
        for c in ChipProbe.candidates {
            let info = c.chip.info
            let line: String
            let result = ChipProbe.probe(&bus, address: c.address, for: c.chip)
            switch result {
            case .absent:
                line = "-"
            case .found(_, let part, let id):
                line = part == info.part
                    ? "\(part) (\(info.idRegisterName) 0x\(hex(id)))"
                    : "\(part) (\(info.idRegisterName) 0x\(hex(id))): \(info.part)-compatible, supported"
                found += 1
            case .unknown(let reg, let id):
                line = "something answers, but \(info.idRegisterName) (0x\(hex(reg))) reads 0x\(hex(id)): not a \(info.part)"
            case .error(let e):
                line = "\(e.kind.words) (errno \(e.code))"
            }
            out.write("  0x\(hex(c.address).lowercased())  \(line)\n")
            if case .found = result { out.write("        \(facts(info))\n") }
        }
        return found
    }

    /// What a found chip can do, from its plug-in: "±2-16 g, gyroscope ±125-2000 °/s, 12.5-6667
    /// Hz, FIFO of 256 readings, INT: data ready, FIFO watermark, motion; self-test".
    static func facts(_ i: ChipInfo) -> String {
        func span(_ v: [Int32]) -> String { v.count > 1 ? "\(v.first!)-\(v.last!)" : v.map(String.init).joined() }
        let rates = i.rates.within(0, .max)
        var s = "±\(span(i.accelRangesG)) g"
        if i.hasGyro { s += ", gyroscope ±\(span(i.gyroRangesDps)) °/s" }
        if let lo = rates.min(), let hi = rates.max() { s += ", \(Hz.text(lo))-\(Hz.text(hi)) Hz" }
        s += i.fifoDepth > 0 ? ", FIFO of \(i.fifoDepth) readings" : ", no FIFO"
        if !i.interrupts.isEmpty { s += ", INT: " + i.interrupts.names.joined(separator: ", ") }
        return s + (i.selfTest ? "; self-test" : "")
    }
}
