#if canImport(Glibc)
import Glibc
#endif
import CGPIO
@testable import JoltApp
@testable import JoltSupport
@testable import JoltConfig
@testable import JoltActions
@testable import JoltControl
@testable import JoltBoard
@testable import JoltRun
@testable import JoltSimBoard
import JoltLinux
import JoltTestSupport
import Testing

@Suite("GPIO character device through the syscall layer")
struct GPIOTests {
    // <linux/gpio.h>, uAPI v2: GPIO_V2_LINE_FLAG_ACTIVE_LOW bit 1, INPUT bit 2, OUTPUT bit 3,
    // BIAS_PULL_UP bit 8.
    static let activeLow: UInt64 = 1 << 1, input: UInt64 = 1 << 2, output: UInt64 = 1 << 3, pullUp: UInt64 = 1 << 8

    @Test("find GPIO17 by name on whichever chip has it, request it as an output starting inactive, drive it, release it inactive")
    func outputByName() throws {
        let mock = SyscallMock(expect: [
            // gpiochip0: the Pi 5's RP1 is not first here; two lines, neither is GPIO17.
            (.open(path: "/dev/gpiochip0", flags: O_RDONLY), .ok(10)),
            (.gpioChipInfo(fd: 10), SyscallReply(value: 2, name: "gpiochip0", label: "rpi-firmware-gpio")),
            (.gpioLineInfo(fd: 10, offset: 0), SyscallReply(name: "BT_ON")),
            (.gpioLineInfo(fd: 10, offset: 1), SyscallReply(name: "WL_ON")),
            (.close(fd: 10), .ok()),
            (.open(path: "/dev/gpiochip4", flags: O_RDONLY), .ok(11)),
            (.gpioChipInfo(fd: 11), SyscallReply(value: 54, name: "gpiochip4", label: "pinctrl-rp1")),
        ] + (0..<17).map { i in (Syscall.gpioLineInfo(fd: 11, offset: UInt32(i)), SyscallReply(name: "GPIO\(i)")) } + [
            (.gpioLineInfo(fd: 11, offset: 17), SyscallReply(name: "GPIO17")),
            (.close(fd: 11), .ok()),
            (.open(path: "/dev/gpiochip4", flags: O_RDONLY), .ok(12)),
            (.gpioRequestLine(fd: 12, offset: 17, flags: Self.output | Self.activeLow, consumer: "jolt", initial: false), .ok(13)),
            (.close(fd: 12), .ok()),
            (.gpioSetValue(fd: 13, active: true), .ok()),
            (.gpioSetValue(fd: 13, active: false), .ok()),
            (.gpioSetValue(fd: 13, active: false), .ok()),   // release: inactive first
            (.close(fd: 13), .ok()),
        ])
        try SyscallMock.$current.withValue(mock) {
            let a = try GPIO.find(name: "GPIO17", chips: ["/dev/gpiochip0", "/dev/gpiochip4"])
            #expect(a == GPIOLineAddress(chip: "/dev/gpiochip4", offset: 17, name: "GPIO17"))
            let line = try GPIOLine(a, output: true, activeLow: true)
            try line.set(true)
            try line.set(false)
            line.release()
            line.release()   // twice is harmless
        }
        #expect(mock.failures == [])
        #expect(mock.remaining.isEmpty)
    }

    @Test("an input with a pull-up, read through GPIO_V2_LINE_GET_VALUES_IOCTL")
    func input() throws {
        let mock = SyscallMock(expect: [
            (.open(path: "/dev/gpiochip0", flags: O_RDONLY), .ok(3)),
            (.gpioRequestLine(fd: 3, offset: 27, flags: Self.input | Self.activeLow | Self.pullUp, consumer: "jolt", initial: nil), .ok(4)),
            (.close(fd: 3), .ok()),
            (.gpioGetValue(fd: 4), SyscallReply(value: 1)),
            (.close(fd: 4), .ok()),
        ])
        try SyscallMock.$current.withValue(mock) {
            let line = try GPIOLine(GPIOLineAddress(chip: "/dev/gpiochip0", offset: 27), output: false, activeLow: true, pullUp: true)
            #expect(try line.get())
            line.release()
        }
        #expect(mock.failures == [])
    }

