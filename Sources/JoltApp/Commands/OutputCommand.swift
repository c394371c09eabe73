#if canImport(Glibc)
import Glibc
#endif
import JoltLinux
import JoltJSON
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltChips
import JoltConfig
import JoltControl
import JoltCore
import JoltCorpus
import JoltDrivers
import JoltEngine
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport
import JoltTrace


/// `jolt output NAME --on | --off | --pulse MS | --beep N`: drives a board output by its
/// profile name, to check a buzzer's wiring. Through the running `jolt run` when one answers on
/// the control socket (it holds the line), directly on the GPIO character device otherwise —
/// where `--on` holds the line until Ctrl-C, as `gpioset` does.
enum OutputCommand {
    /// Asks the running jolt to drive `name`; false when none answers (then the caller drives the
    /// line itself, or says there is no board). Its refusal (an unknown output) is an error.
    static func throughRunning(name: String, label: String?, request: OutputRequest, socket: String?, out: TextOutput) throws(JoltError) -> Bool {
        do throws(JoltError) {
            let reply = try ControlClient.request("output \(name) \(request.words)", socket: socket)
            guard let node = try? JSONParser.parse(Array(reply.utf8)), case .object(let o) = node.value else {
                throw JoltError(.tempFailure, "output: unexpected answer from the running jolt: \(reply.prefix(200))")
            }
            if case .bool(true)? = o.first(where: { $0.key == "ok" })?.value.value {
                out.write("\(name)\(label.map { " (\($0))" } ?? ""): \(request.pattern?.text ?? "off"), through the running jolt\n")
                return true
            }
            let message: String
            if case .string(let m)? = o.first(where: { $0.key == "error" })?.value.value { message = m } else { message = reply }
            throw JoltError(.failure, "output: the running jolt refused: \(message)")
        } catch {
            // No running jolt.
            guard error.code == .unavailable else { throw error }
            return false
        }
    }

    static func run(board: BoardProfile, name: String, request: OutputRequest, socket: String?, out: TextOutput) throws(JoltError) {
        guard let spec = board.outputs.first(where: { $0.name == name })?.line else {
            let have = board.outputs.map(\.name)
            throw JoltError(.usage, "output: \(board.file) has no output named \"\(name)\"\(JoltCLI.suggestion(name, among: have)) (outputs: \(have.isEmpty ? "none" : have.joined(separator: ", ")))")
        }
        // The running service first: it owns the line while it runs.
        if try throughRunning(name: name, label: spec.label, request: request, socket: socket ?? board.control.socket, out: out) { return }
        let line: OutputLine = board.isSimulated ? SimOutput(name: name, spec: spec) : try ChardevOutput(name: name, spec: spec)
        defer { line.release() }
        SignalChannel.block([SIGINT, SIGTERM, SIGHUP])
        let signals: SignalChannel
        do { signals = try SignalChannel([SIGINT, SIGTERM, SIGHUP]) } catch {
            throw JoltError(.software, "cannot set up signal handling: \(error)")
        }
        guard let pattern = request.pattern else {
            try line.set(false)
            out.write("\(line.label): inactive\n")
            return
        }
        let player = PatternPlayer(pattern: pattern, start: Sys.monotonicMicros())
        if pattern == .steady {
            out.write("\(line.label): active until Ctrl-C\n")
            out.flush()
        }
        // Each phase sleeps its length, or until a signal ends it early (the line then goes off).
        try player.play(set: { active throws(JoltError) in try line.set(active) }, wait: { micros in
            var p = [pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)]
            return !((try? Sys.poll(&p, timeoutMicros: micros)) ?? 0 > 0 && signals.next() != nil)
        })
        try line.set(false)
        out.write(pattern == .steady ? "\(line.label): inactive\n" : "\(line.label): \(pattern.text), done\n")
    }
}
