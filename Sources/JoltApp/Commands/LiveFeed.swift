#if canImport(Glibc)
import Glibc
#endif
import JoltChips
import JoltJSON
import JoltCore
import JoltLinux
import JoltActions
import JoltBoard
import JoltBuildInfo
import JoltConfig
import JoltControl
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

/// What `jolt watch` and `jolt record` look at: samples in the board's axes with the detectors'
/// levels, and events as they fire.
protocol LiveView: AnyObject {
    /// The chip is configured (or the running jolt answered): what it is.
    func started(_ info: LiveFeed.Info)
    func sample(_ s: Sample, _ levels: LiveLevels)
    /// An event, as a human line, and its binding name ("shake.began", "fault", "recovered"…).
    func event(_ human: String, kind: String)
    /// Called at least every `LiveFeed.wakeMicros`; true stops the feed.
    func wake(now: Int64) -> Bool
}

/// The samples of a board, from one of two places: the process that already runs it (a `jolt
/// run` holding the bus answers `stream` on its control socket: watching it never disturbs it),
/// or, when none answers, `jolt run`'s own loop started here with the board's outputs, alarm
/// and actions left out.
enum LiveFeed {
    struct Info {
        var identity = ""
        var address: UInt8 = 0
        var bus = ""
        var board = ""
        var rateMilliHz: Int32 = 100_000
        var rangeMilliG: Int32 = 4000
        var gyroRangeDps: Int32 = 500
        var hasGyro = true
        /// Attached to a running jolt (its version), or nil when reading the chip here.
        var attachedTo: String?
    }

    /// How a feed ended.
    enum End {
        /// The limit was reached, the view asked to stop, or a signal came.
        case stopped
        /// A simulated motion ran out.
        case motionEnded
        /// The running jolt went away.
        case serverGone
    }

    static let wakeMicros: Int64 = 125_000

    struct Options {
        var fast = false
        var trace: String?
        /// Stop after this much sample time, µs.
        var limitMicros: Int64?
        /// The control socket to attach to; nil: the board's, or the usual places.
        var socket: String?
        /// Loop a simulated motion.
        var loop = false
        /// Attach to a running jolt whatever its bus (`--socket`, or no board named and one answers).
        var attachFirst = false
        /// Reading the chip here for a board whose alarm watches for tamper: arm the tamper
        /// detector a second in (`RunWatcher.watchesTamper`), so that a lift shows as the alarm
        /// would judge it.
        var watchTamper = false
    }

    static func run(board: BoardProfile, options: Options, view: LiveView) throws(JoltError) -> End {
        // A real board is usually held by the service; a simulated one when it names a socket, or
        // when it has an alarm (whose run opens the usual socket) and that run plays this board.
        let simAlarm = board.isSimulated && board.alarm != nil
        if options.attachFirst || options.socket != nil || board.control.socket != nil || !board.isSimulated || simAlarm,
           let stream = try StreamClient.connect(socket: options.socket ?? board.control.socket, explicit: options.socket != nil) {
            let sameSim = board.isSimulated && (board.control.socket != nil || Self.sameFile(stream.info.board, board.file))
            if options.attachFirst || options.socket != nil || sameSim || (!board.isSimulated && stream.info.bus == board.bus) {
                Log.info("attached to the running jolt \(stream.info.attachedTo ?? "") on \(stream.info.bus) (read only)")
                return try attached(stream, options: options, view: view)
            }
            Log.info("the running jolt reads \(stream.info.bus)\(board.isSimulated ? " for \(stream.info.board)" : ""), not \(board.isSimulated ? board.file : board.bus): reading the chip here")
        }
        return try local(board: board, options: options, view: view)
    }

