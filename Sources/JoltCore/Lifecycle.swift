/// The began / ended / cancelled lifecycle of a gesture, driven by per-sample evidence.
///
/// - `began` when the detector recognises the gesture (and the refractory period has passed);
/// - `ended` when no evidence has come for `quiet` microseconds;
/// - `cancelled` when the gesture is still going after `maxDuration`: it is then ignored until
///   the motion stops, so a vibrating table does not begin again every few seconds.
/// After `ended` or the end of a cancelled motion, nothing begins for `refractory` microseconds.
public struct GestureLifecycle: Sendable {
    @usableFromInline enum State: UInt8, Sendable { case idle, active, cancelled }

    @usableFromInline var state: State = .idle
    /// When the current gesture began, µs.
    public var since: Int64 { _since }
    @usableFromInline var _since: Int64 = 0
    @usableFromInline var lastEvidence: Int64 = 0
    @usableFromInline var refractoryUntil: Int64 = .min
    @usableFromInline let quiet: Int64
    @usableFromInline let refractory: Int64
    @usableFromInline let maxDuration: Int64

    /// A lifecycle with the given periods, in microseconds.
    public init(quietMicros: Int64, refractoryMicros: Int64, maxDurationMicros: Int64) {
        quiet = quietMicros
        refractory = refractoryMicros
        maxDuration = maxDurationMicros
    }

    /// Whether a gesture is under way (began, not yet ended or cancelled).
    @inlinable public var isActive: Bool { state == .active }

    /// Whether `update` has work to do without new recognition: a gesture under way, or a
    /// cancelled motion still waiting to stop.
    @inlinable public var needsUpdate: Bool { state != .idle }

    /// Advances to time `t`. `recognised`: the detector sees the gesture now; `evidence`: the
    /// motion that keeps a gesture going is present now (implied by `recognised`).
    @inlinable
    public mutating func update(t: Int64, recognised: Bool, evidence: Bool) -> ShakePhase? {
        switch state {
        case .idle:
            if recognised && t >= refractoryUntil {
                state = .active
                _since = t
                lastEvidence = t
                return .began
            }
            return nil
        case .active:
            if evidence || recognised { lastEvidence = t }
            if t - since > maxDuration {
                state = .cancelled
                return .cancelled
            }
            if t - lastEvidence > quiet {
                state = .idle
                refractoryUntil = t + refractory
                return .ended
            }
            return nil
        case .cancelled:
            if evidence || recognised { lastEvidence = t }
            if t - lastEvidence > quiet {
                state = .idle
                refractoryUntil = t + refractory
            }
            return nil
        }
    }

    /// Forgets any gesture under way, without an event (a gap in the data).
    public mutating func reset() {
        state = .idle
        refractoryUntil = .min
    }
}

/// The lifecycle phone apps use: every trigger outside the refractory period is a new shake
/// (`began`), which `ended`s when its refractory period runs out. No cancellation.
public struct RefractoryTrigger: Sendable {
    @usableFromInline var lastTrigger: Int64 = .min
    @usableFromInline var active = false
    @usableFromInline let refractory: Int64

    /// A trigger with a refractory period in microseconds.
    public init(refractoryMicros: Int64) {
        refractory = refractoryMicros
    }

    /// Advances to time `t` with this sample's trigger.
    @inlinable
    public mutating func update(t: Int64, trigger: Bool) -> ShakePhase? {
        if active {
            if t - lastTrigger >= refractory {
                active = false
                return .ended
            }
            return nil
        }
        if trigger && (lastTrigger == .min || t - lastTrigger >= refractory) {
            lastTrigger = t
            active = true
            return .began
        }
        return nil
    }

    /// When the last shake began, µs.
    public var since: Int64 { lastTrigger }

    /// Forgets the last trigger.
    public mutating func reset() {
        lastTrigger = .min
        active = false
    }
}
