#if canImport(Glibc)
import Glibc
#endif
import JoltJSON
import JoltLinux
import JoltActions
import JoltBuildInfo
import JoltConfig
import JoltCore
import JoltMQTT
import JoltSupport
import JoltTrace

/// The control socket of a running `jolt run`: `jolt arm`, `jolt disarm` and `jolt status`
/// connect, send one line, and read one JSON line back. Who may connect is decided by the
/// socket file's permissions (owner and group by default).
package final class ControlServer {
    package let path: String
    package let fd: Int32
    package var clients: [(fd: Int32, buffer: [UInt8], opened: Int64, uid: uid_t)] = []
    /// Clients of the live stream (`jolt watch` and `jolt record` attached): every sample and
    /// event, written without ever blocking; one that falls 256 KiB behind is dropped.
    package var subscribers: [(fd: Int32, pending: [UInt8])] = []
    /// Stream lines waiting for the next `flushStream`.
    package var streamBatch: [UInt8] = []
    package static let maxSubscribers = 4
    package static let maxClients = 16
    package static let maxPerPeer = 8
    /// Connections refused by their peer credentials.
    package var refusedPeers = 0
    /// Replies held until the alarm's state they report is on disk: the client, the reply, the
    /// number of the store's save (`AlarmStore.save`).
    package var held: [(fd: Int32, reply: String, save: UInt64)] = []
    /// Clients waiting for a reload (`jolt reload`) to be done.
    package var reloading: [Int32] = []
    package static let maxPending = 256 << 10

    /// An environment variable's first path ("a:b" → "a"), nil when unset or empty.
    package static func envPath(_ name: String) -> String? {
        guard let v = Environment.value(name), let first = v.split(separator: ":").first, !first.isEmpty else { return nil }
        return String(first)
    }

    /// The path a server uses when the board does not say: systemd's RuntimeDirectory, then
    /// $XDG_RUNTIME_DIR (a user's own, mode 0700), then /run/jolt when writable, then (under
    /// sudo, su or cron, where $XDG_RUNTIME_DIR is unset) the user's own folder
    /// (`privateDirectory`). Never a shared, guessable path that another user could bind first.
    package static func serverPath(_ c: ControlConfig) throws(JoltError) -> String {
        if let p = c.socket { return p }
        if let d = envPath("RUNTIME_DIRECTORY") { return d + "/jolt.sock" }
        if let x = envPath("XDG_RUNTIME_DIR") { return x + "/jolt.sock" }
        if Files.isWritable("/run/jolt") { return "/run/jolt/jolt.sock" }
        if let d = privateDirectory(create: true) { return d + "/jolt.sock" }
        throw JoltError(.cannotCreate, "no safe place for the control socket: /run/user/\(ThisProcess.effectiveUserID) is missing and /tmp/jolt-\(ThisProcess.effectiveUserID) is not a folder of yours with mode 0700 — remove it, or give control.socket in the board profile")
    }

    /// The paths a client tries, in order, when not told: where servers put it.
    package static func clientPaths() -> [String] {
        var p = ["/run/jolt/jolt.sock"]
        if let x = envPath("XDG_RUNTIME_DIR") { p.append(x + "/jolt.sock") }
        if let d = privateDirectory(create: false), !p.contains(d + "/jolt.sock") { p.append(d + "/jolt.sock") }
        return p
    }

    /// A folder only this user can enter, for a socket when $XDG_RUNTIME_DIR is unset: their
    /// /run/user/UID (what a login makes), else /tmp/jolt-UID, made with mode 0700 (`create`) and
    /// then checked as tmux checks its own: a real folder, not a link, owned by the user, closed to
    /// everyone else. Another user who made it first gets it refused, never trusted.
    package static func privateDirectory(create: Bool, runUser: String = "/run/user", tmp base: String = "/tmp") -> String? {
        let uid = ThisProcess.effectiveUserID
        func own(_ p: String) -> Bool {
            guard let st = Files.status(p, followingLinks: false) else { return false }
            return st.isDirectory && !st.isSymbolicLink && st.uid == uid && st.permissions & 0o077 == 0
        }
        let run = "\(runUser)/\(uid)"
        if own(run) { return run }
        let tmp = "\(base)/jolt-\(uid)"
        if create && !Files.exists(tmp) { try? Files.makeDirectory(tmp, mode: 0o700) }
        return own(tmp) ? tmp : nil
    }

    /// Why a client must not trust the socket at `path`, or nil: it must be a socket owned by
    /// root, by the client's own user, or by the service's user (`jolt`). Another local user
    /// could otherwise bind a socket where Jolt's is expected and answer "alarm armed".
    package static func untrusted(_ path: String) -> String? {
        guard let st = Files.status(path, followingLinks: false) else { return nil }   // connect reports what is missing
        guard st.isSocket else { return "\(path) is not a socket" }
        if st.uid == 0 || st.uid == ThisProcess.userID || st.uid == ThisProcess.effectiveUserID { return nil }
        if ThisProcess.userID(named: "jolt") == st.uid { return nil }
        let owner = Users.name(of: st.uid)
        return "\(path) belongs to \(owner), not root, you or the jolt service: refusing to trust what answers there"
    }

    /// Who may use the socket besides its mode: root, the user Jolt runs as, and members of the
    /// socket's group (the service's control group). Checked on each connection with the
    /// kernel's peer credentials, so a file mode loosened by mistake opens nothing.
    package func allowed(uid: uid_t, gid: gid_t) -> Bool {
        if uid == 0 || uid == ThisProcess.effectiveUserID || gid == group { return true }
        // The user database is asked once per user, not on every connection.
        if let known = memberOf[uid] { return known }
        let member = Users.isMember(uid: uid, of: group)
        if memberOf.count < 64 { memberOf[uid] = member }
        return member
    }
    package var memberOf: [uid_t: Bool] = [:]

    /// The group that may use the socket (the folder's or the process's).
    package let group: gid_t

    package init(config: ControlConfig) throws(JoltError) {
        path = try Self.serverPath(config)
        group = Users.effectiveGroupID
        do {
            fd = try UnixSocket.listen(path: path, mode: mode_t(config.mode))
        } catch {
            switch error.rawValue {
            case EADDRINUSE:
                throw JoltError(.tempFailure, "another jolt is already listening on \(path): stop it first (systemctl stop jolt), or give this board its own control.socket")
            case EEXIST:
                throw JoltError(.cannotCreate, "\(path) exists and is not a socket: refusing to replace it; give control.socket a path of its own")
            case EACCES, EPERM:
                throw JoltError(.noPermission, "permission denied creating the control socket \(path): choose a folder Jolt may write (control.socket in the board profile)")
            case ENOENT:
                throw JoltError(.cannotCreate, "cannot create the control socket \(path): its folder does not exist")
            default:
                throw JoltError(.cannotCreate, "cannot create the control socket \(path): \(error) (\(error.name))")
            }
        }
    }

    /// Descriptors to poll: the listening socket and each client.
    package var pollFDs: [Int32] { [fd] + clients.map(\.fd) }

    /// Accepts new connections, reads what clients sent, and answers each complete line with
    /// `handler`: at once, or (an arm, a disarm) held until `release` says its state is on disk.
    /// A client without a whole line after 1 s is dropped. Never blocks.
    ///
    /// A client's second is real time, on the monotonic clock, whatever clock the run follows:
    /// on simulated time (`--fast`) a second of the run passes in a few milliseconds, and a
    /// client that connected and had not yet sent its line would be dropped unanswered.
    package func service(handler: (String) -> ControlAnswer) {
        let now = Sys.monotonicMicros()
        while let c = UnixSocket.accept(fd) {
            guard let peer = UnixSocket.peer(c), allowed(uid: peer.uid, gid: peer.gid) else {
                let no = ControlReply.refusal("not allowed: only root, the service's user and its group may use this socket") + "\n"
                _ = UnixSocket.sendNow(c, Array(no.utf8))
                UnixSocket.close(c)
                refusedPeers += 1
                continue
            }
            // One peer holds at most `maxPerPeer` pending connections, and when the server is
            // full the one that has waited longest without a request makes room: idle or slow
            // connections never lock out status and disarm.
            let mine = clients.indices.filter { clients[$0].uid == peer.uid }
            let evict = mine.count >= Self.maxPerPeer ? mine : (clients.count >= Self.maxClients ? Array(clients.indices) : [])
            if let oldest = evict.min(by: { clients[$0].opened < clients[$1].opened }) {
                UnixSocket.close(clients[oldest].fd)
                clients.remove(at: oldest)
            }
            clients.append((c, [], now, peer.uid))
        }
        var i = 0
        while i < clients.count {
            let got = UnixSocket.receive(clients[i].fd, max: 256)
            if case .data(let bytes) = got { clients[i].buffer += bytes }
            let gone = got == .closed
            if let nl = clients[i].buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: clients[i].buffer[..<nl], as: UTF8.self).trimmingSpaces
                let answer = handler(line)
                if hold(answer, fd: clients[i].fd) {
                    clients.remove(at: i)
                    continue
                }
                var reply = answer.text + "\n"
                let streaming = line == "stream" && ControlReply.isOK(reply)
                if streaming && subscribers.count >= Self.maxSubscribers {
                    reply = ControlReply.refusal("\(Self.maxSubscribers) clients are watching already") + "\n"
                }
                if streaming && subscribers.count < Self.maxSubscribers {
                    subscribers.append((clients[i].fd, Array(reply.utf8)))
                    flush(subscriber: subscribers.count - 1)
                } else {
                    _ = UnixSocket.sendNow(clients[i].fd, Array(reply.utf8))
                    UnixSocket.close(clients[i].fd)
                }
                clients.remove(at: i)
                continue
            }
            if gone || now - clients[i].opened > 1_000_000 || clients[i].buffer.count > 1024 {
                UnixSocket.close(clients[i].fd)
                clients.remove(at: i)
                continue
            }
            i += 1
        }
    }

    /// Keeps a client whose answer comes later (its state on disk, a reload done); false for
    /// one answered now.
    private func hold(_ answer: ControlAnswer, fd: Int32) -> Bool {
        switch answer {
        case .whenSaved(let text, let n): held.append((fd, text, n))
        case .afterReload: reloading.append(fd)
        case .now: return false
        }
        return true
    }

    /// Whether anyone is watching the live stream.
    package var streaming: Bool { !subscribers.isEmpty }

    /// Queues one stream line ("s …" a sample, "e …" an event) for `flushStream`.
    package func stream(_ line: String) {
        guard !subscribers.isEmpty else { return }
        streamBatch.append(contentsOf: line.utf8)
        streamBatch.append(0x0A)
    }

    /// Sends what was queued to every subscriber, as much as each socket takes now.
    package func flushStream() {
        guard !subscribers.isEmpty else { return }
        if !streamBatch.isEmpty {
            for i in subscribers.indices { subscribers[i].pending += streamBatch }
            streamBatch.removeAll(keepingCapacity: true)
        }
        var i = subscribers.count - 1
        while i >= 0 {
            flush(subscriber: i)
            i -= 1
        }
    }

    private func flush(subscriber i: Int) {
        let fd = subscribers[i].fd
        var gone = false
        while !subscribers[i].pending.isEmpty {
            guard let n = UnixSocket.sendNow(fd, subscribers[i].pending) else {
                gone = true
                break
            }
            if n == 0 { break }
            subscribers[i].pending.removeFirst(n)
        }
        if subscribers[i].pending.count > Self.maxPending {
            Log.warning("a watching client fell behind by more than \(Self.maxPending >> 10) KiB: dropped it")
            gone = true
        }
        if gone {
            UnixSocket.close(fd)
            subscribers.remove(at: i)
        }
    }

    /// Answers those who asked for the reload that has just been done (or refused).
    package func answerReload(_ reply: String) {
        for fd in reloading {
            _ = UnixSocket.sendNow(fd, Array((reply + "\n").utf8))
            UnixSocket.close(fd)
        }
        reloading.removeAll()
    }

    /// Sends the held replies whose saves are settled: `reply` gives, for a save's number and the
    /// reply held for it, what to send now (that reply once the disk holds the state, a refusal
    /// that names the disk when it could not be saved), or nil while it is under way.
    package func release(_ reply: (_ save: UInt64, _ held: String) -> String?) {
        var i = 0
        while i < held.count {
            guard let text = reply(held[i].save, held[i].reply) else {
                i += 1
                continue
            }
            _ = UnixSocket.sendNow(held[i].fd, Array((text + "\n").utf8))
            UnixSocket.close(held[i].fd)
            held.remove(at: i)
        }
    }

    /// Closes every connection and removes the socket. The run has settled the alarm's last
    /// save and sent what it could by then: a reply still held is refused.
    package func close() {
        release { _, _ in ControlReply.refusal("jolt stopped before the alarm's state was on disk: ask again once it runs") }
        answerReload(ControlReply.refusal("jolt stopped before it reloaded"))
        for c in clients { UnixSocket.close(c.fd) }
        clients.removeAll()
        for s in subscribers { UnixSocket.close(s.fd) }
        subscribers.removeAll()
        UnixSocket.close(fd)
        Files.remove(path)
    }
}

