import JoltBuildInfo
import JoltChips
import JoltActions
import JoltBoard
import JoltConfig
import JoltControl
import JoltCore
import JoltCorpus
import JoltDrivers
import JoltEngine
import JoltJSON
import JoltLinux
import JoltMQTT
import JoltMotion
import JoltRun
import JoltSim
import JoltSimBoard
import JoltSupport
import JoltTrace

/// A command's help: the one text that `jolt COMMAND --help` prints and docs/cli.md is made of.
struct CommandHelp {
    let name: String
    let summary: String
    let usage: String
    let details: String
    let options: [(String, String)]
    let examples: [String]

    var text: String {
        var s = "jolt \(name): \(summary)\n\nUsage: \(usage)\n"
        if !details.isEmpty { s += "\n" + details + "\n" }
        if !options.isEmpty {
            s += "\nOptions:\n"
            let w = min(options.map(\.0.count).max() ?? 0, 28)
            for (o, d) in options {
                let pad = String(repeating: " ", count: max(w - o.count, 0) + 2)
                s += "  \(o)\(pad)\(d)\n"
            }
        }
        if !examples.isEmpty {
            s += "\nExamples:\n" + examples.map { "  " + $0 }.joined(separator: "\n") + "\n"
        }
        return s
    }
}

/// Every command's help text, and what is made of them: the overview (`jolt --help`),
/// docs/cli.md (`jolt help --markdown`) and the manual page (`jolt help --man`).
extension JoltCLI {
    static let commands: [CommandHelp] = [
        CommandHelp(
            name: "run", summary: "watch the chip and report shakes and flips as they happen",
            usage: "jolt run [--board FILE] [--json] [--fast] [--forever] [--seconds S] [--trace FILE] [--sensitivity LEVEL] [--state-dir DIR] [--quiet]",
            details: """
                Opens the board's bus, probes and configures the chip, and streams its samples through the
                detectors, printing each event as it happens (human lines on a terminal, JSON lines with
                --json or when standard output is not a terminal). Stops on Ctrl-C or SIGTERM.

                The board profile is --board FILE, else $JOLT_BOARD, else /etc/jolt/jolt.json (what the
                package installs); with none of them, a supported chip on /dev/i2c-1 if one answers,
                otherwise the simulated board (boards/sim.json), which plays a demo (rest, a shake, rest,
                a flip face down and back) in real time and exits when it ends. A log line says which.
                """,
            options: [
                ("--board FILE", "the board profile (default: $JOLT_BOARD, then /etc/jolt/jolt.json)"),
                ("--json", "JSON lines, as jolt replay --json prints them"),
                ("--fast", "simulated boards: run on simulated time, as fast as possible"),
                ("--forever", "simulated boards: loop the motion instead of exiting at its end"),
                ("--seconds S", "stop after S seconds of samples"),
                ("--trace FILE", "simulated boards: play this jolt-trace file instead of the demo"),
                ("--sensitivity LEVEL", "preset: low, medium, high (overrides the board's)"),
                ("--state-dir DIR", "keep the alarm's state here across restarts (default: alarm.state_dir, $STATE_DIRECTORY, /var/lib/jolt)"),
                ("--quiet", "no log lines on standard error, only events"),
            ],
            examples: [
                "jolt run",
                "jolt run --board boards/pi-mpu6050.json",
                "jolt run --board boards/sim.json --trace recording.csv --fast --json",
            ]),
        CommandHelp(
            name: "watch", summary: "see what the sensor sees, live: axes, orientation, detector levels, events",
            usage: "jolt watch [--board FILE] [--plain] [--seconds S] [--fast] [--trace FILE] [--sensitivity LEVEL] [--socket PATH]",
            details: """
                On a terminal, a screen redrawn eight times a second (80×24 is enough, over SSH too): each
                axis and the magnitude as bars with numbers, the rotation rate, the orientation (face up,
                face down, on a side), the shake detector's level against its threshold and strong level
                with its lobes so far, the flip level, the tamper detector's speed and tilt against
                move_mm_s and tilt_deg, and the last events as they fire. q or Ctrl-C quits and gives the
                terminal back as it was. Not on a terminal (or --plain): a line every half second, and events.
                When a 'jolt run' (the service) holds the board, watch attaches to it over its control
                socket and shows what it sees, read only. Otherwise the chip is read here exactly as
                'jolt run' reads it, with the same detectors, leaving outputs, alarm and actions alone; an
                alarm's tamper detector is armed a second in, so a lift shows as the alarm would judge it,
                and nothing sounds (a walk test). The simulated board loops its motion.
                """,
            options: [
                ("--board FILE", "the board profile (default: $JOLT_BOARD, /etc/jolt/jolt.json, as jolt run)"),
                ("--plain", "plain lines even on a terminal"),
                ("--seconds S", "stop after S seconds of samples"),
                ("--fast", "simulated boards: run on simulated time"),
                ("--trace FILE", "simulated boards: play this trace"),
                ("--sensitivity LEVEL", "preset: low, medium, high"),
                ("--socket PATH", "attach to the jolt running with this control socket"),
            ],
            examples: ["jolt watch --board /etc/jolt/jolt.json", "jolt watch", "jolt watch --board boards/sim.json --plain --seconds 20 | tee watch.log"]),
    ] + controlCommands + [
        CommandHelp(
            name: "safe", summary: "set every output of a board inactive (after a crash, or from systemd)",
            usage: "jolt safe [--board FILE]",
            details: """
                Requests each output line the board names, sets it inactive and releases it: the
                service's ExecStopPost, so that a buzzer is never left sounding by a process that died.
                """,
            options: [("--board FILE", "the board profile (default: $JOLT_BOARD, then /etc/jolt/jolt.json)")],
            examples: ["jolt safe --board /etc/jolt/kiosk.json"]),
        CommandHelp(
            name: "output", summary: "drive a board output by its name: check a buzzer's wiring before arming",
            usage: "jolt output NAME (--on | --off | --pulse MS | --beep N) [--board FILE] [--socket PATH]",
            details: """
                Drives the output the board profile names NAME ("buzzer"), as gpioset or gpiozero's
                Buzzer.beep() would: --on, --off, one pulse of MS milliseconds, or N short beeps
                (200 ms on, 200 ms off). When a 'jolt run' is running (it holds the line), the request
                goes through its control socket; a sounding alarm is never silenced this way (that is
                jolt disarm). Otherwise the line is driven here: --on holds it active until Ctrl-C,
                and the line is left inactive on every way out.
                """,
            options: [
                ("--on", "active (until --off, or Ctrl-C when driven here)"),
                ("--off", "inactive"),
                ("--pulse MS", "active for MS milliseconds (1-600000)"),
                ("--beep N", "N beeps of 200 ms (1-100)"),
                ("--board FILE", "the board profile (default: $JOLT_BOARD, then /etc/jolt/jolt.json)"),
                ("--socket PATH", "the running jolt's control socket (default: as jolt status)"),
            ],
            examples: ["jolt output buzzer --beep 3", "jolt output buzzer --pulse 500 --board boards/kiosk-alarm.json", "sudo -u jolt jolt output buzzer --off"]),
        CommandHelp(
            name: "eval", summary: "score every algorithm on the labelled corpus and the real recordings",
            usage: "jolt eval [CORPUS...] [--json] [--gate] [--rate HZ] [--seed N] [--gait-minutes M] [--noise MG] [--accel-only] [--config FILE] [--sensitivity LEVEL]\n       jolt eval --tamper [--rate HZ] [--shop-minutes M] [--seed N|A-B] [--gate]",
            details: """
                Runs Jolt's default detectors and the phone algorithms (threshold, lowpass, planar, window;
                the phone and Android flip rules) over every trace and prints one table: shake recall and
                latency, false shakes per hour on real recordings, on knocks and while walking or running
                (pocket, hand, bag), flip recall and latency, false flips on real recordings and near-flips.
                CORPUS is folders or files; by default Tests/Corpus/test and Tests/Data/wrist-imu.
                --rate generates the corpus in memory at that rate instead of reading its files.
                --gate exits 1 when the default misses a target.
                --tamper scores the tamper rules instead, on the kiosk corpus made in memory at 25, 50,
                100, 200, 400 and 800 Hz (or --rate), with and without a gyroscope: slides, straight lifts,
                lifts and carries, slow tilts and tip-overs, and M minutes (default 12) of shop life each
                (taps, leaning, door slams, the building's vibration, drifting offsets): Jolt's detector,
                the ADXL345's activity interrupt and a tilt-past-10° rule; then Jolt's theft by theft, and
                below 100 Hz traces another tool recorded (no oversampling, the low-pass off; not gated).
                --seed draws another corpus (2026 is the one the detector was tuned on; the gate judges
                a held-out one; A-B pools the draws A to B, for either table). With --tamper, --noise,
                --gait-minutes, --accel-only, --config, --sensitivity, --json and trace files do not
                apply and are refused. With --gate, exits 1 when Jolt's detector misses a tamper target.
                """,
            options: [
                ("--json", "the same figures as one JSON object"),
                ("--gate", "exit 1 if the default misses any target (CI)"),
                ("--rate HZ", "generate the corpus in memory at 12.5-1000 Hz (dividing 2000)"),
                ("--seed N", "the generator's seed with --rate (2026: the test split); A-B judges the draws A to B as one corpus"),
                ("--gait-minutes M", "with --rate: minutes of each walking and running trace (default 2)"),
                ("--noise MG", "with --rate: the accelerometer's noise, mg RMS per axis (default 4)"),
                ("--accel-only", "drop the gyroscope readings, as an ADXL345 board sees the world"),
                ("--config FILE", "detection settings from a board profile"),
                ("--sensitivity LEVEL", "preset: low, medium, high"),
                ("--tamper", "the tamper rules on the kiosk corpus, by theft and rate"),
                ("--shop-minutes M", "with --tamper: minutes of shop life per rate and chip (default 12)"),
            ],
            examples: ["jolt eval", "jolt eval --rate 400 Tests/Data/wrist-imu", "jolt eval --json --gate", "jolt eval --tamper --rate 100"]),
        CommandHelp(
            name: "soak", summary: "live a day (or a month) of a kiosk on the simulated board, faults and all, in minutes",
            usage: "jolt soak [--hours H] [--seed N] [--rate HZ] [--chip NAME] [--no-fifo] [--json] [--quiet]",
            details: """
                Plans H hours of motion from the seed: rests of 20-70 s with a shake or a flip between them,
                and in about a third of the rests a fault (the chip unplugged for seconds, or for minutes
                every few hours; bus errors; a brown-out reset; frozen data; a host stall that overflows the
                FIFO), plus a dozen 1-25 ms bus errors an hour anywhere. 'jolt run' plays it on simulated time
                and the soak checks what it reported: every gesture detected and nothing else, every fault
                reported once (within 1 s) and recovered once, short errors never reported, and the resident
                memory flat (at most 2 MiB more at the end than after the first hour). Exits 1 otherwise.
                """,
            options: [
                ("--hours H", "simulated hours (default 24)"),
                ("--seed N", "the plan's seed (default 1)"),
                ("--rate HZ", "the chip's rate (default 100)"),
                ("--chip NAME", "the simulated chip: " + ChipRegistry.names.joined(separator: ", ") + " (the first is the default)"),
                ("--no-fifo", "read each sample instead of draining the FIFO"),
                ("--json", "the figures as one JSON object"),
                ("--quiet", "no progress lines on standard error (one each simulated hour, or each tenth of a shorter run)"),
            ],
            examples: ["jolt soak", "jolt soak --hours 168 --seed 7", "jolt soak --chip adxl345 --no-fifo --hours 2"]),
        CommandHelp(
            name: "probe", summary: "find the supported chips on the I2C buses (like i2cdetect)",
            usage: "jolt probe [--bus N] [--board FILE] [--all]",
            details: """
                Asks each address where a supported chip can live for its identity register and says what
                answered: \(ChipRegistry.all.map { c in c.info.part + " at " + c.info.addresses.map { "0x" + hex($0) }.joined(separator: " and ") }.joined(separator: ", ")).
                With --bus sim, the simulated bus of --board or $JOLT_BOARD when it names a simulated board
                (else of the built-in demo). Without --bus, the bus of --board or $JOLT_BOARD, and with
                neither, every /dev/i2c-*. With --all, first a grid of every address from 0x03 to 0x77, as
                'i2cdetect -r' draws it (the address where something answers a one-byte read, -- where
                nothing does, UU where the bus is busy there). Exits 0 when a supported chip answered,
                69 when none did.
                """,
            options: [("--bus N", "the bus: 1, i2c-1, /dev/i2c-1, or sim for the simulated board"), ("--all", "first, every address as a grid, like i2cdetect"),
                      ("--board FILE", "the board whose bus to probe (default: $JOLT_BOARD); with --bus, only --bus sim and a simulated board")],
            examples: ["jolt probe", "jolt probe --bus 1 --all", "jolt probe --bus sim --board my-sim-board.json"]),
        CommandHelp(
            name: "record", summary: "capture a jolt-trace file from the chip",
            usage: "jolt record [--board FILE] --seconds S -o FILE.csv [--fast] [--trace FILE] [--motion NAME] [--socket PATH]",
            details: """
                Writes the chip's samples, in the board's axes (mount and offsets applied), to a
                jolt-trace v1 file that 'jolt replay' reads, starting at t = 0. When a 'jolt run' (the
                service) holds the board, record attaches to it and records what it sees; otherwise it
                reads the chip here as 'jolt run' does. Lost samples (a FIFO overflow, a fault) leave a
                gap in the times, as in 'jolt run', never a seam. A progress bar shows on a terminal.
                -o - writes to standard output.
                """,
            options: [
                ("--board FILE", "the board profile (default: $JOLT_BOARD, /etc/jolt/jolt.json, as jolt run)"),
                ("--seconds S", "how long to record (required)"),
                ("-o, --output FILE", "the trace to write (required; - for standard output)"),
                ("--fast", "simulated boards: record on simulated time"),
                ("--trace FILE", "simulated boards: play this trace"),
                ("--motion NAME", "simulated boards: play this built-in motion (demo, rest, lift, shake, flip, shop)"),
                ("--socket PATH", "attach to the jolt running with this control socket"),
            ],
            examples: ["jolt record --board boards/pi-mpu6050.json --seconds 30 -o shakes.csv", "jolt record --seconds 10 -o - | jolt replay -",
                       "jolt record --board boards/kiosk-alarm.json --motion shop --seconds 60 --fast -o site/counter.csv"]),
        CommandHelp(
            name: "calibrate", summary: "measure the chip's offsets at rest and write them into a board file",
            usage: "jolt calibrate [--board FILE] -o FILE [--seconds S] [--json] [--fast] [--trace FILE]",
            details: """
                Lay the device still, flat on a table (face up, or on a side), and run this: it reads the
                chip for a few seconds, checks the reading is about 1 g and which chip axis points up,
                measures each axis's offset and noise, and writes the board file named by -o (it may be
                the same file) with "offsets" set. A board with no "mount" also gets the mount that makes
                its z point up; otherwise the mount is only suggested. Refuses, and writes nothing, when
                the device moved or is tilted during the measurement (exit 75), or does not read 1 g.
                """,
            options: [
                ("--board FILE", "the board profile to calibrate (default: $JOLT_BOARD, then /etc/jolt/jolt.json)"),
                ("-o, --output FILE", "the board file to write (required; may be the same as --board)"),
                ("--seconds S", "how long to measure (default 3, 1-60)"),
                ("--json", "the measurement as one JSON object"),
                ("--fast", "simulated boards: measure on simulated time"),
                ("--trace FILE", "simulated boards: play this trace"),
            ],
            examples: ["jolt calibrate --board /etc/jolt/kiosk.json -o /etc/jolt/kiosk.json", "jolt calibrate --board boards/pi-adxl345.json -o my-board.json --seconds 10"]),
        tuneHelp,
        CommandHelp(
            name: "plot", summary: "draw a trace as an SVG picture, with the thresholds and the events",
            usage: "jolt plot TRACE -o FILE.svg [--board FILE | --config FILE] [--algorithm NAME] [--flip-algorithm NAME] [--sensitivity LEVEL] [--arm]",
            details: """
                Draws the trace in up to three panels (five with --arm) over time: the acceleration on each axis and its
                magnitude (with the gravity estimate's z and the face-down level); the dynamic acceleration
                |a - gravity| against the shake threshold, its hysteresis and the strong level; and the
                rotation rate; with --arm, the tamper detector's speed and tilt against move_mm_s and
                tilt_deg. The events 'jolt replay' finds are marked and labelled (a tamper with its
                reason), shakes shaded from began to ended: to see why a shake or a tamper fired, or not. Long traces are drawn as a min-max envelope per pixel, so the file stays small.
                Open the SVG in any web browser.
                """,
            options: [("-o, --output FILE", "the SVG to write (required)")] + detectionOptions + [
                ("--arm", "arm the tamper detector at the first sample"),
            ],
            examples: [
                "jolt plot shakes.csv -o shakes.svg",
                "jolt plot Tests/Data/wrist-imu/s1_003_TRAP.csv -o trap.svg --sensitivity high",
                "jolt plot kiosk.csv -o kiosk.svg --config /etc/jolt/kiosk.json --arm",
            ]),
        CommandHelp(
            name: "replay", summary: "run the detectors over recorded traces, as fast as they can be read",
            usage: "jolt replay FILE... [--json] [--board FILE | --config FILE] [--algorithm NAME] [--flip-algorithm NAME] [--sensitivity LEVEL] [--arm] [--samples]",
            details: """
                Reads jolt-trace v1 files (the CSV that `jolt record` writes; - reads standard input) and
                prints the events the detectors raise, with the trace's own time. With --json, one JSON
                object per line and nothing else on standard output. With --samples, the samples
                themselves as the detectors get them, in whole numbers (µs, mg, m°/s), for a replay of
                the core on another machine (scripts/arm-check).
                """,
            options: [("--json", "JSON lines: {\"t\":12.34,\"event\":\"shake\",\"phase\":\"began\",...}")] + detectionOptions + [
                ("--arm", "arm the tamper detector at the first sample (it only fires when armed)"),
                ("--samples", "print the samples instead: a '# jolt samples: rate_mhz=… gyro=… range_mg=…' line (' may_alias=1' at its end for a trace another tool recorded at 50 Hz or below), then 't ax ay az gx gy gz' per sample"),
            ],
            examples: [
                "jolt replay Tests/Data/wrist-imu/s1_003_TRAP.csv",
                "jolt replay --json --algorithm threshold recording.csv",
                "jolt replay --config boards/pi-mpu6050.json --sensitivity high *.csv",
            ]),
    ]