    /// Whether two paths name one file (as far as they resolve here).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        guard !a.isEmpty, !b.isEmpty else { return false }
        return a == b || (Files.realPath(a).map { $0 == Files.realPath(b) } ?? false)
    }

    static func local(board: BoardProfile, options: Options, view: LiveView) throws(JoltError) -> End {
        var b = board
        b.outputs = []
        b.inputs = []
        b.alarm = nil
        b.actions = []
        b.mqtt = nil
        // Wake at least eight times a second, whatever the FIFO's drain interval.
        b.fifoPollMillis = min(b.fifoPollMillis, Int32(wakeMicros / 1000))
        if options.loop && b.isSimulated { b.sim.loop = true }
        var o = RunCommand.Options(json: false, limitMicros: options.limitMicros)
        o.control = false
        let hardware = try Boards.open(b, trace: options.trace, fast: options.fast)
        let local = LocalFeed(view: view, board: b, name: board.file.isEmpty ? board.name : board.file, sensor: hardware.sensor, limitMicros: options.limitMicros)
        local.watchesTamper = options.watchTamper && board.alarm?.settings.triggers.contains(.tamper) == true
        local.alarmSettings = board.alarm?.settings
        let run = try RunCommand(board: b, hardware: hardware, options: o, out: TextOutput(fd: -1), watcher: local).run()
        if run.motionEnded, !local.stopped, !local.reachedLimit { return .motionEnded }
        return .stopped
    }

    static func attached(_ stream: StreamClient, options: Options, view: LiveView) throws(JoltError) -> End {
        SignalChannel.block([SIGINT, SIGTERM, SIGHUP])
        let signals: SignalChannel
        do { signals = try SignalChannel([SIGINT, SIGTERM, SIGHUP]) } catch {
            throw JoltError(.software, "cannot set up signal handling: \(error)")
        }
        view.started(stream.info)
        let period = Units.periodMicros(rateMilliHz: stream.info.rateMilliHz)
        var first: Int64?
        var lastWake: Int64 = 0
        while true {
            var fds = [pollfd(fd: stream.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)]
            _ = try? Sys.poll(&fds, timeoutMicros: wakeMicros)
            if fds[1].revents != 0, signals.next() != nil { return .stopped }
            if fds[0].revents != 0 {
                guard stream.read() else { return .serverGone }
                while let line = stream.nextLine() {
                    if let (s, levels) = LiveLevels.parse(line) {
                        if first == nil { first = s.t }
                        view.sample(s, levels)
                        if let limit = options.limitMicros, s.t - first! + period >= limit { return .stopped }
                    } else if line.hasPrefix("e ") {
                        let rest = line.dropFirst(2)
                        let kind = rest.prefix { $0 != " " }
                        view.event(String(rest.dropFirst(kind.count + 1)), kind: String(kind))
                    }
                }
            }
            let now = Sys.monotonicMicros()
            if now - lastWake >= wakeMicros {
                lastWake = now
                if view.wake(now: now) { return .stopped }
            }
        }
    }
}

/// A connection to a running jolt's live stream.
final class StreamClient {
    let fd: Int32
    let info: LiveFeed.Info
    private var buffer: [UInt8] = []
    private var start = 0

    private init(fd: Int32, info: LiveFeed.Info, rest: [UInt8]) {
        self.fd = fd
        self.info = info
        buffer = rest
    }

    deinit { UnixSocket.close(fd) }

