import JoltChips
import JoltDrivers
import JoltCore
import JoltTrace
import JoltJSON
import JoltLinux
import JoltSupport

/// docs/config.md, the reference for board profiles, written from the loader itself: the
/// sample profiles below are parsed with a `SchemaRecorder` listening, which gives every key the
/// loader reads and the type and range it accepted; the table here adds what each key means and
/// its default. `jolt help --config` prints it; a test checks that the committed file is current
/// and that every key the loader reads is described (and nothing else).
package enum ConfigDoc {
    /// One key: its meaning and its default ("" when it has none).
    package struct Key {
        package let path: String
        package let defaultValue: String
        package let meaning: String
    }

    /// Profiles that, between them, hold every key the loader knows (values valid on any machine);
    /// the first's `detection` section is `sampleDetection`.
    package static var samples: [String] {
        [rawSamples[0].replacing("DETECTION", with: sampleDetection)] + rawSamples.dropFirst()
    }

    /// The `detection` section with every key: each number at the medium preset's value.
    static var sampleDetection: String {
        let d = DetectionSettings(sensitivity: .medium, rateMilliHz: 100_000, gyro: true)
        func numbers(_ section: String) -> String {
            let keys = DetectionKeys.all.filter { $0.section == section }
            return keys.map { k in "\"\(k.name)\": " + k.text(d[keyPath: k.field]) }.joined(separator: ", ")
        }
        return #"{"sensitivity": "medium", "# + numbers("")
            + #", "shake": {"algorithm": "jolt", "# + numbers("shake")
            + #"}, "flip": {"algorithm": "jolt", "# + numbers("flip")
            + #"}, "tamper": {"# + numbers("tamper") + #", "motion_g": 0.12, "motion_ms": 300}}"#
    }

    static let rawSamples: [String] = [
        #"""
        {"name": "every key", "description": "d", "bus": "/dev/i2c-1", "chip": "auto", "address": "0x68",
         "rate_hz": 100, "accel_range_g": 4, "gyro_range_dps": 500, "fifo": true, "fifo_poll_ms": 200,
         "int": {"line": "GPIO4", "active": "high", "bias": "none", "motion_mg": 64},
         "mount": {"x": "+x", "y": "+y", "z": "+z"}, "offsets": {"accel_g": [0, 0, 0], "gyro_dps": [0, 0, 0]},
         "detection": DETECTION,
         "sim": {"chip": "mpu6050", "motion": "demo", "trace": "t.csv", "loop": false, "at_end": "exit",
           "accel_bias_g": [0, 0, 0], "gyro_bias_dps": [0, 0, 0], "self_test": "pass", "faults": [{"kind": "unplug", "at_s": 5, "for_s": 3}]},
         "outputs": {"NAME": {"line": "GPIO17", "active": "high"}},
         "inputs": {"NAME": {"chip": "/dev/gpiochip0", "offset": 27, "active": "low", "bias": "pull-up"}},
         "actions": {"shake.began": [{"stdout": true}, {"output": "NAME", "pulse_ms": 200},
             {"output": "NAME", "cadence": {"on_ms": 500, "off_ms": 500}},
             {"command": ["/usr/bin/logger", "shake"], "timeout_ms": 10000}]},
         "alarm": {"armed_at_start": true, "mode": "alarm", "chirp": false, "self_test": "refuse", "silent": false, "entry_ms": 0, "modes": {"home": ["tamper"], "night": ["tamper"]}, "arming_ms": 10000, "max_sound_ms": 300000, "sensor_lost_ms": 2000, "triggers": ["tamper"],
           "output": "NAME", "cadence": {"on_ms": 500, "off_ms": 500}, "key_switch": "NAME", "state_dir": "/var/lib/jolt"},
         "control": {"socket": "/run/jolt/jolt.sock", "mode": "0660"},
         "mqtt": {"host": "broker.local", "port": 1883, "device": "kiosk-1", "client_id": "c", "username": "u",
           "password": "p", "tls": {"ca_file": "/dev/null"}, "keepalive_s": 30, "topic_prefix": "jolt",
           "discovery": true, "discovery_prefix": "homeassistant",
           "outbox": {"path": "/var/lib/jolt/outbox", "max_events": 10000}, "command_code": "1234", "remote_disarm": true, "remote_trigger": true,
           "evidence_max_kib": 256}}
        """#,
        #"""
        {"alarm": {"output": "NAME", "pulse_ms": 100}, "outputs": {"NAME": {"chip": "/dev/gpiochip0", "offset": 17}},
         "inputs": {"NAME": {"line": "GPIO27"}}, "int": {"chip": "/dev/gpiochip0", "offset": 4},
         "mqtt": {"host": "h", "username": "u", "password_file": "/dev/null"}}
        """#,
    ]

    /// Medium's value, with low's and high's where they differ ("0.7 (low: 1, high: 0.5)").
    package static func preset(_ f: (DetectionSettings) -> String) -> String {
        let v = Sensitivity.allCases.map { f(DetectionSettings(sensitivity: $0, rateMilliHz: 100_000, gyro: true)) }
        return v[0] == v[1] && v[1] == v[2] ? v[1] : "\(v[1]) (low: \(v[0]), high: \(v[2]))"
    }

    package static func milli(_ v: Int32) -> String { ObjectReader.clean(TraceWriter.decimal(Int64(v), places: 3, trim: true)) }

    package static var keys: [Key] { boardKeys + detectionKeys + simulationKeys + lineKeys + alarmKeys + mqttKeys }


    /// A fact of every chip that has it, grouped: "2, 4, 8, 16 (MPU6050, ADXL345, LIS3DH, LSM6DSO)".
    package static func byChip(_ fact: KeyPath<ChipInfo, [Int32]>) -> String {
        var groups: [(values: [Int32], parts: [String])] = []
        for c in ChipRegistry.all where !c.info[keyPath: fact].isEmpty {
            let v = c.info[keyPath: fact]
            if let k = groups.firstIndex(where: { $0.values == v }) { groups[k].parts.append(c.info.part) } else { groups.append((v, [c.info.part])) }
        }
        return groups.map { g in g.values.map(String.init).joined(separator: ", ") + " (" + g.parts.joined(separator: ", ") + ")" }.joined(separator: "; ")
    }

    /// Each chip's motion threshold step, as its plug-in declares it: "MPU6050 2 mg; ADXL345 62.5 mg; …".
    package static var motionSteps: String {
        ChipRegistry.all.filter { !$0.info.motionStep.isEmpty }.map { "\($0.info.part) \($0.info.motionStep)" }.joined(separator: "; ")
    }

    package static var boardKeys: [Key] {
        let b = BoardProfile()
        return [
            Key(path: "name", defaultValue: "\"board\"", meaning: "A short name for logs."),
            Key(path: "description", defaultValue: "", meaning: "Free text: what this board is and how it is wired. Ignored by Jolt."),
            Key(path: "bus", defaultValue: "\"\(b.bus)\"", meaning: "The I2C bus: `\"1\"`, `\"i2c-1\"` or `\"/dev/i2c-1\"` (the Pi's header pins 3 and 5), or `\"sim\"` for the simulated bus."),
            Key(path: "chip", defaultValue: "detected", meaning: "The chip: " + ChipRegistry.names.map { "`\($0)`" }.joined(separator: ", ") + ", or `auto` to find any of them at its usual addresses."),
            Key(path: "address", defaultValue: "the chip's default", meaning: "The chip's 7-bit address, like `\"0x68\"`: " + ChipRegistry.all.map { c in "\(c.info.part) \(c.info.addresses.map { "0x" + hex($0) }.joined(separator: " or ")) (\(c.info.addressPin))" }.joined(separator: "; ") + "."),
            Key(path: "rate_hz", defaultValue: milli(b.rateMilliHz), meaning: "Output data rate, one the chip makes: " + ChipRegistry.all.map { "\($0.info.part) \($0.info.rates.text)" }.joined(separator: "; ") + ". A rate the chip lacks is refused. The detectors are tuned for the rate. Below 50 Hz, when the alarm watches for tamper, the chip is read at a power-of-two multiple of the rate, 100 Hz or more (25 Hz: four readings a sample), where it has that rate, and filtered down to the rate, so that a counter ringing near it is not folded into a slow push (docs/detection.md)."),
            Key(path: "accel_range_g", defaultValue: "\(b.accelRangeG)", meaning: "Accelerometer full scale, g: " + Self.byChip(\.accelRangesG) + ". A vigorous shake reaches 3–5 g."),
            Key(path: "gyro_range_dps", defaultValue: "\(b.gyroRangeDps)", meaning: "Gyroscope full scale, °/s, on a chip with a gyroscope: " + Self.byChip(\.gyroRangesDps) + "."),
            Key(path: "fifo", defaultValue: "\(b.fifo)", meaning: "Read through the chip's FIFO in batches (fewer wake-ups) rather than sample by sample."),
            Key(path: "fifo_poll_ms", defaultValue: "\(b.fifoPollMillis)", meaning: "How often the FIFO is drained (capped so that it never fills), when the chip is polled (no `int`)."),
            Key(path: "int", defaultValue: "none (polled)", meaning: "The GPIO line wired to the chip's INT pin: Jolt sleeps until the chip raises it (motion, the FIFO's watermark, or each reading without the FIFO) instead of draining on a timer. " + ChipRegistry.all.map { "\($0.info.part): " + ($0.info.interruptSetUp.isEmpty ? "not set up (refused)" : $0.info.interruptSetUp.names.joined(separator: ", ")) }.joined(separator: "; ") + ". Wiring and levels: docs/hardware.md."),
            Key(path: "int.line", defaultValue: "", meaning: "The line's name, like `\"GPIO4\"`; or `chip` and `offset`, as for outputs."),
            Key(path: "int.chip", defaultValue: "", meaning: "As for outputs."),
            Key(path: "int.offset", defaultValue: "", meaning: "As for outputs."),
            Key(path: "int.active", defaultValue: "\"high\"", meaning: "The level the chip raises it to: Jolt sets every chip up active high; `low` for an inverter between."),
            Key(path: "int.bias", defaultValue: "\"none\"", meaning: "`pull-up` for an open-drain stage between; the chips drive the pin push-pull."),
            Key(path: "int.motion_mg", defaultValue: "\(InterruptPlan.defaultMotionMilliG)", meaning: "Motion past this (the chip's high-passed or reference-relative acceleration, on any axis), mg, 32 to 2000, wakes Jolt at once; the chip rounds it to its step (" + motionSteps + ")."),
            Key(path: "mount", defaultValue: "`+x`, `+y`, `+z`", meaning: "How the chip sits in the enclosure: which chip axis, with its sign, is the board's x, y and z (z up when the board lies face up). `jolt calibrate` suggests it."),
            Key(path: "mount.x", defaultValue: "\"+x\"", meaning: "The chip axis that is the board's x: `\"+x\"`, `\"-y\"`, …"),
            Key(path: "mount.y", defaultValue: "\"+y\"", meaning: "The chip axis that is the board's y."),
            Key(path: "mount.z", defaultValue: "\"+z\"", meaning: "The chip axis that is the board's z. Each chip axis once; no mirror images."),
            Key(path: "offsets", defaultValue: "zero", meaning: "Calibration offsets, subtracted in the chip's axes; `jolt calibrate` writes them."),
            Key(path: "offsets.accel_g", defaultValue: "[0, 0, 0]", meaning: "Accelerometer offsets [x, y, z], g (each within ±2)."),
            Key(path: "offsets.gyro_dps", defaultValue: "[0, 0, 0]", meaning: "Gyroscope biases [x, y, z], °/s (each within ±100)."),
        ]
    }

    /// The section's objects and choices here; its numbers from `DetectionKeys`, each with the
    /// preset's default.
    package static var detectionKeys: [Key] {
        let numbers = DetectionKeys.all.map { k in Key(path: k.path, defaultValue: preset { k.text($0[keyPath: k.field]) }, meaning: k.meaning) }
        return numbers + [
            Key(path: "detection", defaultValue: "the medium preset", meaning: "How the detectors are tuned. Every number below has a default from the preset; a number given here overrides it."),
            Key(path: "detection.sensitivity", defaultValue: "\"medium\"", meaning: "The preset: `low` (fewer false alarms, firmer motion needed), `medium`, `high` (gentler motion, more false alarms). `--sensitivity` on the command line overrides it."),
            Key(path: "detection.shake", defaultValue: "", meaning: "Jolt's shake detector (alternating lobes of dynamic acceleration), and the phone algorithms kept for comparison."),
            Key(path: "detection.shake.algorithm", defaultValue: "\"jolt\"", meaning: "`jolt`, or a phone algorithm kept for comparison: `threshold` (per axis past 2.45 g), `lowpass`, `planar` (x-y magnitude), `window`. Only `jolt replay`, `plot` and `eval` run a phone algorithm; `jolt run`, `watch` and `record` refuse a profile that names one."),
            Key(path: "detection.flip", defaultValue: "", meaning: "Jolt's flip detector (turned over, then settled face down), and the phone rule."),
            Key(path: "detection.flip.algorithm", defaultValue: "\"jolt\"", meaning: "`jolt`, or (kept for comparison: replay, plot and eval only, as for the shake) `phone` (gravity z past 0.85 g plus rotation rate) or `android`."),
            Key(path: "detection.tamper", defaultValue: "", meaning: "The tamper detector of the theft alarm: moved or tilted from where it was armed. It only runs while the alarm is armed."),
            Key(path: "detection.tamper.motion_g", defaultValue: "", meaning: "No longer used: the motion meter it set is replaced by `move_mm_s` and `move_ms`. A profile that names it still loads, with a warning."),
            Key(path: "detection.tamper.motion_ms", defaultValue: "", meaning: "No longer used, as `motion_g`."),
        ]
    }

    package static var simulationKeys: [Key] {
        return [
            Key(path: "sim", defaultValue: "", meaning: "What the simulated board (`\"bus\": \"sim\"`) plays: a register-level chip on a simulated bus."),
            Key(path: "sim.chip", defaultValue: "\"mpu6050\"", meaning: "The simulated chip: " + ChipRegistry.names.map { "`\($0)`" }.joined(separator: ", ") + "."),
            Key(path: "sim.motion", defaultValue: "\"demo\"", meaning: "A built-in motion: `demo` (rest, a shake, rest, a flip face down and back), `rest` (lying still), `lift` (at rest, then lifted and carried: the alarm's test), `shake`, `flip`, `shop` (a minute of a counter's life, never stolen: taps on the screen, a lean, a slammed door, the building's hum; what `jolt tune` learns from)."),
            Key(path: "sim.trace", defaultValue: "", meaning: "A jolt-trace file to play instead of a motion (relative to the profile's folder). `--trace` overrides it."),
            Key(path: "sim.loop", defaultValue: "false", meaning: "Play the motion again and again."),
            Key(path: "sim.at_end", defaultValue: "\"exit\"", meaning: "At the end of the motion: `exit` (the run ends) or `rest` (lie still until stopped: a service)."),
            Key(path: "sim.accel_bias_g", defaultValue: "[0, 0, 0]", meaning: "The simulated chip's zero-g offset [x, y, z], g, chip axes (to try `jolt calibrate`)."),
            Key(path: "sim.gyro_bias_dps", defaultValue: "[0, 0, 0]", meaning: "The simulated chip's gyro bias [x, y, z], °/s."),
            Key(path: "sim.self_test", defaultValue: "\"pass\"", meaning: "`fail`: the simulated chip's sense element is damaged, and its self-test force moves it 5 % of a good part's: to see the alarm's check at arming (`alarm.self_test`) refuse it."),
            Key(path: "sim.faults", defaultValue: "[]", meaning: "Faults to inject, to watch Jolt ride them out: a list of `{\"kind\": …, \"at_s\": …, \"for_s\": …}`."),
            Key(path: "sim.faults[].kind", defaultValue: "", meaning: "`unplug` (no acknowledge), `io_error`, `timeout`, `frozen` (the same data over and over), `reset` (back to power-on values; no for_s), `stall` (the host stops reading: the FIFO overflows)."),
            Key(path: "sim.faults[].at_s", defaultValue: "", meaning: "When it starts, seconds from the start of the run."),
            Key(path: "sim.faults[].for_s", defaultValue: "", meaning: "How long it lasts."),
        ]
    }

    package static var lineKeys: [Key] {
        return [
            Key(path: "outputs", defaultValue: "none", meaning: "GPIO lines Jolt drives, by a name of your choice (`\"buzzer\"`); actions and the alarm refer to them. Found on the GPIO character device (`/dev/gpiochip*`)."),
            Key(path: "outputs.NAME", defaultValue: "", meaning: "One output: `line`, or `chip` and `offset`; and `active`."),
            Key(path: "outputs.NAME.line", defaultValue: "", meaning: "The line's name, as the Pi's device tree names it: `\"GPIO17\"` (header pin 11). Found on whichever chip has it."),
            Key(path: "outputs.NAME.chip", defaultValue: "", meaning: "Or a chip, `\"/dev/gpiochip0\"`, with `offset`."),
            Key(path: "outputs.NAME.offset", defaultValue: "", meaning: "The line's offset on `chip`."),
            Key(path: "outputs.NAME.active", defaultValue: "\"high\"", meaning: "`high` or `low`: the level that sounds the buzzer (lights the lamp)."),
            Key(path: "inputs", defaultValue: "none", meaning: "GPIO lines Jolt reads, by name: a key switch for the alarm."),
            Key(path: "inputs.NAME", defaultValue: "", meaning: "One input: `line`, or `chip` and `offset`; `active` and `bias`."),
            Key(path: "inputs.NAME.line", defaultValue: "", meaning: "As for outputs."),
            Key(path: "inputs.NAME.chip", defaultValue: "", meaning: "As for outputs."),
            Key(path: "inputs.NAME.offset", defaultValue: "", meaning: "As for outputs."),
            Key(path: "inputs.NAME.active", defaultValue: "\"high\"", meaning: "The level that means on."),
            Key(path: "inputs.NAME.bias", defaultValue: "\"none\"", meaning: "`pull-up` for a switch to ground, or `none`."),
            Key(path: "actions", defaultValue: "every event on stdout", meaning: "What each event does: a list of actions per event (see below). With no `actions`, every event is printed."),
            Key(path: "actions.EVENT", defaultValue: "", meaning: "An event name (above) and its list of actions, run in order."),
            Key(path: "actions.EVENT[].\(Action.Kind.stdout.rawValue)", defaultValue: "", meaning: Action.Kind.stdout.meaning),
            Key(path: "actions.EVENT[].\(Action.Kind.output.rawValue)", defaultValue: "", meaning: Action.Kind.output.meaning),
            Key(path: "actions.EVENT[].pulse_ms", defaultValue: "", meaning: "Active for this long, then inactive."),
            Key(path: "actions.EVENT[].cadence", defaultValue: "", meaning: "Active `on_ms`, inactive `off_ms`, repeating until the next pattern on that output."),
            Key(path: "actions.EVENT[].cadence.on_ms", defaultValue: "500", meaning: "Active time of each period."),
            Key(path: "actions.EVENT[].cadence.off_ms", defaultValue: "500", meaning: "Inactive time of each period."),
            Key(path: "actions.EVENT[].\(Action.Kind.command.rawValue)", defaultValue: "", meaning: Action.Kind.command.meaning),
            Key(path: "actions.EVENT[].timeout_ms", defaultValue: "10000", meaning: "A command still running after this is stopped."),
        ]
    }

    package static var alarmKeys: [Key] {
        let a = AlarmSettings(), c = ControlConfig()
        let triggerList = EventKinds.triggers.map { "`\($0.name)`" }.joined(separator: ", ")
        return [
            Key(path: "alarm", defaultValue: "no alarm", meaning: "The theft alarm: armed, it sounds when the board is moved (docs/alarm.md)."),
            Key(path: "alarm.armed_at_start", defaultValue: "false", meaning: "Arm when Jolt starts (after `arming_ms`); otherwise `jolt arm`, MQTT or the key switch arms it."),
            Key(path: "alarm.mode", defaultValue: "\"alarm\"", meaning: "`\"test\"`: a walk test. Armed as ever, but what would trigger it is announced instead, as a `walk_test` event with its reason and its margin over the setting it passed (and a chirp on `output`); nothing sounds. `jolt status` and Home Assistant say so. Back to `\"alarm\"` and reload when done (docs/alarm.md)."),
            Key(path: "alarm.silent", defaultValue: "false", meaning: "`true`: an alarm that only reports (its events, MQTT, Home Assistant) and sounds nothing. Without it, an alarm with no `output` and no output or command bound to `alarm.triggered` is refused at load (exit 78): it would trigger and tell nobody in the shop."),
            Key(path: "alarm.self_test", defaultValue: "\"refuse\"", meaning: "The chip's check when the alarm is armed: its WHO_AM_I, its built-in self-test against the datasheet's limits, and its noise at rest (about half a second, while the grace period starts). `refuse`: a chip that fails is not armed, and `jolt arm` says why; `warn`: it arms, with a warning; `off`: no check. Armed at start (`armed_at_start`, or a saved state), a failure is warned of and it arms all the same (fail-secure). `jolt status` and Home Assistant show the last check."),
            Key(path: "alarm.entry_ms", defaultValue: "0", meaning: "The entry delay: tripped, the alarm is `pending` this long (its output chirps four times a second) before it sounds, so that the owner can disarm it first. A lost sensor and the panel's trigger sound at once. 0: it sounds at once."),
            Key(path: "alarm.modes", defaultValue: "", meaning: "Arming modes besides away (`triggers`): `{\"home\": [\"tamper\"], \"night\": [\"tamper\"]}`, each the triggers it watches armed that way (`jolt arm --mode home`, Home Assistant's *Arm home* and *Arm night*). A mode not listed is not offered."),
            Key(path: "alarm.modes.home", defaultValue: "", meaning: "The triggers armed home: a list of \(triggerList)."),
            Key(path: "alarm.modes.night", defaultValue: "", meaning: "The triggers armed night: a list of \(triggerList)."),
            Key(path: "alarm.chirp", defaultValue: "false", meaning: "Chirps on `output`: a short one each second of the grace period (the exit delay), one when it starts watching, two when disarmed."),
            Key(path: "alarm.arming_ms", defaultValue: "\(a.armingMillis)", meaning: "The grace period between arming and watching: time to step away."),
            Key(path: "alarm.max_sound_ms", defaultValue: "\(a.maxSoundMillis)", meaning: "A triggered alarm stops sounding after this (0: until disarmed), then watches again."),
            Key(path: "alarm.sensor_lost_ms", defaultValue: "\(a.sensorLostMillis)", meaning: "Armed, a sensor that sends nothing for this long triggers it with reason `sensor` (a cut cable, a chip pulled off or frozen); 0: a lost sensor is only a `fault`. It triggers once per loss: after `max_sound_ms` it stays quiet until the sensor is back."),
            Key(path: "alarm.triggers", defaultValue: "[\(EventKinds.triggerNames(a.triggers).map { "\"\($0)\"" }.joined(separator: ", "))]", meaning: "What triggers it: any of \(triggerList)."),
            Key(path: "alarm.output", defaultValue: "", meaning: "The output (an `outputs` name) that sounds."),
            Key(path: "alarm.cadence", defaultValue: "on 500, off 500", meaning: "How it sounds: `{\"on_ms\": …, \"off_ms\": …}` (or `pulse_ms` instead, for one pulse)."),
            Key(path: "alarm.cadence.on_ms", defaultValue: "500", meaning: "Sounding time of each period."),
            Key(path: "alarm.cadence.off_ms", defaultValue: "500", meaning: "Silent time of each period."),
            Key(path: "alarm.pulse_ms", defaultValue: "", meaning: "One pulse of this length instead of a cadence."),
            Key(path: "alarm.state_dir", defaultValue: "$STATE_DIRECTORY, or /var/lib/jolt", meaning: "Where the alarm's state is kept across restarts (`alarm.json`): a kiosk killed while sounding sounds again when it is back; one moved while Jolt was down triggers. A simulated board keeps it only when this (or `--state-dir`) says where."),
            Key(path: "alarm.key_switch", defaultValue: "", meaning: "An input (an `inputs` name): on arms, off disarms."),
            Key(path: "control", defaultValue: "", meaning: "The control socket that `jolt arm`, `disarm` and `status` talk to."),
            Key(path: "control.socket", defaultValue: "$RUNTIME_DIRECTORY/jolt.sock", meaning: "Its path (absolute). The service's is /run/jolt/jolt.sock."),
            Key(path: "control.mode", defaultValue: "\"\(String(c.mode, radix: 8).count == 3 ? "0" : "")\(String(c.mode, radix: 8))\"", meaning: "Its file mode, octal: who may arm and disarm. Never open to others."),
        ]
    }

    package static var mqttKeys: [Key] {
        let m = MQTTConfig()
        return [
            Key(path: "mqtt", defaultValue: "no MQTT", meaning: "The link to an MQTT broker: events, the alarm's state, commands, Home Assistant discovery (docs/fleet.md)."),
            Key(path: "mqtt.host", defaultValue: "", meaning: "The broker's host name or address (required)."),
            Key(path: "mqtt.port", defaultValue: "\(m.port) (8883 with tls)", meaning: "The broker's port."),
            Key(path: "mqtt.device", defaultValue: "the host name", meaning: "This kiosk's name in topics and in Home Assistant: letters, digits, - and _."),
            Key(path: "mqtt.client_id", defaultValue: "jolt-DEVICE", meaning: "The MQTT client id (1–64 characters)."),
            Key(path: "mqtt.username", defaultValue: "", meaning: "The user name for the broker. Commands are only taken on an authenticated connection."),
            Key(path: "mqtt.password", defaultValue: "", meaning: "Its password. Keep the profile unreadable to others, or use password_file."),
            Key(path: "mqtt.password_file", defaultValue: "", meaning: "Or a file holding the password (relative to the profile's folder)."),
            Key(path: "mqtt.tls", defaultValue: "none", meaning: "TLS to the broker."),
            Key(path: "mqtt.tls.ca_file", defaultValue: "", meaning: "The CA certificate (PEM) that signed the broker's certificate."),
            Key(path: "mqtt.keepalive_s", defaultValue: "\(m.keepaliveSeconds)", meaning: "The MQTT keep-alive: how soon the broker notices a dead kiosk (its last will says `offline`)."),
            Key(path: "mqtt.topic_prefix", defaultValue: "\"\(m.topicPrefix)\"", meaning: "Topics are `PREFIX/DEVICE/event`, `…/state`, `…/set`, `…/result`, `…/availability`."),
            Key(path: "mqtt.discovery", defaultValue: "\(m.discovery)", meaning: "Publish Home Assistant discovery configurations."),
            Key(path: "mqtt.discovery_prefix", defaultValue: "\"\(m.discoveryPrefix)\"", meaning: "Home Assistant's discovery prefix."),
            Key(path: "mqtt.outbox", defaultValue: "", meaning: "Where events wait for the broker, on disk, so that an outage loses none."),
            Key(path: "mqtt.outbox.path", defaultValue: "\"\(m.outboxPath ?? "")\"", meaning: "The outbox folder (the service's StateDirectory)."),
            Key(path: "mqtt.outbox.max_events", defaultValue: "\(m.outboxMaxEvents)", meaning: "At most this many events wait; the oldest go first."),
            Key(path: "mqtt.command_code", defaultValue: "", meaning: "A code that arm and disarm commands must carry (`{\"command\": \"disarm\", \"code\": \"…\"}`). 5 wrong codes lock out every remote command for a minute, then twice as long each time (docs/security.md)."),
            Key(path: "mqtt.remote_disarm", defaultValue: "true with a command_code, else false", meaning: "Whether disarm is taken over MQTT. Never without a command_code: anyone who can publish to the broker could silence the alarm."),
            Key(path: "mqtt.remote_trigger", defaultValue: "false", meaning: "Whether the alarm may be triggered by hand over MQTT (Home Assistant's panel offers Trigger): it sounds until disarmed. With a command_code, the trigger needs it too."),
            Key(path: "mqtt.evidence_max_kib", defaultValue: "0 (not sent)", meaning: "Send each alarm's evidence (the jolt-trace of the 10 s either side of the trigger, kept in the state directory) on `PREFIX/DEVICE/evidence`, at most this many KiB (0–4096): a longer one is trimmed to the readings nearest the trigger, and says so in its header. Sent once, when the broker is there (not kept in the outbox)."),
        ]
    }

    /// The kind of value of each key the loader reads, from the sample profiles.
    package static func recordedKinds() -> (order: [String], kinds: [String: String]) {
        let recorder = SchemaRecorder()
        SchemaRecorder.$current.withValue(recorder) {
            for (i, text) in samples.enumerated() {
                // The samples are checked by a test; a failure here shows up there.
                _ = try? BoardProfile.parse(Array(text.utf8), file: "sample \(i + 1)")
            }
        }
        return (recorder.order, recorder.kinds)
    }

    /// The whole reference, as docs/config.md holds it.
    package static var markdown: String {
        let (order, kinds) = recordedKinds()
        let described = Dictionary(keys.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        var s = """
            # Board profiles: the configuration reference

            <!-- Generated by `jolt help --config` from the loader (Sources/JoltConfig/) and the
                 descriptions in Sources/JoltConfig/ConfigDoc.swift; a test checks it is current. -->

            A board profile is a JSON file that says which bus and chip Jolt reads, how the chip sits, how
            the detectors are tuned, and what each event does. Every command finds it as `--board FILE`,
            else `$JOLT_BOARD`, else `/etc/jolt/jolt.json` (what the Debian package installs); `run`,
            `watch` and `record` fall back to a chip on /dev/i2c-1 or the simulated board. Examples are
            in `boards/` (installed in /usr/share/jolt/boards).

            Every key is optional unless it says otherwise. An unknown key, a wrong type or a value out of
            range is refused with the file, the line and the key's path (`jolt.json:12:
            detection.shake.threshold_g: must be between 0.05 and 16 g (found 40)`), and a misspelt key
            gets a "did you mean". `systemctl reload jolt` (SIGHUP) re-reads the file.

            Units are in the names: `_g` in g (9.81 m/s², gravity included), `_dps` in degrees per
            second, `_deg` in degrees, `_ms` in milliseconds, `_s` in seconds, `_hz` in hertz.

            """
        func row(_ path: String) -> String {
            let d = described[path]
            let kind = kinds[path] ?? ""
            let def = d.map { $0.defaultValue.isEmpty ? "—" : $0.defaultValue } ?? "—"
            return "| `\(path)` | \(kind.isEmpty ? "—" : kind) | \(def) | \(d?.meaning ?? "") |\n"
        }
        let header = "| key | type and range | default | meaning |\n|---|---|---|---|\n"
        func top(_ path: String) -> String {
            String(path.prefix { $0 != "." && $0 != "[" })
        }
        // Plain keys at the top first, then one section per object, in the loader's order.
        s += "\n## The board\n\n" + header
        for path in order where !path.contains(".") && kinds[path] != "object" { s += row(path) }
        for section in order where !section.contains(".") && kinds[section] == "object" {
            s += "\n## `\(section)`\n\n"
            if let d = described[section] { s += d.meaning + (d.defaultValue.isEmpty ? "" : " Default: \(d.defaultValue).") + "\n\n" }
            if let note = sectionNotes[section] { s += note + "\n\n" }
            s += header
            for path in order where path != section && top(path) == section { s += row(path) }
        }
        s += "\n" + examples
        return s
    }
}
