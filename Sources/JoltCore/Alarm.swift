/// The theft alarm's state.
public enum AlarmState: UInt8, Sendable, CaseIterable {
    /// Off: nothing triggers it.
    case disarmed
    /// Armed, but still in the grace period that lets the owner walk away.
    case arming
    /// Watching: a trigger sounds it.
    case armed
    /// Sounding, until disarmed or until the maximum duration, when it re-arms.
    case triggered
    /// Tripped, in the entry delay (`entry_ms`) that lets the owner disarm before it sounds.
    case pending
}

/// How the alarm is armed: away (every trigger of the profile), or a set of its own for when
/// people are about (`home`) or asleep (`night`), as a panel's arming modes.
public enum ArmMode: UInt8, Sendable, CaseIterable {
    case away, home, night
}

/// What may trigger the alarm.
public struct AlarmTriggers: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A shake beginning.
    public static let shake = AlarmTriggers(rawValue: 1)
    /// Turned face down.
    public static let flip = AlarmTriggers(rawValue: 2)
    /// Lifted, carried, tilted.
    public static let tamper = AlarmTriggers(rawValue: 4)
    /// All of them.
    public static let all: AlarmTriggers = [.shake, .flip, .tamper]
}

/// Settings of the alarm.
public struct AlarmSettings: Equatable, Sendable {
    /// Grace period between `arm` and watching, ms.
    public var armingMillis: Int32
    /// Longest time the alarm sounds before re-arming by itself, ms (0: until disarmed).
    public var maxSoundMillis: Int32
    /// What triggers it.
    public var triggers: AlarmTriggers
    /// Armed, a sensor that sends nothing for this long triggers it, ms (0: never): a cut cable,
    /// a chip pulled off, a frozen chip. The sensor is part of the alarm, as a trusted panel's are.
    public var sensorLostMillis: Int32
    /// Tripped, how long it waits (pending) before it sounds, ms (0: it sounds at once). A lost
    /// sensor and the panel's trigger sound at once.
    public var entryMillis: Int32 = 0
    /// What triggers it armed `home` and armed `night` (nil: that mode is not offered).
    public var homeTriggers: AlarmTriggers?
    public var nightTriggers: AlarmTriggers?

    public init(armingMillis: Int32 = 10_000, maxSoundMillis: Int32 = 300_000, triggers: AlarmTriggers = .all, sensorLostMillis: Int32 = 2_000) {
        self.armingMillis = armingMillis
        self.maxSoundMillis = maxSoundMillis
        self.triggers = triggers
        self.sensorLostMillis = sensorLostMillis
    }

    /// What triggers it armed in `mode` (nil: the mode is not offered).
    public func triggers(_ mode: ArmMode) -> AlarmTriggers? {
        switch mode {
        case .away: return triggers
        case .home: return homeTriggers
        case .night: return nightTriggers
        }
    }
}

/// A change of alarm state, and why.
public struct AlarmTransition: Equatable, Sendable {
    /// The state before.
    public var from: AlarmState
    /// The state after.
    public var to: AlarmState
    /// What caused it.
    public var cause: Cause

    /// What caused a transition.
    public enum Cause: UInt8, Sendable {
        case armCommand, disarmCommand, graceOver, shake, flip, tamper, timeout
        /// Brought back as saved after a restart (or armed because nothing could be read).
        case restored
        /// Triggered by hand (Home Assistant's panel: "trigger"), whatever the state.
        case panic
        /// The sensor sent nothing for `sensor_lost_ms`.
        case sensor
    }

    public init(from: AlarmState, to: AlarmState, cause: Cause) {
        self.from = from
        self.to = to
        self.cause = cause
    }
}

/// The alarm as a pure state machine: commands and detector events in, transitions out. Time is
/// passed in (µs, on the same clock as the samples); there is no clock and no I/O here.
public struct Alarm: Sendable {
    /// The current state.
    public var state: AlarmState { _state }
    @usableFromInline var _state: AlarmState = .disarmed
    /// When the current state was entered, µs.
    public var since: Int64 { _since }
    @usableFromInline var _since: Int64 = 0
    let arming: Int64
    /// A sounding alarm re-arms after this, µs (0: never).
    public let maxSound: Int64
    /// Armed, no data from the sensor for this long triggers it, µs (0: never).
    public let sensorLost: Int64
    /// What triggers the alarm in each mode (away, home, night; empty: not offered).
    let modeTriggers: (AlarmTriggers, AlarmTriggers, AlarmTriggers)
    /// The entry delay, µs (0: none).
    public let entry: Int64
    /// How it is armed (away when disarmed).
    public private(set) var mode: ArmMode = .away
    /// In the entry delay: what tripped it.
    public private(set) var pendingCause: AlarmTransition.Cause?

