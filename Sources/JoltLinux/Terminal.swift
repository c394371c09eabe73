#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// A terminal put in a live-view mode: keys arrive one by one without echo (Ctrl-C still sends
/// SIGINT), the alternate screen is shown and the cursor hidden; `restore()` puts everything
/// back, and is safe to call twice.
public final class Terminal {
    let fd: Int32
    var saved = termios()
    var active = false

    /// Enters the mode on `fd` (standard input's terminal); nil when `fd` is not a terminal.
    public init?(input fd: Int32 = 0) {
        guard isatty(fd) == 1, tcgetattr(fd, &saved) == 0 else { return nil }
        self.fd = fd
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        // Reads return at once, with or without a key.
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSANOW, &raw) == 0 else { return nil }
        active = true
    }

    deinit { restore() }

    /// Puts the terminal back as it was.
    public func restore() {
        guard active else { return }
        active = false
        _ = tcsetattr(fd, TCSANOW, &saved)
    }

    /// The keys typed since the last call (without waiting).
    public func keys() -> [UInt8] {
        var buf = [UInt8](repeating: 0, count: 32)
        let n = read(fd, &buf, buf.count)
        return n > 0 ? Array(buf[0..<n]) : []
    }

    /// The size of the terminal on `fd`, characters; nil when it is not one.
    public static func size(_ fd: Int32 = 1) -> (rows: Int, columns: Int)? {
        var r: UInt16 = 0, c: UInt16 = 0
        guard jolt_window_size(fd, &r, &c) == 0, r > 0, c > 0 else { return nil }
        return (Int(r), Int(c))
    }

    /// A new pseudo-terminal: the master's descriptor and the slave's path (for tests that run a
    /// program on a terminal).
    public static func openPseudoTerminal() -> (master: Int32, slave: String)? {
        var name = [CChar](repeating: 0, count: 128)
        let m = jolt_open_pty(&name, name.count)
        guard m >= 0 else { return nil }
        return (m, String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}

extension Terminal {
    /// Whether the descriptor is a terminal.
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}

extension Terminal {
    /// Whether this process has a controlling terminal (it was started from a terminal, and the
    /// terminal is still there). When a terminal hangs up (its window or SSH session closed), the
    /// kernel detaches it from every process of its session before any of them gets SIGHUP; a
    /// service never had one.
    public static var isControlling: Bool {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }
}
