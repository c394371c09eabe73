#if canImport(Glibc)
import Glibc
#endif
import CAllocCount
import JoltBaselines
import JoltCore
import JoltJSON
import JoltMotion
import JoltTrace

func selfDir() -> String {
    var buf = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buf, buf.count - 1)
    let path = n > 0 ? String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    return String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
}

/// Starts `argv` with standard output to `stdoutTo` and standard error into a pipe; the
/// child's pid and the pipe's reading end.
func start(_ argv: [String], stdoutTo: String = "/dev/null") -> (pid: pid_t, stderr: Int32)? {
    var fds: [Int32] = [0, 0]
    pipe(&fds)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, stdoutTo, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    var cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    var pid: pid_t = 0
    let r = posix_spawnp(&pid, argv[0], &actions, nil, &cargs, environ)
    close(fds[1])
    for p in cargs { free(p) }
    posix_spawn_file_actions_destroy(&actions)
    guard r == 0 else {
        close(fds[0])
        return nil
    }
    return (pid, fds[0])
}

/// Runs a program, waits, returns (exit status, wall ns, user+sys µs, its stderr).
func spawn(_ argv: [String], stdoutTo: String = "/dev/null") -> (status: Int32, wall: Int64, cpu: Int64, err: String) {
    let t0 = now()
    guard let (pid, errFD) = start(argv, stdoutTo: stdoutTo) else { return (-1, 0, 0, "cannot start \(argv[0])") }
    var err: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(errFD, &chunk, chunk.count)
        if n <= 0 { break }
        err += chunk[0..<n]
    }
    close(errFD)
    var st: Int32 = 0
    var ru = rusage()
    wait4(pid, &st, 0, &ru)
    let wall = now() - t0
    let cpu = (Int64(ru.ru_utime.tv_sec) + Int64(ru.ru_stime.tv_sec)) * 1_000_000 + Int64(ru.ru_utime.tv_usec) + Int64(ru.ru_stime.tv_usec)
    return ((st >> 8) & 0xFF, wall, cpu, String(decoding: err, as: UTF8.self))
}

func f(_ v: Double?, _ places: Int = 1) -> String {
    guard let v, v.isFinite else { return "—" }
    var p = 1.0
    for _ in 0..<places { p *= 10 }
    let r = (v * p).rounded() / p
    var s = "\(r)"
    if places == 0 { s = "\(Int(r))" }
    return s
}

func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
