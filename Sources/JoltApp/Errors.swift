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
}

/// An error a person can act on: one line naming the thing, what is wrong and the fix, and the
/// exit status that says which kind of failure it was.
public struct JoltError: Error, Sendable, CustomStringConvertible {
    public var code: ExitCode
    public var message: String

    public init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
