import JoltBoard
import JoltConfig
import JoltControl
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport
import JoltActions
import JoltBuildInfo
import JoltChips
import JoltCore
import JoltCorpus
import JoltDrivers
import JoltEngine
import JoltJSON
import JoltLinux
import JoltMQTT
import JoltMotion
import JoltTrace

/// Opens a board profile's hardware: the chip on its I2C bus, or the simulated board. The one
/// place that links both: the service's parts (JoltRun) take an opened `Board` and never name
/// the simulator.
enum Boards {
    /// `trace` plays a recording on the simulated board instead of its script; `fast` runs the
    /// simulated board on simulated time.
    static func open(_ board: BoardProfile, trace: String? = nil, fast: Bool = false) throws(JoltError) -> Board {
        if board.isSimulated { return try SimBoard.open(board, trace: trace, fast: fast) }
        if trace != nil {
            throw JoltError(.usage, "--trace plays a recording on the simulated board only; \(board.file) uses \(board.bus)")
        }
        if fast { throw JoltError(.usage, "--fast runs simulated time; \(board.file) is real hardware on \(board.bus)") }
        return try LinuxBoard.open(board)
    }
}

/// What a simulated board plays and how fast: the command's choice (`--trace`, `--forever`,
/// `--fast`), made when it opens the board. The run never sees it; a real board refuses it.
package struct Playback {
    /// Simulated time, as fast as the machine goes.
    package var fast = false
    /// A recording played instead of the board's own motion.
    package var trace: String?
    /// The motion looped forever.
    package var forever = false

    package init(fast: Bool = false, trace: String? = nil, forever: Bool = false) {
        self.fast = fast
        self.trace = trace
        self.forever = forever
    }
}

extension RunCommand {
    /// A run of `board`, its hardware opened here: the simulated board playing `playback`, or
    /// the real chip.
    convenience init(board: BoardProfile, playing playback: Playback = Playback(), options: Options, out: TextOutput,
                     outputs: [String: OutputLine] = [:], store: AlarmStore? = nil, watcher: RunWatcher? = nil) throws(JoltError) {
        var b = board
        if playback.forever { b.sim.loop = true }
        let hardware = try Boards.open(b, trace: playback.trace, fast: playback.fast)
        try self.init(board: b, hardware: hardware, options: options, out: out, outputs: outputs, store: store, watcher: watcher)
    }
}

extension JoltCLI {
    /// `--motion NAME`: the simulated board plays a built-in motion instead of its own.
    static func playMotion(_ name: String, on b: inout BoardProfile) throws(JoltError) {
        guard b.isSimulated else { throw JoltError(.usage, "--motion plays a built-in motion on the simulated board only; \(b.file) uses \(b.bus)") }
        guard MotionScript(rawValue: name) != nil else {
            throw JoltError(.usage, "--motion must be one of \(MotionScript.allCases.map(\.rawValue).joined(separator: ", ")), found '\(name)'")
        }
        b.sim.motion = name
        b.sim.trace = nil
    }
}
