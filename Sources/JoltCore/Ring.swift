/// A fixed-capacity ring buffer of bits with a running count of the set ones.
///
/// Capacity is 512 bits (64 bytes) whatever the window, which covers 0.5 s at 1 kHz. Pushing is
/// O(1): the bit that falls out of the window is subtracted from the count, the new one added.
public struct BitWindow: Sendable {
    /// The window's bits, bit `i` in word `i / 64`: eight words laid out contiguously (a tuple,
    /// as in C), read and written through their bytes.
    @usableFromInline var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    @usableFromInline var head: Int32
    /// Number of entries currently in the window.
    public var count: Int32 { _count }
    @usableFromInline var _count: Int32
    /// Number of set entries currently in the window.
    public var ones: Int32 { _ones }
    @usableFromInline var _ones: Int32
    /// Maximum number of entries the window holds before the oldest falls out.
    public let length: Int32

    /// The largest window length this type supports.
    public static let maxLength: Int32 = 512

    /// A window holding the last `length` entries (clamped to 1...512).
    public init(length: Int32) {
        words = (0, 0, 0, 0, 0, 0, 0, 0)
        head = 0
        _count = 0
        _ones = 0
        self.length = min(max(length, 1), BitWindow.maxLength)
    }

    @inlinable
    func bit(_ i: Int32) -> Bool {
        let word = withUnsafeBytes(of: words) { $0.load(fromByteOffset: Int(i >> 6) &* 8, as: UInt64.self) }
        return (word >> UInt64(i & 63)) & 1 == 1
    }

    /// Appends `value`; drops the oldest entry when the window is full.
    @inlinable
    public mutating func push(_ value: Bool) {
        if count == length {
            if bit(head) { _ones -= 1 }
        } else {
            _count += 1
        }
        let offset = Int(head >> 6) &* 8
        let mask = UInt64(1) << UInt64(head & 63)
        withUnsafeMutableBytes(of: &words) { bytes in
            let word = bytes.load(fromByteOffset: offset, as: UInt64.self)
            bytes.storeBytes(of: value ? word | mask : word & ~mask, toByteOffset: offset, as: UInt64.self)
        }
        if value { _ones += 1 }
        head += 1
        if head == length { head = 0 }
    }

    /// Empties the window.
    public mutating func removeAll() {
        head = 0
        _count = 0
        _ones = 0
    }
}
