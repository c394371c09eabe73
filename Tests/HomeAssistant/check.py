"""Jolt against a real Home Assistant (run by Tests/HomeAssistant/run, with Home Assistant's own
Python): onboarding and the MQTT integration through Home Assistant's REST API, then `jolt run`
on simulated kiosks, and every check through Home Assistant's REST and WebSocket APIs only.
Each check prints PASS or FAIL and what it saw; the exit status is the number of failures."""

import argparse
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time

import aiohttp

ap = argparse.ArgumentParser()
ap.add_argument("--jolt", required=True)
ap.add_argument("--boards", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--ha", required=True)
ap.add_argument("--mqtt-port", type=int, required=True)
args = ap.parse_args()

passed = failed = 0


def check(name, ok, saw=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print(f"{'PASS' if ok else 'FAIL'}  {name}", flush=True)
    if saw:
        for line in str(saw).splitlines()[:14]:
            print(f"      {line}", flush=True)


class Kiosk:
    """`jolt run` on a simulated board with an MQTT section; its log lines kept."""

    def __init__(self, device, board, mqtt_extra=None, forever=False, drop_alarm=False, alarm_extra=None):
        with open(os.path.join(args.boards, board)) as f:
            profile = json.load(f)
        if alarm_extra:
            profile["alarm"].update(alarm_extra)
        profile["mqtt"] = {"host": "127.0.0.1", "port": args.mqtt_port, "device": device, "username": "kiosk",
                           "password": "kiosk-pass", "keepalive_s": 5,
                           "outbox": {"path": os.path.join(args.work, f"outbox-{device}")}, **(mqtt_extra or {})}
        profile["control"] = {"socket": os.path.join(args.work, f"{device}.sock")}
        if drop_alarm:
            profile.pop("alarm", None)
            profile["actions"] = {k: v for k, v in profile.get("actions", {}).items() if not k.startswith("alarm.")}
        self.path = os.path.join(args.work, f"{device}.json")
        with open(self.path, "w") as f:
            json.dump(profile, f)
        self.log = open(os.path.join(args.work, f"{device}.log"), "w+")
        cmd = [args.jolt, "run", "--board", self.path, "--json"] + (["--forever"] if forever else [])
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.log)

    def lines(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(10)


class HA:
    def __init__(self, session):
        self.s = session
        self.token = None

    def headers(self):
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def get(self, path):
        async with self.s.get(args.ha + path, headers=self.headers()) as r:
            return r.status, (await r.json() if r.content_type == "application/json" else await r.text())

    async def post(self, path, body=None, form=None):
        async with self.s.post(args.ha + path, json=body, data=form, headers=self.headers()) as r:
            return r.status, (await r.json() if r.content_type == "application/json" else await r.text())

    async def state(self, entity):
        status, body = await self.get(f"/api/states/{entity}")
        return body if status == 200 else None

    async def states(self, prefix):
        _, body = await self.get("/api/states")
        return {s["entity_id"]: s for s in body if s["entity_id"].split(".", 1)[1].startswith(prefix)}

    async def until(self, what, seconds=20.0, every=0.1):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                value = await what()
            except (aiohttp.ClientError, OSError):
                value = None   # not listening yet
            if value:
                return value
            await asyncio.sleep(every)
        return None

    async def ws(self, message):
        async with self.s.ws_connect(args.ha + "/api/websocket") as ws:
            await ws.receive_json()
            await ws.send_json({"type": "auth", "access_token": self.token})
            await ws.receive_json()
            await ws.send_json({"id": 1, **message})
            return (await ws.receive_json()).get("result")

    async def service(self, domain, service, data):
        return await self.post(f"/api/services/{domain}/{service}", data)


async def setup(ha):
    """Onboarding (the owner's account, the home), then the MQTT integration for the test's broker."""
    if not await ha.until(lambda: ha.get("/api/onboarding"), 120, 0.5):
        return False
    client = args.ha + "/"
    _, body = await ha.post("/api/onboarding/users", {"client_id": client, "name": "Owner", "username": "owner",
                                                      "password": "owner-pass-1", "language": "en"})
    _, tok = await ha.post("/auth/token", form={"grant_type": "authorization_code", "code": body["auth_code"], "client_id": client})
    ha.token = tok["access_token"]
    _, flow = await ha.post("/api/config/config_entries/flow", {"handler": "mqtt", "show_advanced_options": False})
    _, done = await ha.post(f"/api/config/config_entries/flow/{flow['flow_id']}",
                            {"broker": "127.0.0.1", "port": args.mqtt_port, "username": "homeassistant", "password": "ha-pass"})
    _, version = await ha.get("/api/config")
    check("Home Assistant onboarded and the MQTT integration added through its REST API",
          done.get("type") == "create_entry", f"Home Assistant {version.get('version')}; MQTT flow: {flow}\n{done}")
    return done.get("type") == "create_entry"


EXPECTED = {  # entity id → (device class or None, entity category or None)
    "alarm_control_panel.jolt_kiosk_1_alarm": (None, None),
    "sensor.jolt_kiosk_1_last_command": (None, "diagnostic"),
    "event.jolt_kiosk_1_shake_event": (None, None),
    "event.jolt_kiosk_1_flip_event": (None, None),
    "event.jolt_kiosk_1_tamper_event": (None, None),
    "event.jolt_kiosk_1_walk_test_event": (None, None),
    "siren.jolt_kiosk_1_buzzer": (None, None),
    "button.jolt_kiosk_1_test_buzzer": (None, "diagnostic"),
    "binary_sensor.jolt_kiosk_1_tamper": ("tamper", None),
    "binary_sensor.jolt_kiosk_1_problem": ("problem", "diagnostic"),
    "binary_sensor.jolt_kiosk_1_trouble": ("problem", "diagnostic"),
    "binary_sensor.jolt_kiosk_1_shake": ("vibration", None),
    "binary_sensor.jolt_kiosk_1_face_down": (None, None),
    "sensor.jolt_kiosk_1_tilt": (None, None),
    "sensor.jolt_kiosk_1_speed": (None, None),
}


async def panel_state(ha):
    s = await ha.state("alarm_control_panel.jolt_kiosk_1_alarm")
    return s["state"] if s else "absent"


async def entities(ha, version, kiosk):
    got = await ha.until(lambda: _all_there(ha), 30)
    registry = await ha.ws({"type": "config/entity_registry/list"}) or []
    reg = {e["entity_id"]: e for e in registry}
    devices = await ha.ws({"type": "config/device_registry/list"}) or []
    dev = next((d for d in devices if ["mqtt", "jolt_kiosk-1"] in d["identifiers"]), None)
    wrong = []
    for entity, (device_class, category) in EXPECTED.items():
        s, r = (got or {}).get(entity), reg.get(entity)
        if not s or not r:
            wrong.append(f"{entity}: missing")
            continue
        if s["attributes"].get("device_class") != device_class:
            wrong.append(f"{entity}: device class {s['attributes'].get('device_class')}")
        if r.get("entity_category") != category:
            wrong.append(f"{entity}: category {r.get('entity_category')}")
        if dev and r.get("device_id") != dev["id"]:
            wrong.append(f"{entity}: not on the kiosk's device")
    if not dev or not (dev.get("sw_version") or "").startswith(version) or dev.get("hw_version") != "MPU6050 (WHO_AM_I 0x68)" \
            or dev.get("model") != "Jolt accelerometer alarm" or dev.get("manufacturer") != "Jolt":
        wrong.append(f"device: {dev and {k: dev.get(k) for k in ('name', 'model', 'manufacturer', 'hw_version', 'sw_version')}}")
    if wrong and kiosk.proc.poll() is not None:
        wrong.append(f"jolt exited {kiosk.proc.returncode}: {kiosk.lines()[-400:]}")
    level = await ha.until(lambda: _level(ha), 15)
    if not level:
        tilt = await ha.state("sensor.jolt_kiosk_1_tilt") or {}
        wrong.append(f"the tilt sensor of a kiosk lying level: {tilt.get('state')} {tilt.get('attributes', {}).get('unit_of_measurement')}")
    check("every Jolt entity, with its domain, device class, category and the device (model, chip, sw_version)", not wrong,
          "\n".join(wrong) or f"{len(EXPECTED)} entities on device '{dev['name']}': {dev['model']}, {dev['hw_version']}, {dev['sw_version']}")


async def _level(ha):
    """The tilt sensor's state once Jolt has published it: a number under 2° in degrees."""
    tilt = await ha.state("sensor.jolt_kiosk_1_tilt") or {}
    try:
        return float(tilt.get("state")) < 2 and tilt["attributes"].get("unit_of_measurement") == "°"
    except (TypeError, ValueError):
        return False


async def _all_there(ha):
    found = await ha.states("jolt_kiosk_1_")
    return found if all(e in found for e in EXPECTED) else None


async def track_panel(ha, seen):
    """The panel's states from Jolt's start, as the simulated kiosk is armed (3 s grace) and
    lifted (12 s in), until it is triggered."""
    async def triggered():
        s = await ha.state("alarm_control_panel.jolt_kiosk_1_alarm")
        if s and (not seen or seen[-1] != s["state"]):
            seen.append(s["state"])
        return s and s["state"] == "triggered"
    await ha.until(triggered, 60, 0.05)


def panel_sequence(seen):
    order = [x for x in seen if x in ("arming", "armed_away", "triggered")]
    check("the panel: arming → armed_away → triggered as the simulated kiosk is lifted",
          order[-3:] == ["arming", "armed_away", "triggered"], " → ".join(seen))


async def panel_reason(ha):
    async def attributes():
        s = await ha.state("alarm_control_panel.jolt_kiosk_1_alarm")
        a = (s or {}).get("attributes", {})
        return a if a.get("last_trigger") else None
    a = await ha.until(attributes, 10) or {}
    check("the panel says why it triggered: a tamper, the lift's reason and its figure as attributes",
          str(a.get("last_trigger", "")).startswith("tamper: ") and a.get("last_trigger_reason") in ("moved", "tilting", "tilt")
          and (a.get("last_trigger_mm_s") is not None or a.get("last_trigger_deg") is not None),
          json.dumps({k: v for k, v in a.items() if k.startswith("last_trigger")}))


async def last_command(ha):
    s = await ha.state("sensor.jolt_kiosk_1_last_command")
    return s["state"] if s else None


async def commands(ha, kiosk):
    panel = "alarm_control_panel.jolt_kiosk_1_alarm"
    before = kiosk.lines().count("line buzzer (")
    await ha.service("siren", "turn_off", {"entity_id": "siren.jolt_kiosk_1_buzzer"})
    said = await ha.until(lambda: _says(ha, "siren: "), 10)
    still = await panel_state(ha)
    check("the siren cannot silence a triggered alarm: refused, visible, still triggered",
          said and "disarm it to silence it" in said and still == "triggered", f"last command: {said}; panel: {still}")
    await ha.service("alarm_control_panel", "alarm_disarm", {"entity_id": panel, "code": "0000"})
    said = await ha.until(lambda: _says(ha, "disarm: wrong code"), 10)
    still = await panel_state(ha)
    check("alarm_disarm with a wrong code: refused, 'wrong code' visible, still triggered", said and still == "triggered", f"{said}; panel: {still}")
    await ha.service("alarm_control_panel", "alarm_disarm", {"entity_id": panel, "code": "4711"})
    state = await ha.until(lambda: _panel_is(ha, "disarmed"), 10)
    check("alarm_disarm with the right code disarms Jolt", bool(state), f"panel: {await panel_state(ha)}; last command: {await last_command(ha)}")
    await asyncio.sleep(0.5)
    mark = kiosk.lines().count("line buzzer (")
    await ha.service("button", "press", {"entity_id": "button.jolt_kiosk_1_test_buzzer"})
    pulse = await ha.until(lambda: _pulsed(kiosk, mark), 10)
    check("the test button pulses the buzzer line once (active, then inactive)", bool(pulse),
          "\n".join(l for l in kiosk.lines().splitlines() if "line buzzer" in l)[-300:])
    for _ in range(5):
        await ha.service("alarm_control_panel", "alarm_arm_away", {"entity_id": panel, "code": "1234"})
        await asyncio.sleep(0.3)
    said = await ha.until(lambda: _says(ha, "locked out"), 10)
    check("five wrong codes: the lockout is visible in Home Assistant", bool(said), f"last command: {await last_command(ha)}")
    return before


async def _says(ha, text):
    s = await last_command(ha)
    return s if s and text in s else None


async def _panel_is(ha, state):
    s = await ha.state("alarm_control_panel.jolt_kiosk_1_alarm")
    return s and s["state"] == state


async def _pulsed(kiosk, mark):
    lines = [l for l in kiosk.lines().splitlines() if "line buzzer (" in l][mark:]
    return len(lines) >= 2 and "active" in lines[0] and "inactive" in lines[1]


async def panel_like_an_alarm(ha):
    """kiosk-3, disarmed at start, with an entry delay, chirps and a night mode: armed night from
    Home Assistant's panel, tripped by the simulated lift (12 s in), pending, then triggered;
    disarmed. The buzzer's line chirps on arming, through the delays, and twice on disarming."""
    kiosk = Kiosk("kiosk-3", "kiosk-alarm.json", {"command_code": "4711"},
                  alarm_extra={"armed_at_start": False, "arming_ms": 1000, "entry_ms": 2000, "chirp": True, "modes": {"night": ["tamper"]}})
    panel = "alarm_control_panel.jolt_kiosk_3_alarm"
    try:
        s = await ha.until(lambda: _panel_of(ha, panel, "disarmed"), 30)
        features = (s or {}).get("attributes", {}).get("supported_features", 0)
        # ARM_HOME 1, ARM_AWAY 2, ARM_NIGHT 4 (AlarmControlPanelEntityFeature).
        check("a panel with a night mode offers Arm night, not Arm home", bool(s) and features & 4 and features & 2 and not features & 1,
              f"state {(s or {}).get('state')}, supported_features {features}")
        chirps = kiosk.lines().count(": active")
        await ha.service("alarm_control_panel", "alarm_arm_night", {"entity_id": panel, "code": "4711"})
        armed = await ha.until(lambda: _panel_of(ha, panel, "armed_night"), 10)
        check("alarm_arm_night arms Jolt in its night mode, with chirps through the exit delay",
              bool(armed) and kiosk.lines().count(": active") >= chirps + 2, f"panel {await _panel_state(ha, panel)}; "
              f"{kiosk.lines().count(': active') - chirps} chirps")
        seen = []
        async def track():
            st = await _panel_state(ha, panel)
            if not seen or seen[-1] != st:
                seen.append(st)
            return st == "triggered"
        await ha.until(track, 30, 0.05)
        check("tripped by the lift: pending through the entry delay, then triggered", seen[-2:] == ["pending", "triggered"], " → ".join(seen))
        mark = len(kiosk.lines())
        await ha.service("alarm_control_panel", "alarm_disarm", {"entity_id": panel, "code": "4711"})
        disarmed = await ha.until(lambda: _panel_of(ha, panel, "disarmed"), 10)
        await asyncio.sleep(1.0)
        # From the disarm on: the two chirps (the log's order against the action thread's lines
        # is not fixed, so they are counted from before the command), then silence.
        tail = kiosk.lines()[mark:]
        buzzer = [l for l in tail.splitlines() if "line buzzer (" in l]
        check("disarmed from the panel, with two chirps", bool(disarmed) and "mqtt: disarm" in tail and len(buzzer) >= 4
              and sum(": active" in l for l in buzzer) >= 2 and buzzer[-1].endswith(": inactive"), tail[-400:])
    finally:
        kiosk.stop()


async def _panel_state(ha, entity):
    s = await ha.state(entity)
    return s["state"] if s else "absent"


async def _panel_of(ha, entity, state):
    s = await ha.state(entity)
    return s if s and s["state"] == state else None


async def events(ha):
    """The demo board (a shake, a flip face down and back, looping) as kiosk-2: its event entities."""
    demo = Kiosk("kiosk-2", "sim.json", forever=True)
    try:
        async def seen():
            shake = await ha.state("event.jolt_kiosk_2_shake_event")
            flip = await ha.state("event.jolt_kiosk_2_flip_event")
            types = (shake and shake["attributes"].get("event_type"), flip and flip["attributes"].get("event_type"))
            events.types.add(types)
            got_shake = any(t[0] in ("began", "ended") for t in events.types)
            got_flip = any(t[1] in ("face_down", "face_up") for t in events.types)
            return got_shake and got_flip
        events.types = set()
        ok = await ha.until(seen, 60, 0.2)
        check("event entities record the demo board's shake and flip (event_type began/ended, face_down/face_up)", bool(ok),
              f"seen (shake, flip) event types: {sorted(str(t) for t in events.types)}")
    finally:
        demo.stop()


def discovery_configs(device):
    """The retained discovery configurations of `device`, from the broker."""
    r = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(args.mqtt_port), "-u", "homeassistant", "-P", "ha-pass",
                        "-t", f"homeassistant/+/{device}/+/config", "-v", "-W", "3"], capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        topic, _, payload = line.partition(" ")
        if payload and payload != "(null)":
            parts = topic.split("/")
            out[f"{parts[1]}/{parts[3]}"] = json.loads(payload)
    return out


async def templates(configs):
    """Every template of every configuration, rendered by Home Assistant's own template engine
    with the payloads and variables Home Assistant gives it, and the results checked."""
    from homeassistant.core import HomeAssistant
    from homeassistant.helpers.template import Template
    hass = HomeAssistant(os.path.join(args.work, "templates"))
    problems, rendered = [], 0

    def value(tpl, payload):
        nonlocal rendered
        rendered += 1
        return Template(tpl, hass).async_render_with_possible_json_value(payload, "")

    def command(tpl, variables):
        nonlocal rendered
        rendered += 1
        return Template(tpl, hass).async_render(variables, parse_result=False)

    def expect(what, got, want):
        if got != want:
            problems.append(f"{what}: {got!r}, expected {want!r}")

    panel = configs["alarm_control_panel/alarm"]
    for action in ("arm", "disarm", "trigger"):
        for code in (None, "4711", 'a "quoted" \\ code'):
            text = command(panel["command_template"], {"action": action, "code": code})
            try:
                expect(f"panel command {action} {code!r}", json.loads(text), {"command": action, "code": code})
            except ValueError:
                problems.append(f"panel command {action} {code!r}: not JSON: {text}")
    for state, want in (("disarmed", "disarmed"), ("arming", "arming"), ("armed", "armed_away"), ("pending", "pending"), ("triggered", "triggered"), ("melted", "None")):
        expect(f"panel state {state}", value(panel["value_template"], json.dumps({"state": state, "since": 1.0})), want)
    expect("panel armed night", value(panel["value_template"], '{"state":"armed","mode":"night","since":1.0}'), "armed_night")
    expect("panel armed home", value(panel["value_template"], '{"state":"armed","mode":"home","since":1.0}'), "armed_home")
    last = configs["sensor/last_command"]
    expect("last command ok", value(last["value_template"], '{"command":"disarm","ok":true,"state":"disarmed"}'), "disarm: done")
    expect("last command refused", value(last["value_template"], '{"command":"disarm","ok":false,"error":"wrong code"}'), "disarm: wrong code")
    long = value(last["value_template"], json.dumps({"command": "arm", "ok": False, "error": "x" * 1000}))
    if len(long) > 255:
        problems.append(f"a long refusal renders {len(long)} characters (a sensor keeps 255)")
    trig = {"state": "triggered", "since": 3.5, "last_trigger": {"cause": "tamper", "reason": "moved", "mm_s": 61, "ms": 180,
                                                             "text": "tamper: moved 61 mm/s for 180 ms", "utc": "2026-12-03T10:00:00Z"}}
    expect("panel attributes after a trigger", json.loads(value(panel["json_attributes_template"], json.dumps(trig))),
           {"last_trigger": "tamper: moved 61 mm/s for 180 ms", "last_trigger_cause": "tamper", "last_trigger_reason": "moved",
            "last_trigger_mm_s": 61, "last_trigger_deg": None, "last_trigger_utc": "2026-12-03T10:00:00Z", "walk_test": False,
            "sensor_check": None, "sensor_check_passed": None})
    expect("panel attributes before any trigger", json.loads(value(panel["json_attributes_template"], '{"state":"armed","since":1.0}')),
           {"last_trigger": None, "last_trigger_cause": None, "last_trigger_reason": None, "last_trigger_mm_s": None,
            "last_trigger_deg": None, "last_trigger_utc": None, "walk_test": False, "sensor_check": None, "sensor_check_passed": None})
    checked = json.loads(value(panel["json_attributes_template"], json.dumps({"state": "disarmed", "since": 1.0, "sensor_check": {
        "passed": False, "text": "FAILED: self-test x +25 y +28 z +27 mg (allowed 480..637 mg), noise 4 mg", "utc": "2026-12-04T10:00:00Z"}})))
    expect("panel attributes after a failed sensor check", (checked["sensor_check_passed"], checked["sensor_check"][:6]), (False, "FAILED"))
    expect("panel attributes in a walk test", json.loads(value(panel["json_attributes_template"], '{"state":"armed","since":1.0,"walk_test":true}'))["walk_test"], True)
    tilt, speed = configs["sensor/tilt"], configs["sensor/speed"]
    expect("tilt", value(tilt["value_template"], '{"tilt_deg":1.2}'), "1.2")
    expect("movement speed while the alarm watches", value(speed["value_template"], '{"tilt_deg":1.2,"speed_mm_s":3}'), "3")
    expect("movement speed while it does not", value(speed["value_template"], '{"tilt_deg":1.2}'), "None")
    attrs = json.loads(value(last["json_attributes_template"], '{"command":"arm","ok":true,"state":"arming"}'))
    expect("last command attributes", attrs, {"command": "arm", "ok": True, "error": None, "alarm_state": "arming"})
    samples = [{"event": "shake", "phase": p, "t": 1.5} for p in ("began", "ended", "cancelled")] + \
              [{"event": "flip", "state": s, "t": 2.5} for s in ("face_down", "face_up")] + \
              [{"event": "tamper", "t": 3.5}, {"event": "alarm", "state": "triggered", "from": "armed", "cause": "tamper", "t": 3.5}] + \
              [{"event": "walk_test", "cause": "tamper", "reason": "moved", "mm_s": 61, "ms": 180, "margin": 3.05, "setting": "move_mm_s", "t": 4.5}]
    for name in ("event/shake", "event/flip", "event/tamper", "event/walk_test"):
        cfg, kind = configs[name], name.split("/")[1]
        for e in samples:
            out = value(cfg["value_template"], json.dumps(e))
            if e["event"] == kind:
                got = json.loads(out) if out else None
                if not got or got.get("event_type") not in cfg["event_types"]:
                    problems.append(f"{name} on {e}: {out!r}")
            elif out:
                problems.append(f"{name} on another kind of event {e}: {out!r} (must render nothing)")
    siren = configs["siren/buzzer"]
    expect("siren on", json.loads(command(siren["command_template"], {"state": "ON"})), {"command": "siren", "state": "on"})
    expect("siren on 5 s", json.loads(command(siren["command_template"], {"state": "ON", "duration": 5})),
           {"command": "siren", "state": "on", "duration": 5})
    expect("siren off", json.loads(command(siren["command_off_template"], {"state": "OFF"})), {"command": "siren", "state": "off"})
    await hass.async_stop(force=True)
    check(f"every discovery template rendered by Home Assistant's template engine: {rendered} renderings as expected",
          not problems and rendered > 40, "\n".join(problems))


async def main():
    async with aiohttp.ClientSession() as session:
        ha = HA(session)
        if not await setup(ha):
            return
        version = subprocess.run([args.jolt, "--version"], capture_output=True, text=True).stdout.split()[1]
        kiosk = Kiosk("kiosk-1", "kiosk-alarm.json", {"command_code": "4711", "remote_trigger": True})
        seen, configs = [], {}
        tracking = asyncio.create_task(track_panel(ha, seen))
        try:
            await entities(ha, version, kiosk)
            await tracking
            panel_sequence(seen)
            await panel_reason(ha)
            configs = discovery_configs("kiosk-1")
            await commands(ha, kiosk)
            await events(ha)
            await panel_like_an_alarm(ha)
        finally:
            kiosk.stop()
        gone = await ha.until(lambda: _unavailable(ha), 20)
        check("stopping Jolt makes its entities unavailable", bool(gone), f"{gone or await ha.states('jolt_kiosk_1_')}"[:300])
        # The same kiosk without its alarm: the panel (and the tamper entities) are removed.
        plain = Kiosk("kiosk-1", "kiosk-alarm.json", drop_alarm=True)
        try:
            removed = await ha.until(lambda: _removed(ha), 30)
            check("the alarm taken out of the profile: its panel entity is removed", bool(removed),
                  ", ".join(sorted(await ha.states("jolt_kiosk_1_"))))
        finally:
            plain.stop()
        # Last: a Home Assistant instance in this process makes blocking calls an error here.
        await templates(configs)


async def _unavailable(ha):
    found = await ha.states("jolt_kiosk_1_")
    return [e for e in EXPECTED if found.get(e, {}).get("state") == "unavailable"] if all(
        found.get(e, {}).get("state") == "unavailable" for e in EXPECTED) else None


async def _removed(ha):
    found = await ha.states("jolt_kiosk_1_")
    return "alarm_control_panel.jolt_kiosk_1_alarm" not in found and "sensor.jolt_kiosk_1_last_command" in found \
        and found["sensor.jolt_kiosk_1_last_command"]["state"] != "unavailable"


asyncio.run(main())
print(f"{passed} passed, {failed} failed")
sys.exit(min(failed, 1))
