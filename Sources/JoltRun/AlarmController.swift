import JoltCore
import JoltJSON
import JoltLinux
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltChips
import JoltConfig
import JoltControl
import JoltDrivers
import JoltEngine
import JoltSupport

/// The alarm as it is published: its state, since when (stream µs) and since when on the wall
/// clock (µs since 1970), the last trigger, whether it is a walk test, the chip's last check and
/// the arming mode.
package struct AlarmReport {
    package var state: AlarmState
    package var since: Int64
    package var sinceWall: Int64
    package var lastTrigger: LastTrigger?
    package var walkTest: Bool
    package var sensorCheck: SensorCheck?
    package var mode: ArmMode
}

/// Where an alarm transition goes besides the alarm itself, in the order it goes there: the
/// buzzer (the action thread plays the cadence), the event, then systemd's status and MQTT's
/// state topic. The state on disk comes last, from the controller's own store.
package struct AlarmEffects {
    /// The alarm's output, sounding or silent.
    package var sound: (Bool) -> Void
    /// A transition as an event record.
    package var announce: (EventRecord) -> Void
    /// The alarm as systemd and MQTT are told it.
    package var publish: (AlarmReport) -> Void
    /// A chirp pattern on the alarm's output (nil: stop one): a walk test's announcement, the
    /// grace period's cadence, arming and disarming.
    package var chirp: (Pattern?) -> Void = { _ in }
    /// The alarm triggered at a stream time, for a reason (its text): the file that will keep
    /// the readings around it (nil: none is kept).
    package var evidence: (Int64, String) -> String? = { _, _ in nil }
}

/// The alarm's chirps on its output.
package enum Chirp {
    /// A walk test's would-be trigger, and the alarm starting to watch: one short chirp.
    package static let once = Pattern.beeps(on: 80, off: 120, count: 1)
    /// Disarmed: two.
    package static let twice = Pattern.beeps(on: 80, off: 120, count: 2)
    /// The grace period (the exit delay): a short chirp each second until it watches.
    package static let exitDelay = Pattern.cadence(on: 40, off: 960)
    /// The entry delay: four a second, until it sounds or is disarmed.
    package static let entryDelay = Pattern.cadence(on: 60, off: 190)
}

