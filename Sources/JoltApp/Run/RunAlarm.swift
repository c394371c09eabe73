import JoltBuildInfo
import JoltCore
import JoltJSON
import JoltLinux

/// The alarm as `jolt run` drives it: restored at start, saved and announced on every change,
/// and the key switch. The state machine itself is `Alarm` in JoltCore; its state on disk is
/// `AlarmStore`.
extension RunCommand {
    /// The alarm at start: as saved (sounding again, or armed against the saved orientation,
    /// which `tamperReference` then holds for the first sample), armed when the saved state
    /// cannot be read (fail-secure), or as the profile says when no state is kept.
    func startAlarm<D: SampleDetector>(_ d: inout D) {
        guard alarm != nil, !alarmStarted else { return }
        alarmStarted = true
        func arm(_ why: String?) {
            if let why { Log.warning(why) }
            if let tr = alarm!.command(arm: true, at: streamNow, detectors: &d) { alarmChanged(tr, at: streamNow, reference: d.tamperReference) }
        }
        guard let saved = savedAtStart, let store else {
            if board.alarm?.armedAtStart == true { arm(nil) }
            return
        }
        switch saved {
        case .failure(let e):
            arm("alarm: \(e.message): arming (fail-secure); jolt disarm disarms it")
        case .success(nil):
            arm("alarm: no saved state in \(store.path): arming (fail-secure; the first start, or the file was removed); jolt disarm disarms it")
        case .success(let s?):
            switch s.state {
            case .disarmed:
                alarmSinceWall = s.sinceWallMicros
                Log.info("alarm: disarmed since \(WallClock.iso8601(s.sinceWallMicros)), as saved in \(store.path)")
            case .arming:
                arm("alarm: was arming when Jolt stopped: arming again")
            case .armed, .triggered:
                alarm!.restore(state: s.state, since: streamNow)
                tamperReference = s.reference
                alarmSinceWall = s.sinceWallMicros
                let tr = AlarmTransition(from: .disarmed, to: s.state, cause: .restored)
                Log.warning("alarm: \(EventRecord.alarmName(s.state)) since \(WallClock.iso8601(s.sinceWallMicros)) (\(s.cause)), as saved in \(store.path): \(s.state == .triggered ? "sounding again" : "watching against the saved orientation")")
                emit(EventRecord(t: streamNow, kind: .alarm(tr)))
                if s.state == .triggered {
                    stats.triggeredAtWall = Sys.monotonicMicros()
                    worker?.submit(.alarm(sounding: true))
                }
                notifier.send("STATUS=alarm \(EventRecord.alarmName(s.state))")
                if let a = alarm { bridge?.alarm(a.state, since: a.since, sinceWall: alarmSinceWall) }
            }
        }
    }

    /// An alarm transition: the buzzer first, then the event, systemd's status and MQTT, and
    /// last the state on disk, which the store writes on its own thread (an SD card's fsync
    /// never holds up the buzzer or the next poll of the chip).
    func alarmChanged(_ tr: AlarmTransition, at t: Int64, reference: Vec3?) {
        tamperReference = tr.to == .armed || tr.to == .triggered ? (reference ?? tamperReference) : nil
        if tr.to == .triggered {
            tamperRepeats = 0
            stats.triggeredAtWall = Sys.monotonicMicros()
        }
        if (tr.to == .triggered) != (tr.from == .triggered) {
            worker?.submit(.alarm(sounding: tr.to == .triggered))
        }
        alarmSinceWall = WallClock.nowMicros()
        emit(EventRecord(t: t, kind: .alarm(tr)))
        notifier.send("STATUS=alarm \(EventRecord.alarmName(tr.to))")
        if let a = alarm { bridge?.alarm(a.state, since: a.since, sinceWall: alarmSinceWall) }
        store?.save(SavedAlarm(state: tr.to, sinceWallMicros: alarmSinceWall, cause: EventRecord.causeName(tr.cause), reference: tamperReference))
    }

    /// A key switch arms when it turns active and disarms when it turns inactive.
    func readKeySwitch<D: SampleDetector>(_ d: inout D) {
        guard let name = board.alarm?.keySwitch, let line = inputs[name], alarm != nil else { return }
        guard let v = try? line.get() else { return }
        defer { keySwitchLast = v }
        guard let last = keySwitchLast, last != v else { return }
        Log.info("key switch \(name): \(v ? "on, arming" : "off, disarming")")
        if let tr = alarm!.command(arm: v, at: streamNow, detectors: &d) { alarmChanged(tr, at: streamNow, reference: d.tamperReference) }
    }
}

extension Alarm {
    /// The same alarm, in the same state, with new settings.
    func reconfigured(_ s: AlarmSettings) -> Alarm {
        var a = Alarm(settings: s)
        a.restore(state: state, since: since)
        return a
    }
}
