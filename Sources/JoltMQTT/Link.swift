#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import JoltLinux

/// A link to an MQTT broker on a thread of its own: events go through the on-disk outbox and are
/// published in order at QoS 1, a few in flight at a time; retained messages (state,
/// availability, discovery) are kept latest-first and published again on every connection;
/// messages on the subscribed topics come back through `onMessage`. The broker may be away for
/// as long as it likes: the link reconnects with a back-off of 1 s doubling to 30 s, and nothing
/// that calls it waits on the network or the disk.
public final class MQTTLink: @unchecked Sendable {
    public struct Settings: Sendable {
        public var host = "localhost"
        public var port = 1883
        public var clientID = "jolt"
        public var username: String?
        public var password: String?
        public var caFile: String?
        public var keepaliveSeconds = 30
        /// Published by the broker if the link dies (retained).
        public var willTopic: String?
        public var willPayload = "offline"
        /// Topics to subscribe to (QoS 1) on every connection.
        public var subscriptions: [String] = []
        /// PUBLISHes in flight at once.
        public var window = 16
        public init() {}
    }

    /// What happened to the link, for the log (called on the link's thread).
    public enum Note: Sendable {
        case connected(String)
        case refused(String)
        case unreachable(String)
        case lost(String)
        case dropped(Int)
        /// An event the library refuses to publish was moved aside (where, and why).
        case quarantined(String, String)
    }

    let settings: Settings
    let outbox: Outbox
    let lock = Lock()
    let wake: WakeChannel
    var thread: PThread?

    // Shared with callers, under `lock`.
    var incoming: [Outbox.Entry] = []
    var retained: [(topic: String, payload: [UInt8])] = []
    var dirty: Set<String> = []
    var oneShots: [(topic: String, payload: [UInt8], retain: Bool)] = []
    var stopping = false
    var lastSeq: UInt64 = 0
    var connectedNow = false
    var publishedCount = 0
    /// Whether the broker has accepted the connection.
    public var isConnected: Bool { lock.with { connectedNow } }
    /// Events the broker has acknowledged since the start.
    public var published: Int { lock.with { publishedCount } }

    // The link thread's own.
    var connection: MQTTConnection?
    var inflight: [Int32: UInt64] = [:]
    var nextAttempt: Int64 = 0
    var backoff: Int64 = 1_000_000
    var dropConnection = false
    var lastNote = ""

    /// Called on the link's thread for each message on a subscribed topic.
    /// A message on a subscribed topic; nil for one larger than `maxPayload` (not copied).
    public var onMessage: (@Sendable (String, [UInt8]?) -> Void)?
    /// The largest command payload taken, bytes.
    public static var maxPayload: Int { MQTTConnection.maxPayload }
    /// Called on the link's thread when something worth a log line happens.
    public var onNote: (@Sendable (Note) -> Void)?

    public init(settings: Settings, outbox: Outbox) throws(Errno) {
        self.settings = settings
        self.outbox = outbox
        wake = try WakeChannel()
        lastSeq = outbox.entries.last?.seq ?? 0
    }

    // MARK: the callers' side (any thread)

    /// Queues an event for publication; returns its sequence number (increasing, also across
    /// restarts: microseconds of wall-clock time, or one more than the last).
    @discardableResult
    public func publishEvent(topic: String, payload: (UInt64) -> [UInt8]) -> UInt64 {
        let now = UInt64(max(Sys.wallMicros(), 0))
        let seq = lock.with { () -> UInt64 in
            lastSeq = max(lastSeq + 1, now)
            incoming.append(Outbox.Entry(seq: lastSeq, topic: topic, payload: payload(lastSeq)))
            return lastSeq
        }
        wake.signal()
        return seq
    }

    /// Sets a retained message (the latest wins); published now if connected, and on every
    /// connection.
    public func setRetained(topic: String, payload: String) {
        lock.with {
            let bytes = Array(payload.utf8)
            if let i = retained.firstIndex(where: { $0.topic == topic }) { retained[i].payload = bytes } else { retained.append((topic, bytes)) }
            dirty.insert(topic)
        }
        wake.signal()
    }

