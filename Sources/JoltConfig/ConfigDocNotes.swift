/// docs/config.md's prose: what each section says before its keys, and the examples.
extension ConfigDoc {
    /// Prose that goes with a section, before its table.
    package static let sectionNotes: [String: String] = [
        "actions": """
            Events are \(EventKinds.bindingNames.map { "`\($0)`" }.joined(separator: ", ")) (`alarm.cleared`: the alarm stopped
            sounding, disarmed or watching again after `max_sound_ms`; `fault`: the chip stopped answering). Each maps to a
            list of actions, each one of:

            ```json
            {"stdout": true}
            {"output": "buzzer", "pulse_ms": 200}
            {"output": "lamp", "cadence": {"on_ms": 100, "off_ms": 900}}
            {"command": ["/usr/bin/logger", "-t", "jolt", "shaken"], "timeout_ms": 5000}
            ```

            A command runs without a shell; the event is in its environment as `JOLT_EVENT`
            (`shake.began`), its variant under its JSON key (`JOLT_PHASE=began`, `JOLT_STATE=face_down`,
            `JOLT_STATE=triggered`), a shake's `JOLT_PEAK_G` and `JOLT_JSON` (the `--json` line); the
            board as `JOLT_BOARD_NAME` (its `name`) and `JOLT_BOARD` (its file, so that a `jolt` the
            command runs uses the same board). Commands never hold up sampling.
            """,
        "sim": """
            The simulated board is what `jolt run` plays with no hardware: `boards/sim.json` plays the
            `demo`; `boards/kiosk-alarm.json` lifts a kiosk 12 s in. With `--fast` it runs on simulated
            time. `jolt calibrate` on a simulated board measures a kiosk at rest (`motion` other than
            `rest` moves it).
            """,
        "control": """
            `jolt arm`, `jolt disarm`, `jolt status` and `jolt output` talk to a running `jolt run` over a
            Unix socket. The service's is /run/jolt/jolt.sock (its RuntimeDirectory); elsewhere
            $XDG_RUNTIME_DIR/jolt.sock, and where that is unset (sudo, su, cron) /run/user/UID/jolt.sock
            or /tmp/jolt-UID/jolt.sock, in a folder only that user can enter. A real board always
            opens it; a simulated one only with an alarm or `control.socket`. Where no socket
            answers, the clients look for a running `jolt run` (as `pgrep` does) and say which one
            runs without a socket, or that nothing runs.
            """,
        "alarm": """
            States: `disarmed` → `arming` (the grace period) → `armed` → `triggered` (sounding) → `armed`
            again after `max_sound_ms`, or `disarmed` by `jolt disarm`. A board with an alarm needs an
            output to sound, or actions on `alarm.triggered`.
            """,
    ]

    package static let examples = """
        ## Examples

        A kiosk theft alarm with a buzzer on GPIO17 that also tells a broker:

        ```json
        {
          "name": "kiosk",
          "bus": "/dev/i2c-1",
          "chip": "mpu6050",
          "outputs": { "buzzer": { "line": "GPIO17" } },
          "alarm": { "armed_at_start": true, "arming_ms": 30000, "output": "buzzer" },
          "mqtt": { "host": "broker.local", "username": "kiosk-1", "password_file": "mqtt.pass",
                    "device": "kiosk-1", "command_code": "4711" }
        }
        ```

        A shake that pulses a buzzer and logs:

        ```json
        {
          "bus": "1",
          "outputs": { "buzzer": { "line": "GPIO17" } },
          "actions": {
            "shake.began": [ { "output": "buzzer", "pulse_ms": 150 }, { "stdout": true } ],
            "flip.face_down": [ { "command": ["/usr/bin/logger", "-t", "jolt", "face down"] } ]
          }
        }
        ```

        """
}
