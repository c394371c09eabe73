/// The help of the commands that talk to a running jolt over its control socket.
extension JoltCLI {
    static let controlCommands: [CommandHelp] = [
        CommandHelp(
            name: "arm", summary: "arm the theft alarm of a running jolt",
            usage: "jolt arm [--mode away|home|night] [--socket PATH] [--json]",
            details: """
                Asks the running 'jolt run' (over its control socket) to arm its alarm: after the grace
                period it watches, and a lift, a shake or a turn-over sounds the buzzer until disarmed.
                Only the socket's owner and group may do this.
                """,
            options: [("--mode MODE", "home or night: the triggers alarm.modes gives that mode (default away: alarm.triggers)"),
                      ("--socket PATH", "the control socket (default: /run/jolt/jolt.sock, then $XDG_RUNTIME_DIR/jolt.sock, then /run/user/UID or /tmp/jolt-UID)"), ("--json", "print the answer as JSON")],
            examples: ["jolt arm", "jolt arm --socket /run/jolt/jolt.sock"]),
        CommandHelp(
            name: "disarm", summary: "disarm the alarm of a running jolt (and silence it)",
            usage: "jolt disarm [--socket PATH] [--json]",
            details: "Asks the running 'jolt run' to disarm its alarm; a sounding buzzer stops at once.",
            options: [("--socket PATH", "the control socket"), ("--json", "print the answer as JSON")], examples: ["jolt disarm"]),
        CommandHelp(
            name: "status", summary: "show the alarm state of a running jolt",
            usage: "jolt status [--socket PATH] [--json]",
            details: "Prints the alarm's state (disarmed, arming, armed, triggered) and since when.",
            options: [("--socket PATH", "the control socket"), ("--json", "print the answer as JSON")], examples: ["jolt status", "jolt status --json"]),
        CommandHelp(
            name: "reload", summary: "make a running jolt read its board profile again",
            usage: "jolt reload [--socket PATH] [--json]",
            details: """
                Asks the running 'jolt run' to read its board profile again, as 'systemctl reload jolt'
                (SIGHUP) does, and prints what changed, or why the new profile was refused (the running
                one is then kept). Detection, actions and the alarm's settings apply at once and the
                alarm keeps its state; the hardware, the lines and MQTT need a restart.
                """,
            options: [("--socket PATH", "the control socket"), ("--json", "print the answer as JSON")], examples: ["jolt reload"])
    ]
}