    static var overview: String {
        var s = """
            jolt: accelerometer gestures and alarms for a Raspberry Pi (\(ChipRegistry.all.map(\.info.part).joined(separator: ", ")))

            Usage: jolt COMMAND [OPTIONS]
                   jolt --version

            Commands:

            """
        for c in commands {
            s += "  " + c.name + String(repeating: " ", count: max(10 - c.name.count, 1)) + c.summary + "\n"
        }
        s += "\nRun 'jolt COMMAND --help' for a command's options and examples.\n"
        s += "\nReference:\n"
        s += "  jolt help --config     every board profile key, as Markdown (docs/config.md)\n"
        s += "  jolt help --markdown   this help for every command, as Markdown (docs/cli.md)\n"
        s += "  jolt help --man        the manual page, as roff (man jolt)\n"
        s += "\nEnvironment:\n"
        for (name, meaning) in environment { s += "  \(name)\n      \(meaning)\n" }
        s += "\nExit status:\n"
        for c in ExitCode.allCases { s += "  " + String(c.rawValue).padding(4) + c.meaning + "\n" }
        return s
    }

    /// What jolt reads from its environment, for `jolt --help` and the manual page.
    static let environment: [(String, String)] = [
        ("JOLT_BOARD", "the board profile when --board is not given (then /etc/jolt/jolt.json); action commands get it set to the running board's file"),
        ("XDG_RUNTIME_DIR", "where a jolt not run as the service puts its control socket, and where the clients look (then /run/user/UID, /tmp/jolt-UID)"),
        ("RUNTIME_DIRECTORY, STATE_DIRECTORY", "set by systemd for the service: the control socket's folder (/run/jolt) and the alarm state's (/var/lib/jolt)"),
        ("NOTIFY_SOCKET, WATCHDOG_USEC", "set by systemd: readiness, status and the watchdog's keep-alives"),
    ]

