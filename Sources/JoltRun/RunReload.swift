import JoltBuildInfo
import JoltCore
import JoltJSON
import JoltLinux
import JoltActions
import JoltBoard
import JoltChips
import JoltConfig
import JoltControl
import JoltDrivers
import JoltEngine
import JoltSupport

extension RunCommand {
    /// SIGHUP or `jolt reload`: read the board profile again. A bad one is refused and the
    /// running one kept; hardware changes need a restart; detection, actions and alarm settings
    /// apply now, and the alarm keeps its state. Returns what changed, or why it was refused (as
    /// logged).
    @discardableResult
    package func reload(_ s: Service) -> Result<String, Refused> {
        guard board.hasFile else {
            Log.warning("reload: nothing to reload (no board file)")
            return .failure(Refused(message: "nothing to reload: this jolt runs a board without a file"))
        }
        notifier.send("RELOADING=1")
        defer { notifier.send("READY=1") }
        let new: BoardProfile
        let bytes: [UInt8]
        do {
            bytes = try readFile(board.file, what: "board profile", missingHint: "see boards/ for examples")
            new = try BoardProfile.parse(bytes, file: board.file)
        } catch {
            return refuse(error.message)
        }
        // What cannot change under a running alarm: the whole reload is refused, nothing applied
        // in part.
        do { try Self.refuseComparisonAlgorithms(new.detection, file: board.file) } catch {
            return refuse(error.message)
        }
        let fixed = board.onlyRestartChanges(to: new)
        guard fixed.isEmpty else {
            return refuse("\(fixed.joined(separator: ", ")) changed in \(board.file), which only a restart applies (systemctl restart jolt)")
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
            a.walkTest = n.walkTest
            a.chirp = n.chirp
            applied.alarm = a
            s.alarm?.reconfigure(a, detection: new.detection)
        }
        board = applied
        s.router.bindings = board.actions
        let tree = try? JSONParser.parse(bytes).value
        var changed = ["nothing changed"]
        if let old = profileTree, let tree {
            let c = JSON.changes(from: old, to: tree)
            if !c.isEmpty { changed = c.count <= 8 ? c : Array(c.prefix(8)) + ["and \(c.count - 8) more"] }
        }
        profileTree = tree
        let done = "reloaded \(board.file): \(changed.joined(separator: ", "))"
        Log.info(done)
        return .success(done)
    }

    private func refuse(_ why: String) -> Result<String, Refused> {
        Log.error("reload refused, keeping the running configuration: \(why)")
        return .failure(Refused(message: "reload refused, keeping the running configuration: \(why)"))
    }

    /// Why a reload was refused.
    package struct Refused: Error {
        package let message: String
    }
}

extension BoardProfile {
    /// What differs in `new` that only a restart applies: the hardware, the lines, the socket,
    /// the alarm's presence and outputs, how the chip is read, MQTT, the simulated board.
    package func onlyRestartChanges(to new: BoardProfile) -> [String] {
        var fixed: [String] = []
        if new.bus != bus { fixed.append("bus") }
        if new.chip != chip { fixed.append("chip") }
        if new.address != address { fixed.append("address") }
        if new.rateMilliHz != rateMilliHz { fixed.append("rate_hz") }
        if new.accelRangeG != accelRangeG { fixed.append("accel_range_g") }
        if new.gyroRangeDps != gyroRangeDps { fixed.append("gyro_range_dps") }
        if new.fifo != fifo || new.fifoPollMillis != fifoPollMillis { fixed.append("fifo") }
        if new.interrupt != interrupt { fixed.append("int") }
        if new.outputs != outputs { fixed.append("outputs") }
        if new.inputs != inputs { fixed.append("inputs") }
        if new.control != control { fixed.append("control") }
        if (new.alarm == nil) != (alarm == nil) || new.alarm?.output != alarm?.output || new.alarm?.cadence != alarm?.cadence
            || new.alarm?.stateDirectory != alarm?.stateDirectory { fixed.append("alarm (its presence, output, cadence or state_dir)") }
        if new.oversampled != oversampled { fixed.append("alarm.triggers (tamper below 50 Hz: how the chip is read)") }
        if new.mqtt != mqtt { fixed.append("mqtt") }
        if new.sim != sim { fixed.append("sim") }
        return fixed
    }
}
