#!/usr/bin/env python3
"""Drive headless Chromium against the mock's live dashboard while football.yaml plays.

    python3 scripts/check/dashboard-check.py --liveline .build/debug/liveline [--out out/dashboard]

Starts `liveline mock-apns --h2c --dashboard` and `liveline play Scenarios/football.yaml
--speed 600` against it, with a copy of the scenario whose stale-after is 3s (so a quiet
stretch goes stale within the test; everything else is the file as shipped). One Chromium page
stays open on the dashboard the whole time, updated by its event stream; through the DevTools
protocol the script reads the DOM and checks, in order:

  1. the score after the first goal (1 – 0) and the goal's alert banner;
  2. a push the device drops (an older timestamp) and one it cannot decode (a String where the
     scenario has an Int), each highlighted in the "Not rendered" panel with its reason;
  3. the stale state (dimmed, "stale" label) during a quiet stretch: the player is paused
     (SIGSTOP) after half-time, as when a backend goes quiet, and resumed once it shows;
  4. the ended state with the dismissal countdown after full time;
  5. one start sent twice to a push-to-start token: the second highlighted as a phone now
     showing two Live Activities for one story, and counted at the top.

It saves screenshots of each stage (lock-screen-goal.png, stale.png, ended.png,
duplicate-start.png) to --out.

    python3 scripts/check/dashboard-check.py --screenshot http://127.0.0.1:2199/ --out shot.png [--wait 2]

only saves a screenshot of a running dashboard (`chromium --screenshot` waits for the page to
finish loading, which a page with an open event stream never does).

    python3 scripts/check/dashboard-check.py --measure http://127.0.0.1:2199/ --expect 100000 [--token HEX]

times a running dashboard: from navigation until the counts show that many activities and the
cards are drawn, and a search by token until its card comes first (scripts/bench/dashboard.sh).
    python3 scripts/check/dashboard-check.py --audience --liveline .build/debug/liveline [--followers 5000]

checks the bridge's audiences on the page: `liveline bridge serve --dashboard` with a key of
--followers fans (update tokens, imported as NDJSON) and 40 with only a push-to-start token; the
page must show the followers by state, then, after a signed webhook, its fan-out done with every
fan answered, the event's content-state and one fan's Lock Screen, and beside it one Android
follower's phone (an fcm-token, through the embedded mock FCM): the status-bar chip and the
promoted notification; a second webhook's newer state replaces both. A starter's start then put in doubt in the store (what a bridge killed between
a start and APNs' answer leaves) must show on its own highlighted tile with what it means.
Screenshots at 1280×800 (audience.png, audience-in-doubt.png) and on a 420-pixel-wide phone
(audience-narrow.png).
Needs: Chromium or Google Chrome (Debian's package, or in /Applications on a Mac), curl. Only the
Python standard library.
Exits 0 when every check passed, 1 (with what was seen) otherwise.
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import re
import shutil
import signal
import sqlite3
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def browser():
    """Chromium or Google Chrome: on the PATH (Debian's package, Google's), else where macOS
    installs them."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    for app in ("/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
                "/Applications/Chromium.app/Contents/MacOS/Chromium",
                os.path.expanduser("~/Applications/Google Chrome.app/Contents/MacOS/Google Chrome")):
        if os.access(app, os.X_OK):
            return app
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebSocket:
    """The client side of RFC 6455, enough for the DevTools protocol (text frames, no extensions)."""

    def __init__(self, url):
        match = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        host, port, path = match.group(1), int(match.group(2)), match.group(3)
        self.sock = socket.create_connection((host, port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise RuntimeError("DevTools closed the connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"DevTools refused the WebSocket: {head!r}")
        self.next_id = 0

    def _read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            data += chunk
        return data

    def send(self, text):
        payload = text.encode()
        header = bytearray([0x81])
        n = len(payload)
        if n < 126:
            header.append(0x80 | n)
        elif n < 65536:
            header += bytes([0x80 | 126]) + n.to_bytes(2, "big")
        else:
            header += bytes([0x80 | 127]) + n.to_bytes(8, "big")
        mask = os.urandom(4)
        self.sock.sendall(bytes(header) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive(self):
        message = b""
        while True:
            first, second = self._read(2)
            n = second & 0x7F
            if n == 126:
                n = int.from_bytes(self._read(2), "big")
            elif n == 127:
                n = int.from_bytes(self._read(8), "big")
            data = self._read(n)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise RuntimeError("DevTools closed the WebSocket")
            if opcode in (0x9, 0xA):
                continue
            message += data
            if first & 0x80:
                return message.decode()

    def call(self, method, **params):
        self.next_id += 1
        ident = self.next_id
        self.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            reply = json.loads(self.receive())
            if reply.get("id") == ident:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})


class Check:
    def __init__(self, args):
        self.args = args
        self.procs = []
        self.work = tempfile.mkdtemp(prefix="liveline-dashboard-")
        self.failures = []

    def start(self, argv, **kwargs):
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)
        self.procs.append(proc)
        return proc

    def stop_all(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.kill(proc.pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
                proc.send_signal(signal.SIGINT)
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(self.work, ignore_errors=True)

    def wait_http(self, url, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    return response.read()
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"nothing answered at {url} within {timeout}s")

    def evaluate(self, expression):
        result = self.page.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def wait_for(self, what, expression, timeout):
        deadline = time.time() + timeout
        value = None
        while time.time() < deadline:
            value = self.evaluate(expression)
            if value:
                print(f"ok   {what}")
                return value
            time.sleep(0.1)
        self.failures.append(what)
        text = self.evaluate("document.body.innerText") or ""
        print(f"FAIL {what}; the page shows:\n{text[:2500]}", file=sys.stderr)
        return None

    def screenshot(self, name):
        data = self.page.call("Page.captureScreenshot", format="png")["data"]
        path = os.path.join(self.args.out, name)
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        print(f"     saved {os.path.relpath(path)}")

    def open_page(self, url, width=1400, height=1000):
        """Starts headless Chromium and opens `url` in a `width`×`height` page driven over DevTools."""
        profile = os.path.join(self.work, "chromium")
        chromium = browser()
        if not chromium:
            raise RuntimeError("neither Chromium nor Google Chrome is installed (scripts/test.sh installs one)")
        self.start([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                    "--remote-debugging-port=0", f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"])
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1):
            if time.time() > deadline:
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        devtools_port = open(port_file).read().split("\n")[0]
        request = urllib.request.Request(f"http://127.0.0.1:{devtools_port}/json/new?{url}", method="PUT")
        with urllib.request.urlopen(request, timeout=10) as response:
            target = json.load(response)
        self.page = WebSocket(target["webSocketDebuggerUrl"])
        self.page.call("Page.enable")
        self.page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def only_screenshot(self):
        self.open_page(self.args.screenshot)
        time.sleep(self.args.wait)
        data = self.page.call("Page.captureScreenshot", format="png")["data"]
        with open(self.args.out, "wb") as f:
            f.write(base64.b64decode(data))
        print(f"saved {self.args.out}")

    def run(self):
        args = self.args
        os.makedirs(args.out, exist_ok=True)
        scenario = os.path.join(self.work, "football.yaml")
        with open(os.path.join(ROOT, "Scenarios", "football.yaml")) as f:
            text = f.read()
        text = text.replace("stale-after: 5m", "stale-after: 3s").replace("heartbeat: 1m", "heartbeat: 1s")
        with open(scenario, "w") as f:
            f.write(text.replace("$schema=liveline.schema.json", "$schema=" + os.path.join(ROOT, "Scenarios", "liveline.schema.json")))

        apns, board = free_port(), free_port()
        token = "5f0c5e7d" * 8
        self.start([args.liveline, "mock-apns", "--h2c", "--accept-any-token", "--listen", f"127.0.0.1:{apns}",
                    "--dashboard", f"127.0.0.1:{board}", "--scenario", scenario])
        url = f"http://127.0.0.1:{board}/"
        page_html = self.wait_http(url).decode()
        if "<script" not in page_html or "http://" in re.sub(r"http://www\.w3\.org/2000/svg", "", page_html):
            self.failures.append("the page is one document with nothing fetched from elsewhere")

        self.open_page(url)
        self.wait_for("the page connected to its event stream",
                      "document.getElementById('conn').className.includes('live')", 10)

        play = self.start([args.liveline, "play", scenario, "--speed", str(args.speed), "--apns-url",
                           f"http://127.0.0.1:{apns}", "--token", token, "--no-view"])
        card = "document.querySelector('.activity')"
        self.wait_for("the score after the first goal (1 – 0)",
                      f"{card} && {card}.querySelector('.line.hero').textContent.trim() === '1 – 0'", 30)
        self.wait_for("the goal's alert banner",
                      f"{card} && ({card}.querySelector('.banner.lit') || {{}}).textContent?.includes('GOAL! Northbridge FC 1–0')", 5)
        self.wait_for("the compact Dynamic Island shows the score",
                      f"{card}.querySelector('.island.compact .lead').textContent.trim() === '1–0'", 5)
        self.screenshot("lock-screen-goal.png")

        # A push with an older timestamp, and one the app could not decode.
        for body in ('{"aps":{"timestamp":1,"event":"update","content-state":{"minute":1,"addedTime":0,"homeScore":0,"awayScore":0,"phase":"first-half","lastEvent":null,"kickoff":0}}}',
                     '{"aps":{"timestamp":%d,"event":"update","content-state":{"minute":1,"addedTime":0,"homeScore":"one","awayScore":0,"phase":"first-half","lastEvent":null,"kickoff":0}}}' % (time.time() + 100000)):
            subprocess.run(["curl", "-s", "-o", "/dev/null", "--http2-prior-knowledge", "-H", "apns-topic: com.example.matchday.push-type.liveactivity",
                            "-H", "apns-push-type: liveactivity", "-H", "apns-priority: 5", "--data", body,
                            f"http://127.0.0.1:{apns}/3/device/{token}"], check=True)
        self.wait_for("a dropped-old push highlighted with its reason",
                      "[...document.querySelectorAll('#problems .push.notable.dropped-old')].some(e => e.textContent.includes('not newer than'))", 5)
        self.wait_for("a would-not-render push highlighted with its reason",
                      "[...document.querySelectorAll('#problems .push.notable.would-not-render')].some(e => e.textContent.includes('homeScore'))", 5)

        # A quiet stretch: the player pauses after half-time; the stale date passes.
        self.wait_for("half-time", f"{card}.textContent.includes('HALF-TIME')", 30)
        os.kill(play.pid, signal.SIGSTOP)
        self.wait_for("the stale state (dimmed, labelled)",
                      f"{card}.classList.contains('stale') && {card}.querySelector('.state').textContent.trim() === 'stale'"
                      f" && getComputedStyle({card}.querySelector('.lock')).opacity < 0.9", 10)
        self.screenshot("stale.png")
        os.kill(play.pid, signal.SIGCONT)
        self.wait_for("fresh again after the quiet stretch", f"{card}.classList.contains('active')", 10)

        self.wait_for("the ended state with the dismissal countdown",
                      f"/^ended · dismissed in \\d+ min$/.test({card}.querySelector('.state').textContent.trim())"
                      f" && {card}.querySelector('.line.hero').textContent.trim() === '3 – 1'", 40)
        self.screenshot("ended.png")
        self.wait_for("the push timeline lists the pushes with priority and outcome",
                      "document.querySelectorAll('#timeline .push').length >= 5 && document.querySelector('#timeline .p.high') !== null"
                      " && document.querySelector('#timeline').textContent.includes('rendered')", 5)
        play.wait(timeout=30)
        if play.returncode != 0:
            self.failures.append(f"liveline play exited {play.returncode}: {play.stdout.read()[-2000:]}")

        # The same start sent twice to one push-to-start token (a sender that resent it): the
        # phone shows two Live Activities for one match, and the page says so.
        start_token = "a1b2c3d4" * 8
        start = json.dumps({"aps": {"timestamp": int(time.time()), "event": "start", "attributes-type": "MatchAttributes",
                                    "attributes": {"homeTeam": "Northbridge FC", "awayTeam": "Harbour City", "competition": "Premier Division", "venue": "Riverside Park"},
                                    "content-state": {"minute": 0, "addedTime": 0, "homeScore": 0, "awayScore": 0, "phase": "pre-match", "lastEvent": None, "kickoff": 0},
                                    "alert": {"title": "Northbridge v Harbour City", "body": "Kick-off in 10 minutes"}}})
        for _ in range(2):
            subprocess.run(["curl", "-s", "-o", "/dev/null", "--http2-prior-knowledge", "-H", "apns-topic: com.example.matchday.push-type.liveactivity",
                            "-H", "apns-push-type: liveactivity", "-H", "apns-priority: 10", "--data", start,
                            f"http://127.0.0.1:{apns}/3/device/{start_token}"], check=True)
        self.wait_for("the second start highlighted, saying the phone now shows two Live Activities for one story",
                      "[...document.querySelectorAll('#problems .push.notable.duplicate')].some(e => e.textContent.includes('two Live Activities for one story')"
                      f" && e.textContent.includes('start:{start_token[:12]}:1'))"
                      " && document.querySelectorAll('#timeline .push.duplicate').length === 1", 5)
        self.wait_for("the second starts counted at the top",
                      "(document.querySelector('#counts .chip.duplicate b') || {}).textContent === '1'", 5)
        self.screenshot("duplicate-start.png")


    def audience(self):
        """The bridge's audiences on its embedded mock's dashboard (see --audience)."""
        args = self.args
        os.makedirs(args.out, exist_ok=True)
        port, board = free_port(), free_port()
        secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        config = os.path.join(self.work, "bridge.yaml")
        with open(config, "w") as f:
            f.write(f"""liveline-bridge: 1
listen: 127.0.0.1:{port}
store: sqlite:{os.path.join(self.work, "bridge.db")}
api-keys: [sha256:{hashlib.sha256(b"check-key").hexdigest()}]
sources:
  orders:
    verify: standard-webhooks
    secrets: [{secret}]
    event-id: header:webhook-id
    event-type: /type
    activity-key: /data/order_id
    order-key: /data/sequence
    order: sequence
    scenario: {os.path.join(ROOT, "Scenarios", "delivery.yaml")}
    events:
      order.eta:
        set: {{ minutesLeft: /data/minutes_left }}
""")
        bridge = self.start([args.liveline, "bridge", "serve", "--config", config, "--dashboard", f"127.0.0.1:{board}"])
        base, key = f"http://127.0.0.1:{port}", "order-fans"
        self.wait_http(base + "/readyz", timeout=60)

        def call(method, path, body, content_type="application/json", headers=None):
            request = urllib.request.Request(base + path, method=method, data=body.encode(), headers={
                "authorization": "Bearer check-key", "content-type": content_type, **(headers or {})})
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.read().decode()

        call("PUT", f"/v1/activities/{key}", json.dumps({"source": "orders", "audience": True}))
        fans = [{"device": f"fan-{n}", "update-token": hashlib.sha256(f"fan-{n}".encode()).hexdigest()} for n in range(args.followers)]
        starters = [{"device": f"starter-{n}", "push-to-start-token": hashlib.sha256(f"starter-{n}".encode()).hexdigest()} for n in range(40)]
        lines = fans + starters
        for start in range(0, len(lines), 10000):
            call("POST", f"/v1/activities/{key}/followers", "".join(json.dumps(line) + "\n" for line in lines[start:start + 10000]),
                 content_type="application/x-ndjson")
        # One Android phone among them: an FCM token, sent the story's Live Update through the
        # embedded mock FCM, and drawn beside the sample's Lock Screen.
        call("PUT", f"/v1/activities/{key}/followers/pixel-1", json.dumps({"fcm-token": "fid:cN9xQ2Lw0kS8Vt3mPz4R"}))
        lines = lines + [{"device": "pixel-1"}]
        updating = args.followers + 1

        def webhook(sequence, minutes):
            body = json.dumps({"type": "order.eta", "data": {"order_id": key, "sequence": sequence, "minutes_left": minutes}})
            ident, stamp = f"msg_check_{sequence}", str(int(time.time()))
            mac = hmac.new(base64.b64decode(secret[len("whsec_"):]), f"{ident}.{stamp}.{body}".encode(), hashlib.sha256).digest()
            call("POST", "/v1/webhooks/orders", body, headers={
                "webhook-id": ident, "webhook-timestamp": stamp, "webhook-signature": "v1," + base64.b64encode(mac).decode()})

        self.open_page(f"http://127.0.0.1:{board}/", width=1280, height=800)
        audience = f"document.querySelector('.audience[data-key=\"{key}\"]')"
        number = lambda name: f"Number(({audience}.querySelector('[data-count=\"{name}\"] b') || {{}}).textContent?.replace(/,/g, ''))"
        self.wait_for("the page connected to its event stream", "document.getElementById('conn').className.includes('live')", 10)
        self.wait_for(f"the key's audience: {len(lines):,} followers, {updating:,} updated (one an Android phone), 40 push-to-start only",
                      f"{audience} && {number('total')} === {len(lines)} && {number('updating')} === {updating}"
                      f" && {number('awaiting-start')} === 40 && {number('in-doubt')} === 0"
                      f" && !{audience}.querySelector('[data-count=\"in-doubt\"]').classList.contains('doubt')", 30)
        self.wait_for("no fan-out before the first event", f"{audience}.querySelector('.fanout.idle') !== null", 5)

        webhook(1, 25)
        fanout = f"{audience}.querySelector('.fanout')"
        self.wait_for(f"the fan-out done: {updating:,} of {updating:,} followers answered, none failed",
                      f"{fanout}.dataset.state === 'done' && {number('answered')} === {updating}"
                      f" && {fanout}.querySelector('[data-count=\"answered\"]').textContent.includes('of {updating:,}')"
                      f" && {number('failed')} === 0", 60)
        self.wait_for("the event and its content-state (minutesLeft 25)",
                      f"{fanout}.querySelector('.event').textContent === 'update' && {fanout}.querySelector('code').textContent.includes('\"minutesLeft\":25')", 5)
        self.wait_for("a lag from the webhook stored to the last answer", f"/lag \\d/.test({fanout}.querySelector('[data-count=\"lag\"]').textContent)", 5)
        self.wait_for("one fan's Lock Screen as the audience's sample, showing the new state",
                      f"{audience}.querySelector('.sample .lock') !== null && {audience}.querySelector('.sample .lock').textContent.includes('25')", 10)
        android = f"{audience}.querySelector('.sample [data-platform=\"android\"]')"
        self.wait_for("the Android phone beside it: its chip and its promoted notification, showing the new state",
                      f"{android} !== null && ({android}.querySelector('.lu-chip') || {{}}).textContent === '25 min'"
                      f" && {android}.querySelector('.lu.promoted .lu-title').textContent.includes('Bao House')"
                      f" && {android}.querySelector('.lu-tag') !== null", 10)
        self.wait_for("the devices below are counted, not drawn one by one",
                      f"document.querySelectorAll('#activities .activity').length <= 24 && Number(document.querySelector('#counts .chip b').textContent.replace(/,/g, '')) >= {args.followers}", 10)
        self.screenshot("audience.png")

        # What a bridge stopped between a start and APNs' answer leaves in its store: a starter's
        # start in doubt. The page shows it on its own highlighted tile, with what it means.
        with sqlite3.connect(os.path.join(self.work, "bridge.db"), timeout=30) as db:
            db.execute("INSERT INTO follower_exceptions (follower_id, activity_key, state, attempts, due_at, last_error)"
                       " SELECT id, activity_key, 'in-doubt', 0, 9223372036854775807, 'the start is in doubt' FROM followers"
                       " WHERE activity_key = ? AND device = 'starter-0'", (key,))
        self.wait_for("one start in doubt, on a highlighted tile and explained",
                      f"{number('in-doubt')} === 1 && {audience}.querySelector('[data-count=\"in-doubt\"]').classList.contains('doubt')"
                      f" && ({audience}.querySelector('[data-note=\"in-doubt\"]') || {{}}).textContent?.includes('two Live Activities on one phone')", 15)
        self.screenshot("audience-in-doubt.png")

        webhook(2, 20)
        self.wait_for("a newer event's fan-out replaces the older one (minutesLeft 20), every fan answered",
                      f"{fanout} && {fanout}.querySelector('code') && {fanout}.querySelector('code').textContent.includes('\"minutesLeft\":20')"
                      f" && {fanout}.dataset.state === 'done' && {number('answered')} === {updating}"
                      f" && ({android}.querySelector('.lu-chip') || {{}}).textContent === '20 min'", 90)
        status, text = call("GET", f"/v1/activities/{key}", "")
        followers = json.loads(text).get("followers", {})
        if followers.get("total") != len(lines) or followers.get("updating") != updating \
                or followers.get("platforms") != {"ios": len(lines) - 1, "android": 1}:
            self.failures.append(f"GET /v1/activities/{key} agrees with the page: {followers}")
        self.page.call("Emulation.setDeviceMetricsOverride", width=420, height=900, deviceScaleFactor=1, mobile=True)
        self.wait_for("on a narrow screen the audience fits the width",
                      f"{audience}.getBoundingClientRect().right <= 420 && document.documentElement.scrollWidth <= 420", 5)
        self.screenshot("audience-narrow.png")
        if bridge.poll() is not None:
            self.failures.append(f"the bridge exited {bridge.returncode}: {bridge.stdout.read()[-2000:]}")

    def measure(self):
        """Times the page against a running dashboard: load until the counts show --expect
        activities and the cards are drawn, then a search by --token until its card is first."""
        self.open_page("about:blank")
        expected = f"{self.args.expect:,}"
        self.page.call("Page.navigate", url=self.args.measure)
        shown = """(() => { const b = document.querySelector('#counts .chip b');
            return b && b.textContent === '%s' && document.querySelector('#activities .activity') ? performance.now() : null })()"""
        loaded = self.poll(shown % expected, 60)
        nodes = self.evaluate("document.getElementsByTagName('*').length")
        heap = self.evaluate("performance.memory ? performance.memory.usedJSHeapSize : null")
        print(f"page: counts show {expected} activities and cards drawn {loaded:.0f} ms after navigation; "
              f"{nodes} DOM elements; JS heap {heap / 1e6 if heap else 0:.1f} MB")
        if self.args.token:
            begun = self.evaluate("""(() => { const s = document.querySelector('#search'); s.value = '%s';
                s.dispatchEvent(new Event('input')); return performance.now() })()""" % self.args.token)
            found = self.poll("""(() => { const a = document.querySelector('#activities .activity');
                return a && a.dataset.id.startsWith('%s') ? performance.now() : null })()""" % self.args.token[:16], 30)
            print(f"search: the card of token {self.args.token[:12]}… first {found - begun:.0f} ms after typing "
                  f"(including the page's 250 ms typing pause)")

    def poll(self, expression, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.01)
        raise RuntimeError(f"the page did not get there within {timeout}s: {(self.evaluate('document.body.innerText') or '')[:800]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--liveline", default=os.path.join(ROOT, ".build", "debug", "liveline"))
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "dashboard"))
    parser.add_argument("--speed", type=float, default=600)
    parser.add_argument("--screenshot", metavar="URL", help="only save a screenshot of this dashboard to --out")
    parser.add_argument("--wait", type=float, default=2, help="seconds to let the page draw before --screenshot")
    parser.add_argument("--measure", metavar="URL", help="time the page of a running dashboard (scripts/bench/dashboard.sh)")
    parser.add_argument("--expect", type=int, default=0, help="with --measure: the number of activities the mock holds")
    parser.add_argument("--token", help="with --measure: a token to search for")
    parser.add_argument("--audience", action="store_true", help="check the bridge's audiences on its dashboard instead of a match")
    parser.add_argument("--followers", type=int, default=5000, help="with --audience: fans with an update token")
    args = parser.parse_args()
    check = Check(args)
    try:
        if args.measure:
            check.measure()
        elif args.screenshot:
            check.only_screenshot()
        elif args.audience:
            check.audience()
        else:
            check.run()
    except Exception as error:  # a failure to set up is a failed check, said plainly
        check.failures.append(str(error))
        print(f"FAIL {error}", file=sys.stderr)
    finally:
        check.stop_all()
    if check.failures:
        print(f"{len(check.failures)} check(s) failed: " + "; ".join(check.failures), file=sys.stderr)
        return 1
    print("dashboard: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
