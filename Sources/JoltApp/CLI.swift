import JoltCore

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

/// The `jolt` command line.
public enum JoltCLI {
    static let detectionOptions: [(String, String)] = [
        ("--config FILE", "read detection settings from a board profile (its \"detection\" section)"),
        ("--algorithm NAME", "shake algorithm: jolt (default), threshold, lowpass, planar, window"),
        ("--flip-algorithm NAME", "flip algorithm: jolt (default), phone, android"),
        ("--sensitivity LEVEL", "preset: low, medium (default), high"),
    ]

    static let commands: [CommandHelp] = [
        CommandHelp(
            name: "replay", summary: "run the detectors over recorded traces, as fast as they can be read",
            usage: "jolt replay FILE... [--json] [--config FILE] [--algorithm NAME] [--flip-algorithm NAME] [--sensitivity LEVEL] [--arm]",
            details: """
                Reads jolt-trace v1 files (the CSV that `jolt record` writes; - reads standard input) and
                prints the events the detectors raise, with the trace's own time. With --json, one JSON
                object per line and nothing else on standard output.
                """,
            options: [("--json", "JSON lines: {\"t\":12.34,\"event\":\"shake\",\"phase\":\"began\",...}")] + detectionOptions + [
                ("--arm", "arm the tamper detector at the first sample (it only fires when armed)"),
            ],
            examples: [
                "jolt replay ../shared/data/wrist-imu/s1_003_TRAP.csv",
                "jolt replay --json --algorithm threshold recording.csv",
                "jolt replay --config boards/pi-mpu6050.json --sensitivity high *.csv",
            ]),
    ]

    static var overview: String {
        var s = """
            jolt: accelerometer gestures and alarms for a Raspberry Pi (MPU6050, ADXL345)

            Usage: jolt COMMAND [OPTIONS]

            Commands:

            """
        for c in commands {
            s += "  " + c.name + String(repeating: " ", count: max(10 - c.name.count, 1)) + c.summary + "\n"
        }
        s += "\nRun 'jolt COMMAND --help' for a command's options and examples.\n"
        return s
    }

    /// Runs the command line `args` (without the program name) and returns the exit status.
    public static func main(_ args: [String]) -> Int32 {
        let out = OutputStream.standardOutput
        do {
            try dispatch(args, out: out)
            out.flush()
            return ExitCode.ok.rawValue
        } catch {
            out.flush()
            Log.error(error.message)
            return error.code.rawValue
        }
    }

    /// Runs a command line, writing to `out`; errors are thrown, not printed.
    public static func dispatch(_ args: [String], out: OutputStream) throws(JoltError) {
        guard let name = args.first else {
            out.write(overview)
            return
        }
        if name == "--help" || name == "-h" || name == "help" {
            if args.count > 1, let c = commands.first(where: { $0.name == args[1] }) {
                out.write(c.text)
            } else {
                out.write(overview)
            }
            return
        }
        guard let help = commands.first(where: { $0.name == name }) else {
            throw JoltError(.usage, "unknown command '\(name)' (commands: \(commands.map(\.name).joined(separator: ", ")); see jolt --help)")
        }
        let rest = Array(args.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            out.write(help.text)
            return
        }
        switch name {
        case "replay": try replay(rest, out: out)
        default: throw JoltError(.software, "command '\(name)' is listed but not wired")
        }
    }

    /// Applies --config, --algorithm, --flip-algorithm and --sensitivity.
    static func detectionBoard(_ a: Arguments) throws(JoltError) -> BoardProfile {
        var sensitivity: Sensitivity?
        if let s = a.value("--sensitivity") {
            guard let v = Sensitivity(name: s) else {
                throw JoltError(.usage, "jolt \(a.command): --sensitivity must be low, medium or high, found '\(s)'")
            }
            sensitivity = v
        }
        var board = BoardProfile()
        if let path = a.value("--config") {
            board = try BoardProfile.load(path: path, sensitivity: sensitivity)
        } else if let sensitivity {
            board.detection = DetectionSettings(sensitivity: sensitivity, rateMilliHz: board.rateMilliHz, gyro: true)
        }
        if let n = a.value("--algorithm") {
            guard let alg = ShakeAlgorithm.allCases.first(where: { "\($0.name)" == n }) else {
                throw JoltError(.usage, "jolt \(a.command): --algorithm must be one of \(ShakeAlgorithm.allCases.map { "\($0.name)" }.joined(separator: ", ")), found '\(n)'")
            }
            board.detection.shakeAlgorithm = alg
        }
        if let n = a.value("--flip-algorithm") {
            guard let alg = FlipAlgorithm.allCases.first(where: { "\($0.name)" == n }) else {
                throw JoltError(.usage, "jolt \(a.command): --flip-algorithm must be one of \(FlipAlgorithm.allCases.map { "\($0.name)" }.joined(separator: ", ")), found '\(n)'")
            }
            board.detection.flipAlgorithm = alg
        }
        return board
    }

    static let detectionValued: Set<String> = ["--config", "--algorithm", "--flip-algorithm", "--sensitivity"]

    static func replay(_ args: [String], out: OutputStream) throws(JoltError) {
        let a = try Arguments(command: "replay", args, valued: detectionValued, flags: ["--json", "--arm"])
        guard !a.positional.isEmpty else {
            throw JoltError(.usage, "jolt replay: give at least one trace file (see jolt replay --help)")
        }
        var r = ReplayCommand()
        r.files = a.positional
        r.json = a.flag("--json")
        r.arm = a.flag("--arm")
        r.board = try detectionBoard(a)
        try r.run(out: out)
    }
}