    /// Sends a message once, if connected soon (answers to commands); not kept across outages.
    /// With `retain`, the broker keeps it for later subscribers (the last answer), yet every
    /// message is sent, unlike `setRetained`, which sends only the latest of a burst.
    public func send(topic: String, payload: String, retain: Bool = false) {
        lock.with {
            oneShots.append((topic, Array(payload.utf8), retain))
            if oneShots.count > 100 { oneShots.removeFirst() }
        }
        wake.signal()
    }

    /// Events not yet acknowledged by the broker (queued, on disk or in flight).
    public var pending: Int { lock.with { incoming.count + outbox.entries.count } }
    public var dropped: Int { lock.with { outbox.dropped } }

    public func start() {
        let t = PThread { [self] in run() }
        thread = t
    }

    /// Stops the link: says `offline` (retained) when connected, and disconnects. Events not yet
    /// acknowledged stay in the outbox for the next start.
    public func stop() {
        lock.with { stopping = true }
        wake.signal()
        thread?.join()
        thread = nil
    }

    // MARK: the link's thread

    func note(_ n: Note) {
        let key = "\(n)"
        if case .dropped = n {} else {
            guard key != lastNote else { return }   // once per distinct trouble, not once per try
            lastNote = key
        }
        onNote?(n)
    }

    /// On stop: how long to go on publishing what is pending before leaving it in the outbox.
    public var drainOnStopMicros: Int64 = 1_000_000