    /// jolt(1), the manual page the Debian package installs: the same help texts as roff.
    static var manPage: String {
        func roff(_ s: String) -> String {
            var out = ""
            for line in s.split(separator: "\n", omittingEmptySubsequences: false) {
                var l = ""
                for ch in line {
                    switch ch {
                    case "\\": l += "\\e"
                    case "-": l += "\\-"
                    default: l.append(ch)
                    }
                }
                if l.hasPrefix(".") || l.hasPrefix("'") { l = "\\&" + l }
                out += l + "\n"
            }
            return out
        }
        var s = ".\\\" -*- coding: UTF-8 -*-\n.\\\" Generated by `jolt help --man` from the help texts in Sources/JoltApp/Commands/CLIHelp.swift.\n"
        s += ".TH JOLT 1 \"\" \"jolt \(BuildInfo.version)\" \"User Commands\"\n"
        s += ".SH NAME\njolt \\- accelerometer gestures and theft alarm for a Raspberry Pi\n"
        s += ".SH SYNOPSIS\n.B jolt\n.I COMMAND\n[\\fIOPTIONS\\fR]\n.br\n.B jolt \\-\\-version\n"
        s += ".SH DESCRIPTION\nJolt turns an I2C accelerometer (\(ChipRegistry.all.map(\.info.part).joined(separator: ", "))) into dependable gestures and alarms: a shake, a face\\-down flip and back, and a theft alarm that sounds a buzzer when a kiosk is lifted, shaken or turned over, until disarmed. Every command finds its board profile as \\fB\\-\\-board\\fR \\fIFILE\\fR, else \\fB$JOLT_BOARD\\fR, else \\fI/etc/jolt/jolt.json\\fR.\n"
        s += ".SH COMMANDS\n"
        for c in commands {
            s += ".SS jolt \(c.name)\n\(roff(c.summary))"
            s += ".PP\n.nf\n\(roff(c.usage)).fi\n"
            if !c.details.isEmpty { s += ".PP\n\(roff(c.details))" }
            for (o, d) in c.options { s += ".TP\n.B \(roff(o))\(roff(d))" }
            if !c.examples.isEmpty { s += ".PP\nExamples:\n.nf\n" + c.examples.map { "  " + roff($0) }.joined() + ".fi\n" }
        }
        s += ".SH EXIT STATUS\n"
        for c in ExitCode.allCases { s += ".TP\n.B \(c.rawValue)\n\(roff(c.meaning))" }
        s += ".SH ENVIRONMENT\n"
        for (name, meaning) in environment { s += ".TP\n.B \(roff(name))\(roff(meaning))" }
        s += ".SH FILES\n.TP\n.I /etc/jolt/jolt.json\nThe board profile the service and every command read by default (docs: /usr/share/doc/jolt/config.md).\n.TP\n.I /usr/share/jolt/boards/\nExample board profiles.\n.TP\n.I /var/lib/jolt/alarm.json\nThe alarm's state, kept across restarts.\n.TP\n.I /run/jolt/jolt.sock\nThe running service's control socket.\n"
        s += ".SH SEE ALSO\n.BR systemctl (1),\n.BR journalctl (1),\n.BR i2cdetect (8).\nThe guide, the configuration reference and the security notes in /usr/share/doc/jolt.\n"
        return s
    }

    /// docs/cli.md: the overview, every command's help, and the exit statuses (`jolt help
    /// --markdown` prints it; a test checks the committed file is the same).
    static var markdown: String {
        var s = "# The jolt command\n\n<!-- Generated by `jolt help --markdown` from the help texts in Sources/JoltApp/Commands/CLIHelp.swift; a test checks it is current. -->\n\n"
        s += "Every command prints its help with `--help`. Errors are one line on standard error, naming the\nthing that is wrong and the fix; the exit status says which kind of failure it was.\n\n"
        s += "| command | what it does |\n|---|---|\n"
        for c in commands { s += "| [`jolt \(c.name)`](#jolt-\(c.name)) | \(c.summary) |\n" }
        for c in commands {
            s += "\n## jolt \(c.name)\n\n```\n\(c.text)```\n"
        }
        s += "\n## Exit status\n\n| status | meaning |\n|---|---|\n"
        for c in ExitCode.allCases { s += "| \(c.rawValue) | \(c.meaning) |\n" }
        return s
    }
}