    /// Connects and reads the stream's header; nil when no jolt runs there. `explicit`: the
    /// socket was named, so its absence is an error.
    static func connect(socket: String?, explicit: Bool) throws(JoltError) -> StreamClient? {
        let paths = socket.map { [$0] } ?? ControlServer.clientPaths()
        for path in paths {
            if let why = ControlServer.untrusted(path) { throw JoltError(.noPermission, why) }
            guard let fd = try? UnixSocket.connect(path: path) else { continue }
            UnixSocket.setReceiveTimeout(fd, micros: 5_000_000)
            UnixSocket.sendAll(fd, Array("stream\n".utf8))
            let got = UnixSocket.receiveLine(fd)
            guard let nl = got.firstIndex(of: 0x0A), let node = try? JSONParser.parse(Array(got[..<nl])), case .object(let o) = node.value else {
                UnixSocket.close(fd)
                continue
            }
            func field(_ k: String) -> JSON? { o.first { $0.key == k }?.value.value }
            guard case .bool(true)? = field("ok") else {
                UnixSocket.close(fd)
                if case .string(let e)? = field("error") { throw JoltError(.tempFailure, "the running jolt at \(path) will not stream: \(e)") }
                continue
            }
            func int(_ k: String) -> Int64 { if case .number(let n)? = field(k) { return Int64(n) ?? 0 }; return 0 }
            func str(_ k: String) -> String { if case .string(let s)? = field(k) { return s }; return "" }
            var info = LiveFeed.Info()
            info.identity = str("identity")
            info.address = UInt8(clamping: int("address"))
            info.bus = str("bus")
            info.board = str("board")
            info.rateMilliHz = Int32(clamping: int("rate_mhz"))
            info.rangeMilliG = Int32(clamping: int("range_mg"))
            info.gyroRangeDps = Int32(clamping: int("gyro_range_dps"))
            if case .bool(let g)? = field("has_gyro") { info.hasGyro = g }
            info.attachedTo = str("version")
            guard info.rateMilliHz > 0 else { UnixSocket.close(fd); continue }
            UnixSocket.setNonBlocking(fd)
            return StreamClient(fd: fd, info: info, rest: Array(got[(nl + 1)...]))
        }
        if explicit, let s = socket {
            throw JoltError(.unavailable, "no running jolt at \(s): start it (jolt run, or systemctl start jolt), or leave out --socket")
        }
        return nil
    }

    /// Reads what has arrived; false at the end of the stream.
    func read() -> Bool {
        while true {
            switch UnixSocket.receive(fd, max: 65_536) {
            case .data(let bytes): buffer += bytes
            case .nothing: return true
            case .closed: return false
            }
        }
    }

    /// The next complete line, without its newline.
    func nextLine() -> Substring? {
        guard let nl = buffer[start...].firstIndex(of: 0x0A) else {
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            return nil
        }
        let line = Substring(decoding: buffer[start..<nl], as: UTF8.self)
        start = nl + 1
        return line
    }
}

/// A live view fed by a `jolt run` in this process: the run's watcher.
final class LocalFeed: RunWatcher {
    let view: LiveView
    let board: BoardProfile
    let name: String
    let sensor: ChipSensor
    let limitMicros: Int64?
    var first: Int64?
    var stopped = false
    var reachedLimit = false
    var watchesTamper = false

    init(view: LiveView, board: BoardProfile, name: String, sensor: ChipSensor, limitMicros: Int64?) {
        self.view = view
        self.board = board
        self.name = name
        self.sensor = sensor
        self.limitMicros = limitMicros
    }

    func sample(_ s: Sample, _ levels: LiveLevels) {
        // The rest of the read that reached the limit (a FIFO drain is not cut at a rate's
        // multiple of the time asked) is past what was asked for.
        if reachedLimit { return }
        if first == nil {
            first = s.t
            view.started(LiveFeed.Info(identity: sensor.identity, address: sensor.address, bus: sensor.busName, board: name,
                                       rateMilliHz: sensor.rateMilliHz, rangeMilliG: sensor.rangeMilliG, gyroRangeDps: board.gyroRangeDps, hasGyro: sensor.hasGyro))
        }
        view.sample(s, levels)
        if let limit = limitMicros, s.t - first! + sensor.periodMicros >= limit { reachedLimit = true }
    }

    /// The board's alarm settings, where it has an alarm: a tamper shown here says its margin
    /// over the setting it passed, as the walk test would (the alarm itself is not run here).
    var alarmSettings: AlarmSettings?

    func event(_ r: EventRecord, now: Int64) {
        var r = r
        if case .tamper = r.kind, r.margin == nil, let reason = r.reason, let a = alarmSettings {
            r.margin = TriggerMargin(reason, detection: board.detection, alarm: a)
        }
        view.event(r.human, kind: r.bindingName)
    }

    func woke(now: Int64) -> Bool {
        if view.wake(now: now) { stopped = true }
        return stopped
    }
}
