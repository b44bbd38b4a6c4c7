"""Open a report.html in headless Chromium and use it as a reader would; print what it saw as JSON.

    python3 report_browser.py REPORT_HTML SCREENSHOT_PNG DATASET ATTACK VARIANT_ID MODEL_KEY

Chromium (Debian's /usr/bin/chromium, or $CHROMIUM) is driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages separated by NUL on file descriptors 3 and 4), with the
standard library only. Every request the page makes is recorded; the report itself is the only
one a self-contained page may make. In the example browser it picks DATASET, ATTACK, the problem
holding VARIANT_ID, that variant and MODEL_KEY ("<model> · <template>"), and reads back what the
page shows. It sorts the first metric table with a numeric column of distinct values by that
column, both ways. It saves a screenshot of the browser.
"""

import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self):
        exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise SystemExit("SKIP: no chromium on PATH")
        self.profile = tempfile.mkdtemp(prefix="advmath-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # Chromium's ends, moved above 4 first: dup2 onto the same number would keep close-on-exec.
        theirs = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)]
        os.close(to_browser_r)
        os.close(from_browser_w)

        def wire():
            os.dup2(theirs[0], 3)
            os.dup2(theirs[1], 4)

        self.proc = subprocess.Popen(
            [
                exe,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--remote-debugging-pipe",
                "--window-size=1280,1600",
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=wire,
        )
        for fd in theirs:
            os.close(fd)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, timeout=60):
        deadline = time.time() + timeout
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            e = self._read_message(deadline)
            if e.get("method") == method:
                return e
            self.events.append(e)

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def main():
    report, screenshot, dataset, attack, variant_id, model = sys.argv[1:7]
    url = "file://" + os.path.abspath(report)
    b = Browser()
    try:
        page = next(t for t in b.send("Target.getTargets")["targetInfos"] if t["type"] == "page")
        session = b.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            b.send(f"{domain}.enable", session=session)
        b.send("Page.navigate", {"url": url}, session=session)
        b.wait_for("Page.loadEventFired")

        def js(expression):
            result = b.send(
                "Runtime.evaluate",
                {"expression": expression, "returnByValue": True, "awaitPromise": True},
                session=session,
            )
            if "exceptionDetails" in result:
                raise RuntimeError(f"{expression[:80]}...: {result['exceptionDetails']}")
            return result["result"].get("value")

        seen = {}
        seen["sections"] = js(
            """Array.from(document.querySelectorAll('section')).map(s => ({
                 id: s.id,
                 heading: (s.querySelector('h2') || {}).textContent || '',
                 rows: s.querySelectorAll('table.sortable tbody tr').length,
                 svgs: s.querySelectorAll('svg').length,
                 visible: s.getBoundingClientRect().height > 0 }))"""
        )
        seen["sorting"] = js(
            """(() => {
              for (const table of document.querySelectorAll('table.sortable')) {
                const ths = Array.from(table.tHead.rows[0].cells);
                for (let i = 0; i < ths.length; i++) {
                  if (!ths[i].classList.contains('num')) continue;
                  const values = () => Array.from(table.tBodies[0].rows)
                    .map(r => r.cells[i].getAttribute('data-v')).filter(v => v !== null).map(Number);
                  const before = values();
                  if (new Set(before).size < 3) continue;
                  ths[i].querySelector('button').click();
                  const up = values();
                  ths[i].querySelector('button').click();
                  const down = values();
                  return { table: table.closest('section').id, column: ths[i].textContent,
                           before, up, down, state: ths[i].getAttribute('aria-sort') };
                }
              }
              return null;
            })()"""
        )
        pick = json.dumps({"dataset": dataset, "attack": attack, "variant": variant_id, "model": model})
        seen["example"] = js(
            f"""(() => {{
              const want = {pick};
              const set = (name, value) => {{
                const s = document.getElementById('pick-' + name);
                const o = Array.from(s.options).find(o => o.value === value || o.textContent === value);
                if (!o) return false;
                s.value = o.value;
                s.dispatchEvent(new Event('change'));
                return true;
              }};
              const ok = [set('dataset', want.dataset), set('attack', want.attack)];
              // The problem whose variant list holds the variant.
              const problems = document.getElementById('pick-problem');
              let found = false;
              for (const o of Array.from(problems.options)) {{
                problems.value = o.value;
                problems.dispatchEvent(new Event('change'));
                if (set('variant', want.variant)) {{ found = true; break; }}
              }}
              ok.push(found, set('model', want.model));
              const sides = document.querySelectorAll('#example .side');
              const variant = sides[1];
              return {{
                picked: ok,
                verdict: (document.querySelector('#example .verdict') || {{}}).textContent,
                variant_heading: variant && variant.querySelector('h3').textContent,
                reply: variant && (variant.querySelector('.reply') || {{}}).textContent,
                marked: variant && Array.from(variant.querySelectorAll('.reply mark.read')).map(m => m.textContent),
                read_as: variant && variant.querySelectorAll('p')[2].textContent,
                changed: Array.from(document.querySelectorAll('#example mark.changed')).map(m => m.textContent),
                models_listed: document.querySelectorAll('#example table.replies tbody tr').length,
              }};
            }})()"""
        )
        seen["tips"] = js(
            """Array.from(document.querySelectorAll('svg g.tips title')).slice(0, 400).map(t => t.textContent)"""
        )
        js("document.getElementById('examples').scrollIntoView()")
        shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False}, session=session)
        with open(screenshot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        # Let anything the page might still start show up before the requests are counted.
        time.sleep(0.5)
        b.send("Runtime.evaluate", {"expression": "1"}, session=session)
        seen["requests"] = [e["params"]["request"]["url"] for e in b.events if e.get("method") == "Network.requestWillBeSent"]
        seen["exceptions"] = [e["params"] for e in b.events if e.get("method") == "Runtime.exceptionThrown"]
        seen["console_errors"] = [
            e["params"]["entry"]["text"]
            for e in b.events
            if e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error"
        ]
        seen["url"] = url
        print(json.dumps(seen))
    finally:
        b.close()


if __name__ == "__main__":
    main()
