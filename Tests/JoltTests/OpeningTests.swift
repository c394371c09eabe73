import Foundation
@testable import JoltActions
@testable import JoltBoard
@testable import JoltConfig
@testable import JoltRun
@testable import JoltSimBoard
import JoltChips
import JoltLinux
import JoltSupport
import JoltTestSupport
import Testing

/// A simulated board whose input lines another process holds: requesting one fails, as
/// GPIO_V2_GET_LINE_IOCTL does with EBUSY. It keeps the outputs it hands out.
final class TakenInputBoard: Board {
    let sim: SimBoard
    private(set) var opened: [SimOutput] = []

    init(_ sim: SimBoard) { self.sim = sim }

    var sensor: ChipSensor { sim.sensor }
    var transactions: Int { sim.transactions }
    var exclusiveNode: String? { sim.exclusiveNode }
    var clock: RunClock { sim.clock }

    func output(_ line: NamedLine) throws(JoltError) -> OutputLine {
        let o = SimOutput(name: line.name, spec: line.line)
        opened.append(o)
        return o
    }

    func input(_ line: NamedLine) throws(JoltError) -> InputLine {
        throw JoltError(.unavailable, "\(line.name) (\(line.line.label)): cannot request the line: Device or resource busy (EBUSY)")
    }

    func interrupt(_ line: InterruptLine) throws(JoltError) -> InterruptPin { try sim.interrupt(line) }
}

@Suite("A run refused while it opens")
struct OpeningTests {
    @Test("an input line that cannot be had refuses the run with its error, and what was opened before it is closed: the buzzer's line released, never active, and the control socket removed")
    func refusedAtAnInput() throws {
        let sock = socketPath()
        let path = try kioskBoard(socket: sock, extra: "\"inputs\": { \"key\": { \"line\": \"GPIO27\" } },\n  ")
        let board = try BoardProfile.load(path: path)
        let hw = TakenInputBoard(try SimBoard.open(board, fast: true))
        var o = RunCommand.Options(json: true)
        o.limitMicros = 1_000_000
        let cmd = try RunCommand(board: board, hardware: hw, options: o, out: TextOutput.capturing())
        do {
            try cmd.run()
            Issue.record("the run opened without its input")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.message.hasPrefix("key (GPIO27)"), "\(error.message)")
        }
        #expect(hw.opened.count == 1, "the buzzer's line was requested")
        for line in hw.opened {
            #expect(line.isReleased)
            #expect(line.changes.allSatisfy { !$0.1 })
        }
        #expect(!FileManager.default.fileExists(atPath: sock), "the control socket is removed")

    }
}
