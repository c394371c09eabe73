import JoltBuildInfo
import JoltCore
import JoltJSON
import JoltLinux

extension RunCommand {
    /// SIGHUP: read the board profile again. A bad one is refused and the running one kept;
    /// hardware changes need a restart; detection, actions and alarm settings apply now, and the
    /// alarm keeps its state.
    func reload() {
        guard board.hasFile else {
            Log.warning("SIGHUP: nothing to reload (no board file)")
            return
        }
        notifier.send("RELOADING=1")
        defer { notifier.send("READY=1") }
        let new: BoardProfile
        let bytes: [UInt8]
        do {
            bytes = try readFile(board.file, what: "board profile", missingHint: "see boards/ for examples")
            new = try BoardProfile.parse(bytes, file: board.file)
        } catch {
            Log.error("reload refused, keeping the running configuration: \(error.message)")
            return
        }
        // What cannot change under a running alarm: the whole reload is refused, nothing applied
        // in part.
        var fixed: [String] = []
        if new.bus != board.bus { fixed.append("bus") }
        if new.chip != board.chip { fixed.append("chip") }
        if new.address != board.address { fixed.append("address") }
        if new.rateMilliHz != board.rateMilliHz { fixed.append("rate_hz") }
        if new.accelRangeG != board.accelRangeG { fixed.append("accel_range_g") }
        if new.gyroRangeDps != board.gyroRangeDps { fixed.append("gyro_range_dps") }
        if new.fifo != board.fifo || new.fifoPollMillis != board.fifoPollMillis { fixed.append("fifo") }
        if new.outputs != board.outputs { fixed.append("outputs") }
        if new.inputs != board.inputs { fixed.append("inputs") }
        if new.control != board.control { fixed.append("control") }
        if (new.alarm == nil) != (board.alarm == nil) || new.alarm?.output != board.alarm?.output || new.alarm?.cadence != board.alarm?.cadence
            || new.alarm?.stateDirectory != board.alarm?.stateDirectory { fixed.append("alarm (its presence, output, cadence or state_dir)") }
        if new.oversampled != board.oversampled { fixed.append("alarm.triggers (tamper below 50 Hz: how the chip is read)") }
        if new.mqtt != board.mqtt { fixed.append("mqtt") }
        if new.sim != board.sim { fixed.append("sim") }
        guard fixed.isEmpty else {
            Log.error("reload refused, keeping the running configuration: \(fixed.joined(separator: ", ")) changed in \(board.file), which only a restart applies (systemctl restart jolt)")
            return
        }
        var applied = board
        applied.detection = new.detection
        applied.mount = new.mount
        applied.actions = new.actions
        applied.name = new.name
        if var a = board.alarm, let n = new.alarm {
            a.settings = n.settings
            a.armedAtStart = n.armedAtStart
            a.keySwitch = n.keySwitch
            applied.alarm = a
            if let old = alarm { alarm = old.reconfigured(n.settings) }
        }
        board = applied
        let tree = try? JSONParser.parse(bytes).value
        var changed = ["nothing changed"]
        if let old = profileTree, let tree {
            let c = JSON.changes(from: old, to: tree)
            if !c.isEmpty { changed = c.count <= 8 ? c : Array(c.prefix(8)) + ["and \(c.count - 8) more"] }
        }
        profileTree = tree
        Log.info("reloaded \(board.file): \(changed.joined(separator: ", "))")
    }
}
