/// The phase of a shake gesture, as UIKit reports motion events.
public enum ShakePhase: UInt8, Sendable {
    /// A shake was recognised.
    case began
    /// The motion stopped.
    case ended
    /// The motion lasted past the maximum duration: not a gesture (a vibrating table, a bus ride).
    case cancelled
}

/// The orientation that a flip detector reports.
public enum FaceState: UInt8, Sendable {
    /// The device turned over and settled face down.
    case faceDown
    /// The device is no longer face down.
    case faceUp
}

/// The events one sample can raise, as a set of bits: several detectors may fire on the same sample.
public struct Events: OptionSet, Sendable {
    public let rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A shake was recognised.
    @inlinable public static var shakeBegan: Events { Events(rawValue: 1 << 0) }
    /// A shake ended.
    @inlinable public static var shakeEnded: Events { Events(rawValue: 1 << 1) }
    /// A shake was cancelled (it lasted too long).
    @inlinable public static var shakeCancelled: Events { Events(rawValue: 1 << 2) }
    /// The device settled face down.
    @inlinable public static var faceDown: Events { Events(rawValue: 1 << 3) }
    /// The device is no longer face down.
    @inlinable public static var faceUp: Events { Events(rawValue: 1 << 4) }
    /// The device moved or tilted away from where it was armed.
    @inlinable public static var tamper: Events { Events(rawValue: 1 << 5) }

    /// The event for a shake phase.
    @inlinable
    public static func shake(_ p: ShakePhase) -> Events {
        switch p {
        case .began: return .shakeBegan
        case .ended: return .shakeEnded
        case .cancelled: return .shakeCancelled
        }
    }

    /// The event for a flip state.
    @inlinable
    public static func flip(_ s: FaceState) -> Events {
        s == .faceDown ? .faceDown : .faceUp
    }
}