    /// An alarm with `settings`, disarmed.
    public init(settings s: AlarmSettings) {
        arming = Int64(s.armingMillis) * Units.microsPerMilli
        maxSound = Int64(s.maxSoundMillis) * Units.microsPerMilli
        sensorLost = Int64(s.sensorLostMillis) * Units.microsPerMilli
        entry = Int64(s.entryMillis) * Units.microsPerMilli
        modeTriggers = (s.triggers, s.homeTriggers ?? [], s.nightTriggers ?? [])
    }

    /// What triggers it now: the triggers of the mode it is armed in.
    public var triggers: AlarmTriggers {
        switch mode {
        case .away: return modeTriggers.0
        case .home: return modeTriggers.1
        case .night: return modeTriggers.2
        }
    }

    /// Whether it can be armed in `mode`.
    public func offers(_ mode: ArmMode) -> Bool {
        mode == .away || !(mode == .home ? modeTriggers.1 : modeTriggers.2).isEmpty
    }

    /// Whether a lost sensor has triggered it and has not come back since: it does not trigger
    /// again after `max_sound_ms` for the same loss (a panel's "swinger" rule: a zone still in
    /// alarm when the siren stops stays quiet until it restores), only after it is back or the
    /// alarm is armed anew.
    public private(set) var sensorReported = false

    /// Puts the alarm in `state` since `since` (to carry a state across a change of settings).
    public mutating func restore(state: AlarmState, since: Int64, sensorReported: Bool = false, mode: ArmMode = .away, pendingCause: AlarmTransition.Cause? = nil) {
        _state = state
        _since = since
        self.sensorReported = sensorReported
        self.mode = offers(mode) ? mode : .away
        self.pendingCause = state == .pending ? pendingCause ?? .tamper : nil
    }

    /// Whether the buzzer should sound now.
    public var isSounding: Bool { state == .triggered }

    mutating func go(_ to: AlarmState, _ cause: AlarmTransition.Cause, _ t: Int64) -> AlarmTransition? {
        if to == state { return nil }
        let tr = AlarmTransition(from: state, to: to, cause: cause)
        _state = to
        _since = t
        return tr
    }

    /// Arms the alarm at `t` in `mode` (one it offers): after the grace period it watches.
    /// Arming an armed or sounding alarm changes nothing.
    public mutating func arm(at t: Int64, mode: ArmMode = .away) -> AlarmTransition? {
        guard state == .disarmed, offers(mode) else { return nil }
        sensorReported = false
        self.mode = mode
        return arming > 0 ? go(.arming, .armCommand, t) : go(.armed, .armCommand, t)
    }

    /// Trips the armed alarm for `cause` at `t`: pending through the entry delay, or sounding at
    /// once without one.
    mutating func trip(_ cause: AlarmTransition.Cause, _ t: Int64) -> AlarmTransition? {
        guard entry > 0 else { return go(.triggered, cause, t) }
        pendingCause = cause
        return go(.pending, cause, t)
    }

    /// Disarms the alarm at `t`, silencing it.
    public mutating func disarm(at t: Int64) -> AlarmTransition? {
        pendingCause = nil
        let tr = go(.disarmed, .disarmCommand, t)
        mode = .away
        return tr
    }

    /// Triggers the alarm by hand at `t` (a panic button), from any state; a sounding alarm
    /// changes nothing. It sounds until disarmed, or `max_sound_ms`, as any trigger does.
    public mutating func panic(at t: Int64) -> AlarmTransition? {
        pendingCause = nil
        return go(.triggered, .panic, t)
    }

    /// Advances time to `t`: the grace period ends, or a sounding alarm times out and re-arms.
    public mutating func tick(at t: Int64) -> AlarmTransition? {
        switch state {
        case .arming where t - since >= arming:
            return go(.armed, .graceOver, t)
        case .triggered where maxSound > 0 && t - since >= maxSound:
            return go(.armed, .timeout, t)
        case .pending where t - since >= entry:
            // The entry delay is over: it sounds, for what tripped it.
            defer { pendingCause = nil }
            return go(.triggered, pendingCause ?? .tamper, t)
        default:
            return nil
        }
    }