    func run() {
        var deadline: Int64?
        while true {
            if lock.with({ stopping }) {
                // Stopping: publish what is pending for a moment, then go.
                let now = Sys.monotonicMicros()
                if deadline == nil { deadline = now + drainOnStopMicros }
                if now >= deadline! || lock.with({ incoming.isEmpty && outbox.entries.isEmpty }) { break }
            }
            let now = Sys.monotonicMicros()
            if connection == nil && now >= nextAttempt { open() }
            takeIncoming()
            if lock.with({ connectedNow }) { pump() }
            var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
            if let c = connection, c.socket >= 0 {
                fds.append(pollfd(fd: c.socket, events: Int16(POLLIN) | (c.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            var timeout = connection == nil ? max(min(nextAttempt - Sys.monotonicMicros(), 1_000_000), 0) : 1_000_000
            if deadline != nil { timeout = min(timeout, 20_000) }
            _ = try? Sys.poll(&fds, timeoutMicros: timeout)
            if fds[0].revents != 0 { wake.drain() }
            if let c = connection {
                var rc = Int32(MOSQ_ERR_SUCCESS.rawValue)
                if fds.count > 1 && fds[1].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 { rc = c.read() }
                if rc == MOSQ_ERR_SUCCESS.rawValue && c.wantsWrite { rc = c.write() }
                if rc == MOSQ_ERR_SUCCESS.rawValue { rc = c.misc() }
                if rc != MOSQ_ERR_SUCCESS.rawValue && !dropConnection {
                    if lock.with({ connectedNow }) {
                        note(.lost(MQTTConnection.describe(rc)))
                    } else {
                        // It failed before the broker accepted it: the handshake, most likely TLS.
                        note(unreachable(rc))
                    }
                    dropConnection = true
                }
                if dropConnection { close() }
            }
        }
        takeIncoming()
        if let c = connection, lock.with({ connectedNow }) {
            // Say goodbye properly: offline (retained), then DISCONNECT, flushed for up to 0.5 s.
            if let w = settings.willTopic { _ = c.publish(topic: w, payload: Array(settings.willPayload.utf8), qos: 1, retain: true) }
            c.disconnect()
            let until = Sys.monotonicMicros() + 500_000
            while c.wantsWrite && Sys.monotonicMicros() < until {
                if c.write() != MOSQ_ERR_SUCCESS.rawValue { break }
            }
        }
        connection = nil
        lock.with { connectedNow = false }
    }

    func open() {
        guard let c = MQTTConnection(clientID: settings.clientID) else { return }
        if let u = settings.username { _ = c.credentials(username: u, password: settings.password) }
        if let w = settings.willTopic { _ = c.will(topic: w, payload: settings.willPayload, retain: true) }
        if let ca = settings.caFile {
            let rc = c.tls(caFile: ca)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                note(.refused("TLS with \(ca): \(MQTTConnection.describe(rc))"))
                scheduleRetry()
                return
            }
        }
        c.onConnect = { [unowned self] rc in connected(rc) }
        c.onDisconnect = { [unowned self] rc in
            if rc != 0 && !dropConnection { note(.lost("the broker closed the connection")) }
            dropConnection = true
        }
        c.onPublish = { [unowned self] mid in
            guard let seq = inflight.removeValue(forKey: mid) else { return }
            lock.with {
                outbox.remove(seq: seq)
                publishedCount += 1
            }
        }
        c.onMessage = { [unowned self] topic, payload in onMessage?(topic, payload) }
        let rc = c.connect(host: settings.host, port: settings.port, keepalive: settings.keepaliveSeconds)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            note(unreachable(rc))
            scheduleRetry()
            return
        }
        dropConnection = false
        connection = c
    }

    /// The broker could not be reached (or the TLS handshake failed): one wording for both places
    /// it is found, so that it is logged once.
    func unreachable(_ rc: Int32) -> Note {
        let hint = rc == MOSQ_ERR_TLS.rawValue ? settings.caFile.map { " (is the broker's certificate signed by the CA in \($0), for the host name \(settings.host)?)" } ?? "" : ""
        return .unreachable("\(settings.host):\(settings.port): \(MQTTConnection.describe(rc))\(hint)")
    }

    func connected(_ rc: Int32) {
        guard rc == 0 else {
            note(.refused(MQTTConnection.refusal(rc)))
            dropConnection = true
            return
        }
        lock.with {
            connectedNow = true
            dirty = Set(retained.map(\.topic))
        }
        backoff = 1_000_000
        inflight = [:]
        for t in settings.subscriptions { _ = connection?.subscribe(t, qos: 1) }
        note(.connected("\(settings.host):\(settings.port)"))
        lastNote = ""
    }

    func close() {
        connection = nil
        inflight = [:]
        lock.with { connectedNow = false }
        scheduleRetry()
    }

    func scheduleRetry() {
        nextAttempt = Sys.monotonicMicros() + backoff
        backoff = min(backoff * 2, 30_000_000)
    }

    /// New events onto the disk (here, not in the caller, so that no caller waits for a disk).
    func takeIncoming() {
        // Copied, not taken: until they are in the outbox they count as pending where they are.
        let batch = lock.with { incoming }
        guard !batch.isEmpty else { return }
        // The files first, outside the lock: publishEvent and setRetained never wait for a disk.
        for e in batch { _ = outbox.write(e) }
        var droppedNow = 0
        lock.with {
            incoming.removeFirst(batch.count)
            let before = outbox.dropped
            for e in batch { outbox.add(e) }
            droppedNow = outbox.dropped - before
        }
        if droppedNow > 0 { note(.dropped(droppedNow)) }
    }

    /// Publishes what is due: retained messages that changed, answers, then outbox events in
    /// order, at most `window` in flight.
    func pump() {
        guard let c = connection else { return }
        let (changed, shots) = lock.with { () -> ([(String, [UInt8])], [(topic: String, payload: [UInt8], retain: Bool)]) in
            let r = retained.filter { dirty.contains($0.topic) }.map { ($0.topic, $0.payload) }
            dirty.removeAll()
            defer { oneShots.removeAll() }
            return (r, oneShots)
        }
        for (t, p) in changed { _ = c.publish(topic: t, payload: p, qos: 1, retain: true) }
        for s in shots { _ = c.publish(topic: s.topic, payload: s.payload, qos: 1, retain: s.retain) }
        guard inflight.count < settings.window else { return }
        let flying = Set(inflight.values)
        let due = lock.with { outbox.entries.filter { !flying.contains($0.seq) }.prefix(settings.window - inflight.count) }
        for e in due {
            let (rc, mid) = c.publish(topic: e.topic, payload: e.payload, qos: 1, retain: false)
            // Refused for what it is, not for the connection: moved aside, the rest flows.
            if [MOSQ_ERR_INVAL, MOSQ_ERR_PAYLOAD_SIZE, MOSQ_ERR_MALFORMED_UTF8, MOSQ_ERR_OVERSIZE_PACKET].map(\.rawValue).contains(rc) {
                let place = lock.with { outbox.quarantine(seq: e.seq) }
                note(.quarantined(place ?? "(dropped)", MQTTConnection.describe(rc)))
                continue
            }
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                if !dropConnection { note(.lost(MQTTConnection.describe(rc))) }
                dropConnection = true
                return
            }
            inflight[mid] = e.seq
        }
    }
}
