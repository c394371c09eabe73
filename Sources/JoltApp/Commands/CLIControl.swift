import JoltControl
import JoltJSON
import JoltSupport

/// `jolt arm`, `disarm`, `status` and `reload`: one request over the running jolt's control
/// socket, and its answer as a person reads it (or, with `--json`, as it came).
extension JoltCLI {
    static func controlRequest(_ name: String, _ args: [String], out: TextOutput) throws(JoltError) {
        let a = try Arguments(command: name, args, valued: name == "arm" ? ["--socket", "--mode"] : ["--socket"], flags: ["--json"])
        guard a.positional.isEmpty else { throw JoltError(.usage, "jolt \(name): unexpected argument '\(a.positional[0])' (see jolt \(name) --help)") }
        var line = name
        if let m = a.value("--mode") {
            guard ["away", "home", "night"].contains(m) else { throw JoltError(.usage, "jolt arm: --mode must be away, home or night, found '\(m)'") }
            if m != "away" { line += " " + m }
        }
        let reply = try ControlClient.request(line, socket: a.value("--socket"))
        if a.flag("--json") {
            out.write(reply + "\n")
            // The reply as it came; a refusal (an arm the disk could not keep, say) still fails.
            guard ControlReply.isOK(reply) else { throw JoltError(.failure, "jolt \(name): refused (the reply says why)") }
            return
        }
        guard let node = try? JSONParser.parse(Array(reply.utf8)), case .object(let o) = node.value else {
            throw JoltError(.tempFailure, "jolt \(name): unexpected answer: \(reply.prefix(200))")
        }
        let field = { (k: String) in answerField(o, k) }
        guard field("ok") == "true" else {
            throw JoltError(.failure, "jolt \(name): \(field("error") ?? reply)")
        }
        if let done = field("reloaded") {
            out.write(done + "\n")
            return
        }
        show(status: o, out: out)
    }

    /// A scalar member of an answer as text.
    static func answerField(_ o: [(key: String, value: JSONNode)], _ k: String) -> String? {
        switch o.first(where: { $0.key == k })?.value.value {
        case .string(let s): return s
        case .number(let n): return n
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }

    /// The alarm's state (every answer to arm, disarm and status has it) and the run's figures
    /// (status's), as a person reads them.
    static func show(status o: [(key: String, value: JSONNode)], out: TextOutput) {
        let field = { (k: String) in answerField(o, k) }
        if field("alarm") == "false" {
            out.write("this board has no alarm\n")
        } else {
            out.write("alarm \(field("state") ?? "?")\(field("mode").map { " (\($0))" } ?? "") since \(field("since_utc") ?? "t=\(field("since") ?? "?") s")\n")
            if field("walk_test") == "true" {
                out.write("walk test: nothing sounds; \(counted(Int(field("walk_test_triggers") ?? "") ?? 0, "would-be trigger")) so far (alarm.mode \"test\" in the profile)\n")
            }
            if case .object(let last)? = o.first(where: { $0.key == "last_trigger" })?.value.value,
               case .string(let text)? = last.first(where: { $0.key == "text" })?.value.value {
                let at = last.first(where: { $0.key == "utc" }).flatMap { if case .string(let u) = $0.value.value { return " at " + u } else { return nil } }
                out.write("last trigger: \(text)\(at ?? "")\n")
            }
            if case .object(let check)? = o.first(where: { $0.key == "sensor_check" })?.value.value,
               case .string(let text)? = check.first(where: { $0.key == "text" })?.value.value {
                out.write("sensor check at arming: \(text)\n")
            }
            if case .array(let items)? = o.first(where: { $0.key == "trouble" })?.value.value {
                for i in items { if case .string(let t) = i.value { out.write("trouble: \(t)\n") } }
            }
        }
        if let v = field("version") {
            out.write("jolt \(v), sensor \(field("sensor") ?? "?"), \(field("samples") ?? "?") samples, \(field("events").map { $0 == "1" ? "1 event" : $0 + " events" } ?? "? events")\n")
        }
    }
}
