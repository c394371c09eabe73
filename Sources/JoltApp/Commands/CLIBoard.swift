import JoltChips
import JoltLinux
import JoltCore
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltConfig
import JoltControl
import JoltCorpus
import JoltDrivers
import JoltEngine
import JoltJSON
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport
import JoltTrace

/// Where a command's board profile and detection settings come from: `--board`, `$JOLT_BOARD`,
/// /etc/jolt/jolt.json, a chip on /dev/i2c-1, the simulated board; `--config`, `--algorithm`,
/// `--sensitivity`.
extension JoltCLI {
    /// The options of the commands that take detection settings (replay, plot).
    static let detectionOptions: [(String, String)] = [
        ("--board FILE", "the board profile whose detection settings to use (default: $JOLT_BOARD, then /etc/jolt/jolt.json, else Jolt's defaults)"),
        ("--config FILE", "the same as --board"),
        ("--algorithm NAME", "shake algorithm: jolt (default), threshold, lowpass, planar, window"),
        ("--flip-algorithm NAME", "flip algorithm: jolt (default), phone, android"),
        ("--sensitivity LEVEL", "preset: low, medium (default), high"),
    ]

    /// Applies --config, --algorithm, --flip-algorithm and --sensitivity.
    static func detectionBoard(_ a: Arguments) throws(JoltError) -> BoardProfile {
        var sensitivity: Sensitivity?
        if let s = a.value("--sensitivity") {
            guard let v = Sensitivity(name: s) else {
                throw JoltError(.usage, "jolt \(a.command): --sensitivity must be low, medium or high, found '\(s)'")
            }
            sensitivity = v
        }
        var board = BoardProfile()
        if let path = try boardPath(a) {
            board = try BoardProfile.load(path: path, sensitivity: sensitivity)
        } else if let sensitivity {
            board.detection = DetectionSettings(sensitivity: sensitivity, rateMilliHz: board.rateMilliHz, gyro: true)
        }
        if let n = a.value("--algorithm") {
            guard let alg = ShakeAlgorithm.allCases.first(where: { "\($0.name)" == n }) else {
                throw JoltError(.usage, "jolt \(a.command): --algorithm must be one of \(ShakeAlgorithm.allCases.map { "\($0.name)" }.joined(separator: ", ")), found '\(n)'")
            }
            board.detection.shakeAlgorithm = alg
        }
        if let n = a.value("--flip-algorithm") {
            guard let alg = FlipAlgorithm.allCases.first(where: { "\($0.name)" == n }) else {
                throw JoltError(.usage, "jolt \(a.command): --flip-algorithm must be one of \(FlipAlgorithm.allCases.map { "\($0.name)" }.joined(separator: ", ")), found '\(n)'")
            }
            board.detection.flipAlgorithm = alg
        }
        return board
    }

    /// The installed configuration: what the package puts in place and the service reads.
    static let systemBoard = "/etc/jolt/jolt.json"

    /// The board profile `$JOLT_BOARD` names; nil when it is unset or empty.
    static var environmentBoard: String? { Environment.value("JOLT_BOARD").flatMap { $0.isEmpty ? nil : $0 } }

    /// Where a command's board profile comes from, first found wins: `--board FILE`, then
    /// `$JOLT_BOARD`, then /etc/jolt/jolt.json. Nil when none is there; what was taken is logged
    /// when it was not named on the command line.
    /// `--config FILE`, where a command takes it, is `--board FILE` by its older name.
    static func boardPath(_ a: Arguments) throws(JoltError) -> String? {
        if a.value("--board") != nil && a.value("--config") != nil {
            throw JoltError(.usage, "jolt \(a.command): --config is --board by another name: give one of them")
        }
        if let path = a.value("--board", "--config") { return path }
        if let env = environmentBoard {
            Log.info("board profile from $JOLT_BOARD: \(env)")
            return env
        }
        if Files.exists(systemBoard) {
            Log.info("board profile: \(systemBoard)")
            return systemBoard
        }
        return nil
    }

    /// Whether watch and record look for a running jolt before anything else: with `--socket`,
    /// or when no board profile is named anywhere (`--board`, `$JOLT_BOARD`, /etc/jolt/jolt.json)
    /// and a jolt answers in the usual places — an owner's `jolt watch` beside a running one.
    static func attachFirst(_ a: Arguments) -> Bool {
        if a.value("--socket") != nil { return true }
        guard a.value("--board") == nil, environmentBoard == nil, !Files.exists(systemBoard) else { return false }
        return (try? ControlClient.request("status", socket: nil)) != nil
    }

    /// The board of watch and record: none to resolve (and nothing to say about it) when they
    /// attach to a running jolt without one named, `board(a)` otherwise.
    static func liveBoard(_ a: Arguments, attach: Bool, sensitivity: Sensitivity?) throws(JoltError) -> BoardProfile {
        if attach && boardNamed(a) == false { return BoardProfile.builtInSim }
        return try board(a, sensitivity: sensitivity)
    }

    /// Whether a board profile is named: `--board`, `$JOLT_BOARD` or the installed one.
    static func boardNamed(_ a: Arguments) -> Bool {
        a.value("--board") != nil || environmentBoard != nil || Files.exists(systemBoard)
    }

    /// The board of a command that needs a real profile (calibrate, safe, output).
    static func requiredBoard(_ a: Arguments) throws(JoltError) -> BoardProfile {
        guard let path = try boardPath(a) else { throw noBoard(a.command) }
        return try BoardProfile.load(path: path)
    }

    /// None named, and the profile every command reads by default is missing: an input file
    /// that does not exist (66), as for a named one.
    static func noBoard(_ command: String) -> JoltError {
        JoltError(.noInput, "\(command): no board profile: \(systemBoard) does not exist; give --board FILE, set JOLT_BOARD, or install one there")
    }

    /// The board of run, watch and record: `boardPath`, or else a chip on /dev/i2c-1 if one
    /// answers, otherwise the simulated board.
    static func board(_ a: Arguments, sensitivity: Sensitivity?) throws(JoltError) -> BoardProfile {
        if let path = try boardPath(a) { return try BoardProfile.load(path: path, sensitivity: sensitivity) }
        var b = BoardProfile.builtInSim
        if Files.exists("/dev/i2c-1"), let bus = try? LinuxBoard.openLinuxBus("/dev/i2c-1"),
           let (chip, address) = try? LinuxBoard.locate(BoardProfile(), bus: bus) {
            var hw = BoardProfile()
            hw.file = "(no board: \(chip.name) found on /dev/i2c-1)"
            hw.bus = "/dev/i2c-1"
            hw.chip = chip.name
            hw.address = address
            b = hw
            Log.info("no board profile (--board, $JOLT_BOARD, \(systemBoard)): using the \(chip.name) found at 0x\(hex(address)) on /dev/i2c-1 with default settings")
        } else {
            Log.info("no board profile (--board, $JOLT_BOARD, \(systemBoard)) and no chip on /dev/i2c-1: running the simulated board (boards/sim.json)")
        }
        if let sensitivity {
            b.detection = DetectionSettings(sensitivity: sensitivity, rateMilliHz: b.rateMilliHz, gyro: true)
        }
        return b
    }

    static func sensitivity(_ a: Arguments) throws(JoltError) -> Sensitivity? {
        guard let s = a.value("--sensitivity") else { return nil }
        guard let v = Sensitivity(name: s) else {
            throw JoltError(.usage, "jolt \(a.command): --sensitivity must be low, medium or high, found '\(s)'")
        }
        return v
    }
}
