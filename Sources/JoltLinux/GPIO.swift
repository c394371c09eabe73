#if canImport(Glibc)
import Glibc
#endif
import CGPIO

/// Where a GPIO line is: which chip, which offset.
public struct GPIOLineAddress: Equatable, Sendable {
    /// The chip's device node, e.g. /dev/gpiochip0.
    public var chip: String
    /// The line's offset on that chip.
    public var offset: UInt32
    /// The line's name, when known.
    public var name: String

    public init(chip: String, offset: UInt32, name: String = "") {
        self.chip = chip
        self.offset = offset
        self.name = name
    }
}

/// Why a GPIO line could not be found or requested.
public enum GPIOError: Error, Equatable, Sendable {
    /// No /dev/gpiochip* at all.
    case noChips
    /// No chip has a line of that name.
    case notFound(name: String, chips: [String])
    /// A call failed: which, on what, with which errno.
    case failed(call: String, path: String, errno: Errno)
    /// The line is in use by another consumer.
    case busy(line: String, consumer: String)
}

/// GPIO lines through the Linux GPIO character device, uAPI v2 (`/dev/gpiochipN`), never sysfs.
/// Lines are found by the name the board gives them ("GPIO17"), on whichever chip has it, so the
/// same board profile works on a Pi 4 (gpiochip0) and a Pi 5 (gpiochip4, or gpiochip0 on newer
/// kernels).
public enum GPIO {
    /// The GPIO chips present, in order: /dev/gpiochip0, /dev/gpiochip1, …
    public static func chips(dev: String = "/dev") -> [String] {
        guard let dir = opendir(dev) else { return [] }
        defer { closedir(dir) }
        var found: [(Int, String)] = []
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { b in String(decoding: b.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("gpiochip"), let n = Int(name.dropFirst(8)) { found.append((n, dev + "/" + name)) }
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Finds the line called `name` on any of `chips` (GPIO_GET_CHIPINFO_IOCTL, then
    /// GPIO_V2_GET_LINEINFO_IOCTL for each line).
    public static func find(name: String, chips: [String]) throws(GPIOError) -> GPIOLineAddress {
        guard !chips.isEmpty else { throw .noChips }
        for chip in chips {
            let fd: Int32
            do { fd = try Sys.open(chip, O_RDONLY) } catch {
                if error == .accessDenied || error == .permitted { throw .failed(call: "open", path: chip, errno: error) }
                continue
            }
            defer { Sys.close(fd) }
            let info: GPIOChipInfo
            do { info = try Sys.gpioChipInfo(fd) } catch { continue }
            for offset in 0..<info.lines {
                guard let line = try? Sys.gpioLineInfo(fd, offset: offset) else { continue }
                if line.name == name { return GPIOLineAddress(chip: chip, offset: offset, name: name) }
            }
        }
        throw .notFound(name: name, chips: chips)
    }
}

/// One requested GPIO line: an output that Jolt drives, or an input it reads. Releasing it
/// (`release()`, or deinit) closes the line's descriptor, which hands it back to the kernel.
public final class GPIOLine {
    /// Where the line is.
    public let address: GPIOLineAddress
    let fd: Int32
    /// Whether it was requested as an output.
    public let isOutput: Bool
    var released = false
    /// Where `takeEdges` reads the kernel's events: sixteen at a time, allocated once, with the
    /// line (edge lines only), so that taking the edges allocates nothing.
    var edgeBuffer: [UInt8] = []
    var edgePoll: [pollfd] = []

    /// Requests the line. Outputs start inactive. `activeLow` makes the kernel invert the
    /// physical level (GPIO_V2_LINE_FLAG_ACTIVE_LOW), so "active" always means on. `pullUp` biases
    /// an input. `risingEdges`: an input whose changes to active the kernel queues as edge
    /// events, read from the line's descriptor (GPIO_V2_LINE_FLAG_EDGE_RISING).
    public init(_ address: GPIOLineAddress, output: Bool, activeLow: Bool, pullUp: Bool = false, risingEdges: Bool = false, consumer: String = "jolt") throws(GPIOError) {
        self.address = address
        isOutput = output
        let chipFD: Int32
        do { chipFD = try Sys.open(address.chip, O_RDONLY) } catch {
            throw .failed(call: "open", path: address.chip, errno: error)
        }
        defer { Sys.close(chipFD) }
        var flags = UInt64(output ? GPIO_V2_LINE_FLAG_OUTPUT.rawValue : GPIO_V2_LINE_FLAG_INPUT.rawValue)
        if activeLow { flags |= UInt64(GPIO_V2_LINE_FLAG_ACTIVE_LOW.rawValue) }
        if pullUp && !output { flags |= UInt64(GPIO_V2_LINE_FLAG_BIAS_PULL_UP.rawValue) }
        if risingEdges && !output { flags |= UInt64(GPIO_V2_LINE_FLAG_EDGE_RISING.rawValue) }
        do {
            fd = try Sys.gpioRequestLine(chipFD, offset: address.offset, flags: flags, consumer: consumer, initial: output ? false : nil)
        } catch {
            if error == .busy {
                let holder = (try? Sys.gpioLineInfo(chipFD, offset: address.offset))?.consumer ?? "another program"
                throw .busy(line: address.name.isEmpty ? "\(address.chip) line \(address.offset)" : address.name, consumer: holder)
            }
            throw .failed(call: "GPIO_V2_GET_LINE_IOCTL", path: address.chip, errno: error)
        }
        if risingEdges && !output {
            edgeBuffer = [UInt8](repeating: 0, count: MemoryLayout<gpio_v2_line_event>.stride * 16)
            edgePoll = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        }
    }

    deinit { release() }

    /// Drives the output: true = active.
    public func set(_ active: Bool) throws(Errno) {
        try Sys.gpioSetValue(fd, active: active)
    }

    /// Reads the line: true = active.
    public func get() throws(Errno) -> Bool {
        try Sys.gpioGetValue(fd)
    }

    /// The descriptor that is readable while edge events wait (a line requested with
    /// `risingEdges`).
    public var eventDescriptor: Int32 { fd }

    /// Takes the edge events waiting, without blocking: how many, and the kernel's time stamp of
    /// the last (CLOCK_MONOTONIC, ns; 0 when none).
    public func takeEdges() -> (count: Int, lastNanos: UInt64) {
        var count = 0, last: UInt64 = 0
        let size = MemoryLayout<gpio_v2_line_event>.stride
        guard !edgeBuffer.isEmpty else { return (0, 0) }
        while true {
            edgePoll[0].revents = 0
            guard (try? Sys.poll(&edgePoll, timeoutMicros: 0)) ?? 0 > 0, edgePoll[0].revents & Int16(POLLIN) != 0 else { break }
            let n = edgeBuffer.withUnsafeMutableBytes { b in (try? Sys.read(fd, into: b)) ?? 0 }
            guard n >= size else { break }
            for k in 0..<(n / size) {
                last = edgeBuffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: k * size, as: UInt64.self) }   // timestamp_ns comes first
                count += 1
            }
            if n < edgeBuffer.count { break }
        }
        return (count, last)
    }

    /// Sets an output inactive (best effort) and releases the line.
    public func release() {
        guard !released else { return }
        released = true
        if isOutput { try? Sys.gpioSetValue(fd, active: false) }
        Sys.close(fd)
    }
}
