import JoltCore
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltChips
import JoltConfig
import JoltControl
import JoltDrivers
import JoltEngine
import JoltJSON
import JoltLinux
import JoltSupport

/// Where every event of `jolt run` goes, in one place: counted, to the control socket's live
/// stream, to whoever watches the run from inside (`RunWatcher`), to MQTT, and to the actions the
/// profile binds to it, on the action thread. Nothing here waits.
package final class EventRouter {
    /// What each event does (the profile's `actions`; nil: every event on stdout). A reload
    /// replaces it.
    package var bindings: [EventBinding]?
    package let worker: ActionWorker
    package let control: ControlServer?
    package let bridge: MQTTBridge?
    package let watcher: RunWatcher?
    /// The run clock's now, for the watcher.
    package let now: () -> Int64
    /// Events so far.
    package private(set) var count = 0

    package init(bindings: [EventBinding]?, worker: ActionWorker, control: ControlServer?, bridge: MQTTBridge?, watcher: RunWatcher?, now: @escaping () -> Int64) {
        self.bindings = bindings
        self.worker = worker
        self.control = control
        self.bridge = bridge
        self.watcher = watcher
        self.now = now
    }

    package func emit(_ r: EventRecord) {
        count += 1
        if let c = control, c.streaming { c.stream("e \(r.bindingName) \(r.human)") }
        watcher?.event(r, now: now())
        bridge?.event(r)
        var actions: [Action] = [.stdout]
        if let m = bindings {
            actions = []
            for name in r.bindingNames {
                for a in m.first(where: { $0.event == name })?.actions ?? [] where !actions.contains(a) { actions.append(a) }
            }
        }
        worker.submit(.event(r, actions))
    }
}