extension String {
    package var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\r" || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\r" || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}

/// `jolt arm`, `jolt disarm`, `jolt status`: one request to a running `jolt run`.
package enum ControlClient {
    package static func request(_ command: String, socket explicit: String?) throws(JoltError) -> String {
        let paths = explicit.map { [$0] } ?? ControlServer.clientPaths()
        var lastError: Errno = .noEntry
        var tried: String = paths[0]
        for path in paths {
            tried = path
            if let why = ControlServer.untrusted(path) { throw JoltError(.noPermission, why) }
            let fd: Int32
            do { fd = try UnixSocket.connect(path: path) } catch {
                lastError = error
                if error == .accessDenied || error == .permitted { break }
                continue
            }
            defer { UnixSocket.close(fd) }
            let timeout: Int64 = 5_000_000
            UnixSocket.setReceiveTimeout(fd, micros: timeout)
            let asked = Sys.monotonicMicros()
            UnixSocket.sendAll(fd, Array((command + "\n").utf8))
            let reply = UnixSocket.receiveLine(fd)
            guard let nl = reply.firstIndex(of: 0x0A) else {
                // Well before the timeout: the server closed the connection; at it, it was silent.
                if Sys.monotonicMicros() - asked < timeout - 100_000 {
                    throw JoltError(.tempFailure, "jolt at \(path) closed the connection without answering (stopping, or too many clients): try again")
                }
                throw JoltError(.tempFailure, "jolt at \(path) did not answer within 5 s")
            }
            return String(decoding: reply[..<nl], as: UTF8.self)
        }
        switch lastError {
        case .accessDenied, .permitted:
            throw JoltError(.noPermission, "permission denied on \(tried): only the socket's owner and group may use it (add yourself to its group, e.g. sudo adduser $USER jolt)")
        default:
            let where_ = explicit ?? paths.joined(separator: " or ")
            if explicit == nil, let other = JoltProcess.all().first {
                throw JoltError(.unavailable, "a jolt runs (pid \(other.pid): \(other.command.prefix(240))) but has no control socket at \(where_): a simulated board opens one only with an alarm or control.socket in its profile; give it control.socket and --socket here, or see its log for why it has none")
            }
            throw JoltError(.unavailable, "no running jolt at \(where_) (\(lastError.name)): start it (jolt run, or systemctl start jolt), or give --socket")
        }
    }
}

/// What the run answers a control request: a reply now, or one held until the alarm's state it
/// reports is on disk (the number of the store's save), so that an acknowledged arm or disarm
/// survives a power cut.
package enum ControlAnswer {
    case now(String)
    case whenSaved(String, UInt64)
    /// Answered once the run has reloaded its profile (`answerReload`).
    case afterReload

    package var text: String {
        switch self {
        case .now(let t), .whenSaved(let t, _): return t
        case .afterReload: return ""
        }
    }
}

/// Control-socket replies: one JSON object per line.
package enum ControlReply {
    /// A refused request: `{"ok":false,"error":…}`.
    package static func refusal(_ message: String) -> String {
        let r: JSON = ["ok": false, "error": .string(message)]
        return r.text
    }

    /// Whether a reply says the request was done (every reply starts with its "ok" member).
    package static func isOK(_ reply: String) -> Bool { reply.hasPrefix(#"{"ok":true"#) }
}