    /// The sensor has sent nothing for `silent` µs (it stopped answering, or its data stopped
    /// changing) at `t`: time passes, and an armed alarm triggers once that is `sensor_lost_ms`
    /// or more. A sensor lost while disarmed or in the grace period triggers nothing until the
    /// alarm watches.
    public mutating func sensorSilent(for silent: Int64, at t: Int64) -> AlarmTransition? {
        if let tr = tick(at: t) { return tr }
        guard state == .armed || state == .pending, sensorLost > 0, silent >= sensorLost, !sensorReported else { return nil }
        sensorReported = true
        pendingCause = nil
        return go(.triggered, .sensor, t)
    }

    /// The sensor sends data again: a later loss triggers anew.
    public mutating func sensorBack() {
        sensorReported = false
    }

    /// Offers detector events at `t`; an armed alarm triggers on those it is set to watch.
    public mutating func observe(_ events: Events, at t: Int64) -> AlarmTransition? {
        guard state == .armed else { return nil }
        let watched = triggers
        if watched.contains(.tamper) && events.contains(.tamper) { return trip(.tamper, t) }
        if watched.contains(.shake) && events.contains(.shakeBegan) { return trip(.shake, t) }
        if watched.contains(.flip) && events.contains(.faceDown) { return trip(.flip, t) }
        return nil
    }
}

extension Alarm {
    /// One step of the alarm after a sample at `t` raised `events`: time passes, the events are
    /// offered, and the tamper detector is armed or disarmed to follow the state.
    public mutating func step<D: SampleDetector>(_ events: Events, at t: Int64, detectors: inout D) -> AlarmTransition? {
        let tr = tick(at: t) ?? observe(events, at: t)
        if let tr { follow(tr, detectors: &detectors) }
        return tr
    }

    /// Applies a command (arm or disarm) at `t`, keeping the tamper detector in step.
    public mutating func command<D: SampleDetector>(arm: Bool, at t: Int64, detectors: inout D) -> AlarmTransition? {
        command(arm ? .armCommand : .disarmCommand, at: t, detectors: &detectors)
    }

    /// Applies a command — `.armCommand`, `.disarmCommand` or `.panic` — at `t`, keeping the
    /// tamper detector in step.
    public mutating func command<D: SampleDetector>(_ c: AlarmTransition.Cause, at t: Int64, detectors: inout D) -> AlarmTransition? {
        let tr: AlarmTransition?
        switch c {
        case .armCommand: tr = arm(at: t)
        case .disarmCommand: tr = disarm(at: t)
        case .panic: tr = panic(at: t)
        default: tr = nil
        }
        if let tr { follow(tr, detectors: &detectors) }
        return tr
    }

    /// What the detectors must do to follow `tr`, `gravity` being the orientation of the moment
    /// (what `armTamper()` takes): watching starts against it; disarmed or in its grace period,
    /// the tamper detector stops; sounding, nothing changes.
    public static func change(after tr: AlarmTransition, gravity: Vec3) -> DetectorChange? {
        switch tr.to {
        case .armed: return .armTamper(reference: gravity)
        case .disarmed, .arming: return .disarmTamper
        case .triggered, .pending: return nil
        }
    }

    func follow<D: SampleDetector>(_ tr: AlarmTransition, detectors: inout D) {
        switch tr.to {
        case .armed:
            // Watching starts now (again, after a timeout): the reference is where it is now.
            detectors.armTamper()
        case .disarmed, .arming:
            detectors.disarmTamper()
        case .triggered, .pending:
            break
        }
    }
}

/// What the alarm asks of the detectors after a transition, as a message: whoever owns the
/// detectors (the sampling engine) applies it, so that nothing else reaches into them.
public enum DetectorChange: Equatable, Sendable {
    /// Arm the tamper detector against this orientation (gravity, mg).
    case armTamper(reference: Vec3)
    /// Disarm it.
    case disarmTamper
}

extension SampleDetector {
    /// Applies what the alarm asked.
    public mutating func apply(_ c: DetectorChange) {
        switch c {
        case .armTamper(let reference): armTamper(reference: reference)
        case .disarmTamper: disarmTamper()
        }
    }
}