    @Test("the INT pin's line: an input for rising edges, no bias; its edge events taken without blocking, the last one's time kept")
    func interruptLine() throws {
        // GPIO_V2_LINE_FLAG_EDGE_RISING is bit 4. A pipe stands for the line's descriptor, so that
        // poll (not mocked) sees it readable; the read itself is the mock's.
        var p: [Int32] = [0, 0]
        #expect(pipe(&p) == 0)
        defer { Glibc.close(p[1]) }
        _ = Glibc.write(p[1], "x", 1)
        // struct gpio_v2_line_event: timestamp_ns (u64) first, 48 bytes in all.
        func event(_ ns: UInt64) -> [UInt8] { withUnsafeBytes(of: ns.littleEndian) { Array($0) } + [UInt8](repeating: 0, count: 40) }
        let mock = SyscallMock(expect: [
            (.open(path: "/dev/gpiochip0", flags: O_RDONLY), .ok(3)),
            (.gpioRequestLine(fd: 3, offset: 4, flags: Self.input | (1 << 4), consumer: "jolt", initial: nil), .ok(p[0])),
            (.close(fd: 3), .ok()),
            (.read(fd: p[0], count: 48 * 16), SyscallReply(result: 96, bytes: event(1_000) + event(2_500))),
            (.close(fd: p[0]), .ok()),
        ])
        try SyscallMock.$current.withValue(mock) {
            let line = try GPIOLine(GPIOLineAddress(chip: "/dev/gpiochip0", offset: 4), output: false, activeLow: false, risingEdges: true)
            let edges = line.takeEdges()
            #expect(edges.count == 2 && edges.lastNanos == 2_500)
            line.release()
        }
        Glibc.close(p[0])
        #expect(mock.failures == [])
        #expect(mock.remaining.isEmpty)
    }

    @Test("errors: no such line, permission denied, line busy")
    func errors() {
        let none = SyscallMock(expect: [
            (.open(path: "/dev/gpiochip0", flags: O_RDONLY), .ok(3)),
            (.gpioChipInfo(fd: 3), SyscallReply(value: 1, name: "gpiochip0")),
            (.gpioLineInfo(fd: 3, offset: 0), SyscallReply(name: "GPIO0")),
            (.close(fd: 3), .ok()),
        ])
        SyscallMock.$current.withValue(none) {
            #expect(throws: GPIOError.notFound(name: "GPIO17", chips: ["/dev/gpiochip0"])) { try GPIO.find(name: "GPIO17", chips: ["/dev/gpiochip0"]) }
        }
        let e = ChardevOutput.error(.notFound(name: "GPIO17", chips: ["/dev/gpiochip0"]), what: "buzzer (GPIO17)")
        #expect(e.code == .unavailable && e.message.contains("no line named GPIO17"))
        let denied = SyscallMock(expect: [(.open(path: "/dev/gpiochip0", flags: O_RDONLY), .fail(.accessDenied))])
        SyscallMock.$current.withValue(denied) {
            do throws(GPIOError) {
                _ = try GPIO.find(name: "GPIO17", chips: ["/dev/gpiochip0"])
                Issue.record("should fail")
            } catch {
                let j = ChardevOutput.error(error, what: "buzzer")
                #expect(j.code == .noPermission && j.message.contains("gpio group"))
            }
        }
        let busy = SyscallMock(expect: [
            (.open(path: "/dev/gpiochip0", flags: O_RDONLY), .ok(3)),
            (.gpioRequestLine(fd: 3, offset: 17, flags: Self.output, consumer: "jolt", initial: false), .fail(.busy)),
            (.gpioLineInfo(fd: 3, offset: 17), SyscallReply(name: "GPIO17", label: "other-daemon")),
            (.close(fd: 3), .ok()),
        ])
        SyscallMock.$current.withValue(busy) {
            #expect(throws: GPIOError.busy(line: "GPIO17", consumer: "other-daemon")) {
                _ = try GPIOLine(GPIOLineAddress(chip: "/dev/gpiochip0", offset: 17, name: "GPIO17"), output: true, activeLow: false)
            }
        }
        #expect(ChardevOutput.error(.noChips, what: "buzzer").message.contains("no GPIO chip"))
    }
}
