/// Names of Linux I2C bus device nodes.
public enum LinuxI2CPath {
    /// The device node for a bus given as `1`, `i2c-1` or `/dev/i2c-1`; nil if it is none of these.
    public static func normalize(_ s: String) -> String? {
        var t = Substring(s)
        if t.hasPrefix("/dev/") { t = t.dropFirst(5) }
        if t.hasPrefix("i2c-") { t = t.dropFirst(4) }
        guard !t.isEmpty, t.count <= 4, t.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return "/dev/i2c-" + t
    }
}
