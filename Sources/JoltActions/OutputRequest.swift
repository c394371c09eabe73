import JoltConfig
import JoltCore
import JoltJSON
import JoltLinux
import JoltSupport
import JoltTrace
/// What `jolt output` asks of a line: on, off, a pulse, or beeps.
package struct OutputRequest: Equatable {
    /// The pattern to play; nil turns the output off.
    package var pattern: Pattern?

    package static let beepMillis: Int32 = 200

    /// From the words after the output's name on the control socket: `on`, `off`, `pulse MS`,
    /// `beep N`.
    package init?(words: [String]) {
        switch (words.first, words.count) {
        case ("on", 1): pattern = .steady
        case ("off", 1): pattern = nil
        case ("pulse", 2):
            guard let ms = Int32(words[1]), (1...600_000).contains(ms) else { return nil }
            pattern = .pulse(ms: ms)
        case ("beep", 2):
            guard let n = Int32(words[1]), (1...100).contains(n) else { return nil }
            pattern = .beeps(on: Self.beepMillis, off: Self.beepMillis, count: n)
        default: return nil
        }
    }

    /// The same words, for the control socket.
    package var words: String {
        switch pattern {
        case nil: return "off"
        case .steady: return "on"
        case .pulse(let ms): return "pulse \(ms)"
        case .beeps(_, _, let n): return "beep \(n)"
        case .cadence(let on, let off): return "cadence \(on) \(off)"
        }
    }
}
