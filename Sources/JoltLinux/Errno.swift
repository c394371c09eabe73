import Glibc

/// An error number from the kernel or the C library.
public struct Errno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The raw `errno` value.
    public var rawValue: Int32

    public init(_ raw: Int32) { rawValue = raw }

    /// The current thread's `errno`.
    public static var current: Errno { Errno(errno) }

    public static let noEntry = Errno(ENOENT)
    public static let accessDenied = Errno(EACCES)
    public static let permitted = Errno(EPERM)
    public static let busy = Errno(EBUSY)
    public static let notSupported = Errno(EOPNOTSUPP)
    public static let interrupted = Errno(EINTR)

    /// The C library's text for this error ("No such file or directory").
    public var description: String {
        guard let p = strerror(rawValue) else { return "errno \(rawValue)" }
        return String(cString: p)
    }

    /// The symbolic name (ENOENT) for the errors Jolt reports by name; otherwise "errno N".
    public var name: String {
        switch rawValue {
        case ENOENT: return "ENOENT"
        case EACCES: return "EACCES"
        case EPERM: return "EPERM"
        case ENODEV: return "ENODEV"
        case ENXIO: return "ENXIO"
        case EREMOTEIO: return "EREMOTEIO"
        case EAGAIN: return "EAGAIN"
        case EIO: return "EIO"
        case EBUSY: return "EBUSY"
        case ETIMEDOUT: return "ETIMEDOUT"
        case EOPNOTSUPP: return "EOPNOTSUPP"
        case EINTR: return "EINTR"
        case EINVAL: return "EINVAL"
        case ENOTTY: return "ENOTTY"
        case EISDIR: return "EISDIR"
        case ENOTDIR: return "ENOTDIR"
        case EEXIST: return "EEXIST"
        case ECONNREFUSED: return "ECONNREFUSED"
        case EADDRINUSE: return "EADDRINUSE"
        default: return "errno \(rawValue)"
        }
    }
}
