import JoltLinux
import CMosquitto

/// One session with a broker through libmosquitto, driven entirely by the thread that owns it:
/// `connect`, then `read`, `write` and `misc` when its socket is ready (libmosquitto's
/// "external loop"); callbacks run inside those calls, on that thread. Not thread-safe by design.
final class MQTTConnection {
    private let handle: OpaquePointer
    var onConnect: ((Int32) -> Void)?
    var onDisconnect: ((Int32) -> Void)?
    var onPublish: ((Int32) -> Void)?
    /// A message on a subscribed topic: its payload, or nil when it was larger than
    /// `maxPayload` (then nothing of it was copied).
    var onMessage: ((String, [UInt8]?) -> Void)?
    /// The largest payload taken, bytes.
    static let maxPayload = 1024

    private static let initialised: Bool = {
        mosquitto_lib_init()
        return true
    }()

    /// A new, unconnected session; nil when libmosquitto cannot make one (out of memory).
    init?(clientID: String) {
        _ = Self.initialised
        guard let h = mosquitto_new(clientID, true, nil) else { return nil }
        handle = h
        _ = mosquitto_int_option(h, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        mosquitto_user_data_set(h, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(h) { _, obj, rc in
            Unmanaged<MQTTConnection>.fromOpaque(obj!).takeUnretainedValue().onConnect?(rc)
        }
        mosquitto_disconnect_callback_set(h) { _, obj, rc in
            Unmanaged<MQTTConnection>.fromOpaque(obj!).takeUnretainedValue().onDisconnect?(rc)
        }
        mosquitto_publish_callback_set(h) { _, obj, mid in
            Unmanaged<MQTTConnection>.fromOpaque(obj!).takeUnretainedValue().onPublish?(mid)
        }
        mosquitto_message_callback_set(h) { _, obj, message in
            guard let message, let topic = message.pointee.topic else { return }
            let n = Int(message.pointee.payloadlen)
            let bytes: [UInt8]? = n > MQTTConnection.maxPayload ? nil : (n > 0 ? Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: n)) : [])
            Unmanaged<MQTTConnection>.fromOpaque(obj!).takeUnretainedValue().onMessage?(String(cString: topic), bytes)
        }
    }

    deinit { mosquitto_destroy(handle) }

    func credentials(username: String, password: String?) -> Int32 { mosquitto_username_pw_set(handle, username, password) }

    func will(topic: String, payload: String, retain: Bool) -> Int32 {
        let bytes = Array(payload.utf8)
        return mosquitto_will_set(handle, topic, Int32(bytes.count), bytes, 1, retain)
    }

    func tls(caFile: String) -> Int32 { mosquitto_tls_set(handle, caFile, nil, nil, nil, nil) }

    /// Opens the TCP (or TLS) connection and queues CONNECT; the answer comes through `onConnect`.
    func connect(host: String, port: Int, keepalive: Int) -> Int32 {
        mosquitto_connect(handle, host, Int32(port), Int32(keepalive))
    }

    var socket: Int32 { mosquitto_socket(handle) }
    var wantsWrite: Bool { mosquitto_want_write(handle) }

    func read() -> Int32 { mosquitto_loop_read(handle, 1) }
    func write() -> Int32 { mosquitto_loop_write(handle, 1) }
    func misc() -> Int32 { mosquitto_loop_misc(handle) }

    /// Queues a PUBLISH; returns the result and the message id (for `onPublish`).
    func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> (Int32, Int32) {
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes { b in
            mosquitto_publish(handle, &mid, topic, Int32(b.count), b.baseAddress, qos, retain)
        }
        return (rc, mid)
    }

    func subscribe(_ topic: String, qos: Int32) -> Int32 { mosquitto_subscribe(handle, nil, topic, qos) }

    func disconnect() { _ = mosquitto_disconnect(handle) }

    /// libmosquitto's words for a result code and for a refused connection.
    static func describe(_ rc: Int32) -> String {
        if rc == Int32(MOSQ_ERR_ERRNO.rawValue) { return Errno.current.description }
        return String(cString: mosquitto_strerror(rc))
    }
    /// libmosquitto's words for a CONNACK code, as a clause: "Connection Refused: not
    /// authorised." reads "not authorised" after "refused the connection: ".
    static func refusal(_ rc: Int32) -> String {
        var s = Substring(String(cString: mosquitto_connack_string(rc)))
        if s.hasPrefix("Connection Refused: ") { s = s.dropFirst("Connection Refused: ".count) }
        while s.last == "." { s = s.dropLast() }
        return String(s)
    }
}
