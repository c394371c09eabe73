import JoltDrivers
import JoltLinux
/// Jolt's exit statuses, after BSD's sysexits.h. Documented in docs/cli.md.
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Success.
    case ok = 0
    /// Detection quality below its targets (`jolt eval --gate`), or an action failed.
    case failure = 1
    /// Wrong command line: unknown command or option, missing or bad argument.
    case usage = 64
    /// Bad data in an input file: a malformed trace row, time going backwards.
    case dataError = 65
    /// An input file does not exist or cannot be opened.
    case noInput = 66
    /// Hardware unavailable: no such bus, nothing answers, wrong chip, bus errors.
    case unavailable = 69
    /// An internal error: a bug in Jolt.
    case software = 70
    /// An output file cannot be created.
    case cannotCreate = 73
    /// An I/O error while reading or writing.
    case ioError = 74
    /// Another instance holds the resource (one Jolt per bus), or a peer did not answer.
    case tempFailure = 75
    /// Permission denied (device node, control socket).
    case noPermission = 77
    /// The configuration (board profile) is invalid.
    case config = 78

    /// What the status means, for `jolt --help` and docs/cli.md.
    public var meaning: String {
        switch self {
        case .ok: return "success"
        case .failure: return "a check failed: jolt eval --gate below its targets, jolt soak did not hold up, a control request refused, an output could not be set"
        case .usage: return "wrong command line: unknown command or option, a missing or bad argument"
        case .dataError: return "bad data in an input file: a malformed trace row, time going backwards, a value out of range"
        case .noInput: return "an input file (trace, board profile, corpus) does not exist or cannot be opened"
        case .unavailable: return "hardware unavailable: no such bus, nothing answers, the wrong chip, bus errors at start-up, no running jolt to control"
        case .software: return "an internal error: a bug in Jolt (please report it)"
        case .cannotCreate: return "an output file cannot be created"
        case .ioError: return "an I/O error while reading or writing"
        case .tempFailure: return "busy: another jolt holds the bus, a kernel driver holds the chip, a peer did not answer"
        case .noPermission: return "permission denied: /dev/i2c-*, /dev/gpiochip*, the control socket or a file"
        case .config: return "the board profile is invalid (the message names the file, line and field)"
        }
    }
}

/// An error a person can act on: one line naming the thing, what is wrong and the fix, and the
/// exit status that says which kind of failure it was.
public struct JoltError: Error, Sendable, CustomStringConvertible {
    public var code: ExitCode
    public var message: String

    public init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = Self.oneLine(message)
    }

    /// The longest message kept, characters: a quoted 60 KB key is not a message.
    package static let maxLength = 1000

    /// `text` on one line: control characters (which a quoted key, value or path can carry) are
    /// written as escapes, and an overlong text is cut with an ellipsis.
    package static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { Self.needsEscape($0) }) || text.count > maxLength else { return text }
        var out = ""
        for u in text.unicodeScalars {
            if out.unicodeScalars.count >= maxLength {
                out += "…"
                break
            }
            switch u {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where needsEscape(u): out += "\\u{" + String(u.value, radix: 16) + "}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    package static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029
    }

    public var description: String { message }
}
