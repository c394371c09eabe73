import JoltJSON
import JoltLinux
import JoltChips
import JoltCore
import JoltDrivers
import JoltSupport
import JoltTrace

/// The `mqtt` section of a board profile.
public struct MQTTConfig: Sendable, Equatable {
    public var host = "localhost"
    public var port = 1883
    /// The device's name in topics: `jolt/<device>/event`.
    public var device = "jolt"
    public var clientID: String?
    public var username: String?
    public var password: String?
    public var caFile: String?
    public var keepaliveSeconds = 30
    public var topicPrefix = "jolt"
    public var discovery = true
    public var discoveryPrefix = "homeassistant"
    public var outboxPath: String? = "/var/lib/jolt/outbox"
    public var outboxMaxEvents = 10_000
    /// A code commands must carry (`{"command": "disarm", "code": "1234"}`), when set.
    public var commandCode: String?
    /// Whether disarm is taken over MQTT: only with a code (the default when one is set).
    public var remoteDisarm = false
    /// Whether the alarm may be triggered by hand over MQTT (Home Assistant's panel: trigger).
    public var remoteTrigger = false
    /// Publish each alarm's evidence trace on `<prefix>/<device>/evidence`, at most this many
    /// KiB (trimmed around the trigger to fit); 0: not sent.
    public var evidenceMaxKiB = 0
    public init() {}
}

extension BoardProfile {
    /// `[A-Za-z0-9_-]+`: safe in a topic and in Home Assistant ids.
    package static func isTopicName(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 64 && s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }

    /// The machine's host name, made topic-safe (the default device name).
    package static func hostDevice() -> String {
        guard let raw = ThisProcess.hostName else { return "jolt" }
        let name = raw.map { isTopicName(String($0)) ? $0 : "-" }
        return name.isEmpty ? "jolt" : String(name.prefix(64))
    }

    package static func parseMQTT(_ r: ObjectReader) throws(JoltError) -> MQTTConfig {
        var m = MQTTConfig()
        guard let host = try r.string("host"), !host.isEmpty else {
            throw r.fail("host", r.node("host"), "give the broker's host name or address, like \"broker.local\"")
        }
        m.host = host
        if let p = try r.integer("port", 1...65_535) { m.port = Int(p) }
        m.device = hostDevice()
        if let d = try r.string("device") {
            guard isTopicName(d) else { throw r.fail("device", r.node("device"), "must be letters, digits, - and _ (it names topics), found \"\(d)\"") }
            m.device = d
        }
        if let c = try r.string("client_id") {
            guard !c.isEmpty && c.utf8.count <= 64 else { throw r.fail("client_id", r.node("client_id"), "must be 1 to 64 characters") }
            m.clientID = c
        }
        try parseCredentials(r, into: &m)
        if let k = try r.integer("keepalive_s", 5...3600, "s") { m.keepaliveSeconds = Int(k) }
        if let p = try r.string("topic_prefix") {
            guard isTopicName(p) else { throw r.fail("topic_prefix", r.node("topic_prefix"), "must be letters, digits, - and _, found \"\(p)\"") }
            m.topicPrefix = p
        }
        if let d = try r.bool("discovery") { m.discovery = d }
        if let p = try r.string("discovery_prefix") {
            guard isTopicName(p) else { throw r.fail("discovery_prefix", r.node("discovery_prefix"), "must be letters, digits, - and _, found \"\(p)\"") }
            m.discoveryPrefix = p
        }
        if let o = try r.object("outbox") {
            if let p = try o.string("path") {
                guard !p.isEmpty else { throw o.fail("path", o.node("path"), "must be a folder for the outbox, like \"/var/lib/jolt/outbox\"") }
                m.outboxPath = BoardProfile.resolve(p, against: r.file)
            }
            if let n = try o.integer("max_events", 1...1_000_000) { m.outboxMaxEvents = Int(n) }
            try o.finish()
        }
        if let c = try r.string("command_code") {
            guard !c.isEmpty else { throw r.fail("command_code", r.node("command_code"), "must not be empty (leave it out for no code)") }
            m.commandCode = c
        }
        m.remoteDisarm = m.commandCode != nil
        if let d = try r.bool("remote_disarm") {
            guard !d || m.commandCode != nil else {
                throw r.fail("remote_disarm", r.node("remote_disarm"), "needs mqtt.command_code: anyone who can publish to the broker could otherwise disarm the alarm")
            }
            m.remoteDisarm = d
        }
        if let t = try r.bool("remote_trigger") { m.remoteTrigger = t }
        if let k = try r.integer("evidence_max_kib", 0...4096, "KiB") { m.evidenceMaxKiB = Int(k) }
        try r.finish()
        return m
    }

        /// `username`, `password` or `password_file`, and `tls`.
    package static func parseCredentials(_ r: ObjectReader, into m: inout MQTTConfig) throws(JoltError) {
        m.username = try r.string("username")
        let password = try r.string("password")
        if let f = try r.string("password_file") {
            guard password == nil else { throw r.fail("password_file", r.node("password_file"), "give either \"password\" or \"password_file\", not both") }
            let path = BoardProfile.resolve(f, against: r.file)
            let bytes = try readFile(path, what: "MQTT password file", missingHint: "check mqtt.password_file", limit: 4096)
            var text = String(decoding: bytes, as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            m.password = text
        } else {
            m.password = password
        }
        if m.password != nil && m.username == nil { throw r.fail("username", nil, "missing: a password needs a username") }
        if let t = try r.object("tls") {
            guard let ca = try t.string("ca_file") else { throw t.fail("ca_file", nil, "missing: the CA certificate that signed the broker's (PEM)") }
            let path = BoardProfile.resolve(ca, against: r.file)
            guard Files.isReadable(path) else { throw t.fail("ca_file", t.node("ca_file"), "\(path): cannot read it") }
            m.caFile = path
            try t.finish()
            if !r.has("port") { m.port = 8883 }
        }
    }
}
