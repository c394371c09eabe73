/// A fixed-capacity ring buffer of bits with a running count of the set ones.
///
/// Capacity is 512 bits (64 bytes) whatever the window, which covers 0.5 s at 1 kHz. Pushing is
/// O(1): the bit that falls out of the window is subtracted from the count, the new one added.
public struct BitWindow: Sendable {
    @usableFromInline var words: InlineArray<8, UInt64>
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
        words = InlineArray(repeating: 0)
        head = 0
        _count = 0
        _ones = 0
        self.length = min(max(length, 1), BitWindow.maxLength)
    }

    @inlinable
    func bit(_ i: Int32) -> Bool {
        (words[Int(i >> 6)] >> UInt64(i & 63)) & 1 == 1
    }

    /// Appends `value`; drops the oldest entry when the window is full.
    @inlinable
    public mutating func push(_ value: Bool) {
        if count == length {
            if bit(head) { _ones -= 1 }
        } else {
            _count += 1
        }
        let w = Int(head >> 6)
        let mask = UInt64(1) << UInt64(head & 63)
        if value {
            words[w] |= mask
            _ones += 1
        } else {
            words[w] &= ~mask
        }
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

/// A fixed-capacity ring of `N` signed 32-bit values with a running sum (O(1) per push).
public struct SumRing<let N: Int>: Sendable {
    @usableFromInline var items: InlineArray<N, Int32>
    @usableFromInline var head: Int
    /// Number of entries currently held (at most `N`).
    public var count: Int { _count }
    @usableFromInline var _count: Int
    /// Sum of the entries currently held.
    public var sum: Int64 { _sum }
    @usableFromInline var _sum: Int64

    /// An empty ring.
    public init() {
        items = InlineArray(repeating: 0)
        head = 0
        _count = 0
        _sum = 0
    }

    /// Appends `value`, dropping the oldest entry when full.
    @inlinable
    public mutating func push(_ value: Int32) {
        if count == N {
            _sum -= Int64(items[head])
        } else {
            _count += 1
        }
        items[head] = value
        _sum += Int64(value)
        head += 1
        if head == N { head = 0 }
    }

    /// Empties the ring.
    public mutating func removeAll() {
        head = 0
        _count = 0
        _sum = 0
    }
}
