#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// A child process started with an argument vector (no shell), its output on a pipe.
public final class ChildProcess {
    /// The process id.
    public let pid: pid_t
    /// The read end of the pipe carrying the child's stdout and stderr (non-blocking).
    public let output: Int32
    /// What was run.
    public let argv: [String]
    var reaped = false
    /// The exit status once reaped: the code, or 128 + the signal.
    public private(set) var status: Int32?

    /// Starts `argv[0]` (looked up in PATH when it has no slash) with `argv` and `environment`
    /// ("KEY=value" entries). The corresponding call is `posix_spawnp`.
    public init(argv: [String], environment: [String]) throws(Errno) {
        guard let exe = argv.first else { throw Errno(EINVAL) }
        var fds: [Int32] = [-1, -1]
        if jolt_pipe2(&fds, O_CLOEXEC | O_NONBLOCK) < 0 { throw Errno.current }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        // Only those three: nothing else Jolt (or whatever hosts it) holds open reaches the child,
        // marked close-on-exec or not.
        jolt_spawn_closefrom(&actions, 3)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // The child gets default signal handling and no blocked signals, whatever Jolt blocks.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attr, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attr, 0)
        var cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cenv: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            for p in cargs { free(p) }
            for p in cenv { free(p) }
        }
        var pid: pid_t = 0
        let r = posix_spawnp(&pid, exe, &actions, &attr, &cargs, &cenv)
        Glibc.close(fds[1])
        if r != 0 {
            Glibc.close(fds[0])
            throw Errno(r)
        }
        self.pid = pid
        output = fds[0]
        self.argv = argv
    }

    deinit {
        Glibc.close(output)
        if !reaped { kill(-pid, SIGKILL); _ = reap(wait: true) }
    }

    /// Reads what the child wrote so far (non-blocking); nil at end of output.
    public func readOutput(into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, $0.count) }
            if n > 0 { buffer.append(contentsOf: chunk[0..<n]); continue }
            if n == 0 { return false }
            return errno == EAGAIN || errno == EINTR
        }
    }

    /// Collects the exit status if the child has ended (or waits for it); true once reaped.
    @discardableResult
    public func reap(wait: Bool = false) -> Bool {
        if reaped { return true }
        var st: Int32 = 0
        let r = waitpid(pid, &st, wait ? 0 : WNOHANG)
        guard r == pid else { return false }
        reaped = true
        // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (they are macros).
        let sig = st & 0x7F
        status = sig == 0 ? (st >> 8) & 0xFF : 128 + sig
        return true
    }

    /// Stops the child and its process group: SIGTERM, then SIGKILL.
    public func terminate(hard: Bool = false) {
        if !reaped { kill(-pid, hard ? SIGKILL : SIGTERM) }
    }
}

/// A wake-up channel between threads (`eventfd`): one side signals, the other polls the fd.
public final class WakeChannel: @unchecked Sendable {
    /// The descriptor to poll.
    public let fd: Int32

    public init() throws(Errno) {
        let fd = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        if fd < 0 { throw Errno.current }
        self.fd = fd
    }

    deinit { Glibc.close(fd) }

    /// Wakes the poller.
    public func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(fd, &one, 8)
    }

    /// Clears pending wake-ups.
    public func drain() {
        var v: UInt64 = 0
        _ = Glibc.read(fd, &v, 8)
    }
}

/// A thread running a closure (pthread).
public final class PThread: @unchecked Sendable {
    var handle = pthread_t()
    let body: @Sendable () -> Void

    /// Starts `body` on a new thread.
    public init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
        let box = Unmanaged.passRetained(self)
        pthread_create(&handle, nil, { arg in
            let t = Unmanaged<PThread>.fromOpaque(arg!).takeRetainedValue()
            t.body()
            return nil
        }, box.toOpaque())
    }

    /// Waits for the thread to finish.
    public func join() {
        pthread_join(handle, nil)
    }
}

/// A mutex (pthread) for state shared between the sampling thread and the action thread.
public final class Lock: @unchecked Sendable {
    var m = pthread_mutex_t()
    public init() { pthread_mutex_init(&m, nil) }
    deinit { pthread_mutex_destroy(&m) }
    /// Runs `body` holding the lock.
    public func with<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&m)
        defer { pthread_mutex_unlock(&m) }
        return try body()
    }
}