/// The theft alarm as `jolt run` keeps it: the state machine (`Alarm`, pure, in JoltCore), its
/// state on disk (`AlarmStore`), the tamper reference it holds across reloads and restarts, and
/// what a change does (`AlarmEffects`). It never touches the detectors: each transition returns
/// what they must do (`DetectorChange`), which the sampling engine applies; so it is told the
/// orientation of the moment (the detectors' gravity) with every command and sample.
package final class AlarmController {
    package private(set) var alarm: Alarm
    package let store: AlarmStore?
    package let effects: AlarmEffects
    /// What the store held at start (nil: no state is kept).
    package let savedAtStart: Result<SavedAlarm?, AlarmStore.LoadError>?
    /// Whether the profile arms it at start, when no state is kept.
    package let armedAtStart: Bool
    /// The tamper reference while armed or sounding (gravity, mg): fresh detectors, after a reload
    /// or a restart, take it rather than the orientation of the moment.
    package private(set) var tamperReference: Vec3?
    /// When the alarm entered its state, wall clock µs.
    package private(set) var sinceWall = WallClock.nowMicros()
    /// Tampers seen while the alarm was already sounding, since it last triggered.
    package private(set) var tamperRepeats = 0
    /// When it last triggered, monotonic µs (the latency to the buzzer is measured from here).
    package private(set) var triggeredAt: Int64?
    /// What last triggered it, why and when (since this run started).
    package private(set) var lastTrigger: LastTrigger?
    /// A walk test (`alarm.mode: "test"`): a would-be trigger is announced, and nothing sounds.
    package private(set) var walkTest: Bool
    /// Chirps on arming, disarming and through the grace period (`alarm.chirp`).
    package private(set) var chirps: Bool
    /// The detection settings the triggers are judged by: a walk test's margins.
    package private(set) var detection: DetectionSettings
    /// The alarm's settings: a walk test's margin for a lost sensor.
    package private(set) var settings: AlarmSettings
    /// Would-be triggers of the walk test since it began (this run).
    package private(set) var walkTestCount = 0
    /// Checks the chip (its self-test, between polls): set by the run, which owns the chip; nil
    /// where there is none to check (a test of the controller alone).
    package var sensorCheck: (() -> Result<SelfTestResult, ChipTestFailure>)?
    /// `alarm.self_test`: "refuse", "warn" or "off".
    package var selfTestPolicy: String
    /// The chip's last check, at the last arming (this run).
    package var lastCheck: SensorCheck?
    /// Why the last arm command was refused, for its reply (`takeRefusal`).
    package var refusal: String?
    /// In the entry delay: why it tripped (the reason it sounds for when the delay is over).
    private var pendingReason: TriggerReason?
    private var begun = false
    /// Whether the state has been published (MQTT says nothing of the alarm before `begin`).
    private var published = false

    package init(config: AlarmConfig, detection: DetectionSettings, store: AlarmStore?, effects: AlarmEffects) {
        alarm = Alarm(settings: config.settings)
        settings = config.settings
        armedAtStart = config.armedAtStart
        walkTest = config.walkTest
        chirps = config.chirp
        selfTestPolicy = config.selfTest
        self.detection = detection
        self.store = store
        self.effects = effects
        savedAtStart = store?.load()
        if walkTest { Log.warning("alarm: walk test (alarm.mode \"test\"): what would trigger it is announced, and it never sounds") }
    }

    /// The alarm's state, and since when (stream µs).
    package var state: AlarmState { alarm.state }
    package var since: Int64 { alarm.since }

    /// Whether the detectors must be armed: the alarm watches, or sounds.
    package var watching: Bool { alarm.state == .armed || alarm.state == .triggered }

    /// The alarm at start, once per run: as saved (sounding again, or armed against the saved
    /// orientation, which fresh detectors then take at their first sample), armed when the saved
    /// state cannot be read (fail-secure), or as the profile says when no state is kept. It is
    /// published then, and not before: the state is first known here.
    package func begin(at t: Int64, gravity: Vec3) -> DetectorChange? {
        guard !begun else { return nil }
        begun = true
        let change = starting(at: t, gravity: gravity)
        // A start that changed nothing (disarmed as saved, or as the profile has it) says so too.
        if !published { publish() }
        return change
    }

    private func starting(at t: Int64, gravity: Vec3) -> DetectorChange? {
        func arm(_ why: String?) -> DetectorChange? {
            if let why { Log.warning(why) }
            return command(.armCommand, at: t, gravity: gravity, starting: true)
        }
        guard let saved = savedAtStart, let store else { return armedAtStart ? arm(nil) : nil }
        switch saved {
        case .failure(let e):
            return arm("alarm: \(e.message): arming (fail-secure); jolt disarm disarms it")
        case .success(nil):
            return arm("alarm: no saved state in \(store.path): arming (fail-secure; the first start, or the file was removed); jolt disarm disarms it")
        case .success(let s?):
            switch s.state {
            case .disarmed:
                sinceWall = s.sinceWallMicros
                Log.info("alarm: disarmed since \(WallClock.iso8601(s.sinceWallMicros)), as saved in \(store.path)")
                return nil
            case .arming:
                return arm("alarm: was arming when Jolt stopped: arming again")
            case .armed, .triggered, .pending:
                restore(s, at: t, path: store.path)
                return nil
            }
        }
    }

    /// Armed or sounding as saved: no grace period, no new reference.
    private func restore(_ saved: SavedAlarm, at t: Int64, path: String) {
        // Stopped in its entry delay: it was tripped, and sounds (fail-secure).
        var s = saved
        if s.state == .pending { s.state = .triggered }
        alarm.restore(state: s.state, since: t, mode: s.mode)
        tamperReference = s.reference
        sinceWall = s.sinceWallMicros
        Log.warning("alarm: \(EventRecord.alarmName(s.state)) since \(WallClock.iso8601(s.sinceWallMicros)) (\(s.cause)), as saved in \(path): \(s.state == .triggered ? "sounding again" : "watching against the saved orientation")")
        if s.state == .triggered {
            triggeredAt = Sys.monotonicMicros()
            effects.sound(true)
        }
        effects.announce(EventRecord(t: t, kind: .alarm(AlarmTransition(from: .disarmed, to: s.state, cause: .restored))))
        publish()
    }

    /// A disarm that the disk could not keep (its save failed, and the disk still says the alarm
    /// watches): the alarm follows the safer of the two states and watches again, silent, against
    /// the saved orientation, until a disarm is saved. Returns what the detectors must do.
    package func unsavedDisarm(at t: Int64, gravity: Vec3) -> DetectorChange? {
        guard alarm.state == .disarmed, let store, let why = store.trouble, let disk = store.onDisk, disk.state != .disarmed else { return nil }
        Log.error("alarm: the disarm could not be saved (\(why)): watching again, as the disk says; free the disk, then disarm")
        guard disk.state != .arming, let reference = disk.reference else {
            return command(.armCommand, at: t, gravity: gravity, starting: true, mode: disk.mode)
        }
        alarm.restore(state: .armed, since: t, mode: disk.mode)
        tamperReference = reference
        sinceWall = WallClock.nowMicros()
        effects.announce(EventRecord(t: t, kind: .alarm(AlarmTransition(from: .disarmed, to: .armed, cause: .restored))))
        publish()
        store.save(SavedAlarm(state: .armed, sinceWallMicros: sinceWall, cause: EventRecord.causeName(.restored), reference: reference, mode: disk.mode))
        return .armTamper(reference: reference)
    }

    /// What fresh detectors (at start, after a reload or a fault) take at their first sample
    /// while the alarm watches: the kept reference, or the orientation of that sample.
    package func rearm(gravity: Vec3) -> DetectorChange {
        let reference = tamperReference ?? gravity
        tamperReference = reference
        return .armTamper(reference: reference)
    }

    /// A command — `.armCommand`, `.disarmCommand` or `.panic` — at `t` (a stream time). An arm
    /// command checks the chip first (`alarm.self_test`); `starting`: the alarm arms at start,
    /// and a failed check is only warned of.
    package func command(_ cause: AlarmTransition.Cause, at t: Int64, gravity: Vec3, starting: Bool = false, mode: ArmMode = .away) -> DetectorChange? {
        if cause == .armCommand && !alarm.offers(mode) {
            refusal = "not armed: this alarm is not set up to arm \(EventRecord.modeName(mode)) (add alarm.modes.\(EventRecord.modeName(mode)), the triggers it watches then)"
            return nil
        }
        if cause == .armCommand && alarm.state == .disarmed && !checkSensor(starting: starting) { return nil }
        var a = alarm
        let tr: AlarmTransition?
        switch cause {
        case .armCommand: tr = a.arm(at: t, mode: mode)
        case .disarmCommand: tr = a.disarm(at: t)
        case .panic: tr = a.panic(at: t)
        default: tr = nil
        }
        alarm = a
        return tr.flatMap { changed($0, at: t, gravity: gravity, reason: TriggerReason(cause: $0.cause, tamper: nil, shakePeak2: 0)) }
    }

    /// The events of a sample to show: while the alarm sounds, a tamper is counted (`jolt status`
    /// shows the count), not shown again.
    package func shown(_ e: Events) -> Events {
        guard e.contains(.tamper), alarm.state == .triggered else { return e }
        tamperRepeats += 1
        var shown = e
        shown.remove(.tamper)
        return shown
    }

    /// The events of a sample at `t`: time passes (the grace period ends, a sounding alarm times
    /// out), and an armed alarm triggers on what it watches, for the reason the detectors give
    /// (`reason`, asked only then). Returns what the detectors must do.
    package func observe(_ e: Events, at t: Int64, gravity: Vec3, reason: (AlarmTransition.Cause) -> TriggerReason? = { _ in nil }) -> DetectorChange? {
        var a = alarm
        let tr = a.tick(at: t) ?? a.observe(e, at: t)
        if let tr, tr.to == .triggered || tr.to == .pending, walkTest { return wouldTrigger(tr.cause, a, at: t, reason: reason(tr.cause)) }
        alarm = a
        return tr.flatMap { changed($0, at: t, gravity: gravity, reason: $0.to == .triggered || $0.to == .pending ? reason($0.cause) : nil) }
    }

    /// A walk test: what would have triggered the alarm is announced — the event with its reason
    /// and margin, the journal, a chirp — and the alarm keeps watching as it was (`after`: the
    /// machine that would have triggered, for what it remembers of a lost sensor).
    private func wouldTrigger(_ cause: AlarmTransition.Cause, _ after: Alarm, at t: Int64, reason: TriggerReason?) -> DetectorChange? {
        var a = after
        a.restore(state: alarm.state, since: alarm.since, sensorReported: after.sensorReported, mode: alarm.mode, pendingCause: alarm.pendingCause)
        alarm = a
        walkTestCount += 1
        let margin = reason.flatMap { TriggerMargin($0, detection: detection, alarm: settings) }
        let record = EventRecord(t: t, kind: .walkTest(cause), reason: reason, margin: margin)
        effects.chirp(Chirp.once)
        effects.announce(record)
        Log.info("walk test: would trigger (\(LastTrigger(cause: cause, reason: reason, wallMicros: 0).text)\(margin.map { ", " + $0.text } ?? ""))")
        return nil
    }

    /// While the sensor is lost (faulted, or re-probed but not yet sending data that changes):
    /// it has sent nothing for `silent` µs at `t` (a stream time). Time passes, and an armed alarm
    /// triggers once that is `sensor_lost_ms`, with reason `sensor`.
    package func sensorSilent(for silent: Int64, at t: Int64, gravity: Vec3) -> DetectorChange? {
        var a = alarm
        let tr = a.sensorSilent(for: silent, at: t)
        if let tr, tr.to == .triggered, tr.cause == .sensor, walkTest { return wouldTrigger(.sensor, a, at: t, reason: TriggerReason(sensorSilentMicros: silent)) }
        alarm = a
        return tr.flatMap { changed($0, at: t, gravity: gravity, reason: $0.to == .triggered ? TriggerReason(sensorSilentMicros: silent) : nil) }
    }

    /// The sensor is back (the chip answers with data that changes): a later loss triggers anew.
    package func sensorBack() {
        alarm.sensorBack()
    }

    /// While the sensor is lost, when (µs after its last data) the alarm next needs the loop: an
    /// armed alarm at `sensor_lost_ms`; one in its grace period soon (its grace ends on time,
    /// samples or not); nil when nothing waits on the sensor's silence.
    package func nextSilenceCheck(silent: Int64) -> Int64? {
        switch alarm.state {
        case .armed: return alarm.sensorLost > 0 && !alarm.sensorReported ? max(alarm.sensorLost, silent) : nil
        case .arming, .pending: return silent + Self.silentTickMicros
        case .triggered, .disarmed: return alarm.state == .triggered && alarm.maxSound > 0 ? silent + Self.silentTickMicros : nil
        }
    }

    /// How often time passes for the alarm while no samples come and something waits on it.
    static let silentTickMicros: Int64 = 100_000

    /// A transition: the buzzer first, then the event (with the trigger's reason), the journal,
    /// systemd's status and MQTT, and last the state on disk, which the store writes on its own
    /// thread (an SD card's fsync never holds up the buzzer or the next poll of the chip).
    private func changed(_ tr: AlarmTransition, at t: Int64, gravity: Vec3, reason given: TriggerReason?) -> DetectorChange? {
        let change = Alarm.change(after: tr, gravity: gravity)
        // After the entry delay it sounds for what tripped it, not for the sample of the moment.
        let reason = tr.from == .pending && tr.to == .triggered && tr.cause != .panic && tr.cause != .sensor ? pendingReason : given
        if tr.from == .pending { effects.chirp(nil) }
        switch tr.to {
        case .armed: tamperReference = gravity
        case .triggered: break
        case .disarmed, .arming: tamperReference = nil
        case .pending: pendingReason = reason
        }
        if tr.to == .triggered {
            tamperRepeats = 0
            triggeredAt = Sys.monotonicMicros()
        }
        if (tr.to == .triggered) != (tr.from == .triggered) { effects.sound(tr.to == .triggered) }
        if chirps { chirp(after: tr) }
        if tr.to == .pending {
            effects.chirp(Chirp.entryDelay)
            Log.warning("alarm: tripped (\(LastTrigger(cause: tr.cause, reason: reason, wallMicros: 0).text)): it sounds in \(EventRecord.seconds(alarm.entry)) s unless disarmed")
        }
        sinceWall = WallClock.nowMicros()
        var record = EventRecord(t: t, kind: .alarm(tr), reason: tr.to == .triggered || tr.to == .pending ? reason : nil)
        if tr.to == .triggered {
            let last = LastTrigger(cause: tr.cause, reason: reason, wallMicros: sinceWall)
            lastTrigger = last
            record.evidence = effects.evidence(t, last.text)
            Log.warning("alarm: triggered (\(last.text))")
        }
        effects.announce(record)
        publish()
        store?.save(SavedAlarm(state: tr.to, sinceWallMicros: sinceWall, cause: EventRecord.causeName(tr.cause), reference: tamperReference, mode: alarm.mode))
        return change
    }

    /// `alarm.chirp`: a chirp each second of the grace period, one when it starts watching (not
    /// when it re-arms after sounding), two when disarmed.
    private func chirp(after tr: AlarmTransition) {
        switch tr.to {
        case .arming: effects.chirp(Chirp.exitDelay)
        case .armed where tr.from != .triggered: effects.chirp(Chirp.once)
        case .disarmed: effects.chirp(Chirp.twice)
        case .armed, .triggered: if tr.from == .arming { effects.chirp(nil) }   // the panel's trigger in the grace period
        case .pending: break   // the entry delay's cadence, chirps or not (`changed`)
        }
    }

    /// New settings from a reload: the same state, since the same time.
    package func reconfigure(_ c: AlarmConfig, detection: DetectionSettings) {
        var a = Alarm(settings: c.settings)
        a.restore(state: alarm.state, since: alarm.since, sensorReported: alarm.sensorReported, mode: alarm.mode, pendingCause: alarm.pendingCause)
        alarm = a
        settings = c.settings
        self.detection = detection
        chirps = c.chirp
        selfTestPolicy = c.selfTest
        if c.walkTest != walkTest {
            walkTest = c.walkTest
            walkTestCount = 0
            Log.warning(walkTest ? "alarm: walk test (alarm.mode \"test\"): what would trigger it is announced, and it never sounds" : "alarm: the walk test is over: a trigger sounds the alarm")
            publish()
        }
    }

    /// The state to systemd and MQTT.
    private func publish() {
        published = true
        effects.publish(AlarmReport(state: alarm.state, since: alarm.since, sinceWall: sinceWall, lastTrigger: lastTrigger, walkTest: walkTest,
                                    sensorCheck: lastCheck, mode: alarm.mode))
    }

    /// The alarm's part of a control reply: its state and since when.
    package var replyFields: [(String, JSON)] {
        var f: [(String, JSON)] = [("alarm", true), ("state", .string(EventRecord.alarmName(alarm.state)))]
        if alarm.state != .disarmed && alarm.mode != .away { f.append(("mode", .string(EventRecord.modeName(alarm.mode)))) }
        f.append(("since", .decimal(EventRecord.seconds(alarm.since))))
        f.append(("since_utc", .string(WallClock.iso8601(sinceWall))))
        f.append(("tamper_repeats", .int(tamperRepeats)))
        if walkTest { f += [("walk_test", true), ("walk_test_triggers", .int(walkTestCount))] }
        if let lastTrigger { f.append(("last_trigger", lastTrigger.jsonValue)) }
        if let lastCheck { f.append(("sensor_check", lastCheck.jsonValue)) }
        return f
    }
}
