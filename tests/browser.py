"""Headless Chromium over the DevTools protocol (for tests/test_report_html.py).

Chromium is started with its own throw-away profile and ``--remote-debugging-port=0``; the
port it picked is read from ``DevToolsActivePort`` in the profile directory, and we speak
the protocol over a WebSocket on 127.0.0.1 (the ``websockets`` package).  Nothing here
needs the network: pages are opened as ``file://`` URLs.
"""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--remote-debugging-port=0", "about:blank")


def find_chromium() -> str | None:
    for name in CANDIDATES:
        p = shutil.which(name)
        if p:
            return p
    return None


@dataclass
class PageLoad:
    """What loading one page left behind."""

    url: str
    facts: dict
    errors: list[str] = field(default_factory=list)      # console errors, exceptions, log errors
    requests: list[str] = field(default_factory=list)    # every URL the page asked for
    screenshot: bytes = b""


class Chromium:
    """A headless Chromium process; ``load(path, facts_js)`` opens a page in a fresh tab."""

    def __init__(self, exe: str, timeout: float = 60.0) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="simstudy-chromium-"))
        self.proc = subprocess.Popen([exe, *FLAGS[:-1], f"--user-data-dir={self.profile}",
                                      FLAGS[-1]],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while not (port_file.is_file() and port_file.read_text().strip()):
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace")[-2000:]
                raise RuntimeError(f"chromium exited with {self.proc.returncode}: {err}")
            if time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"chromium did not open its DevTools port in {timeout} s")
            time.sleep(0.1)
        port, path = port_file.read_text().split("\n")[:2]
        self.ws_url = f"ws://127.0.0.1:{port.strip()}{path.strip()}"
        self.timeout = timeout

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def load(self, page: Path, facts_js: str, *, width: int = 1280) -> PageLoad:
        return asyncio.run(asyncio.wait_for(self._load(Path(page).resolve().as_uri(), facts_js,
                                                       width), self.timeout))

    async def _load(self, url: str, facts_js: str, width: int) -> PageLoad:
        from websockets.asyncio.client import connect

        out = PageLoad(url, {})
        async with connect(self.ws_url, max_size=None) as ws:
            ids = iter(range(1, 1 << 30))
            pending: dict[int, asyncio.Future] = {}
            loaded = asyncio.Event()

            async def reader() -> None:
                async for raw in ws:
                    msg = json.loads(raw)
                    if "id" in msg and msg["id"] in pending:
                        pending.pop(msg["id"]).set_result(msg)
                        continue
                    method, p = msg.get("method"), msg.get("params", {})
                    if method == "Page.loadEventFired":
                        loaded.set()
                    elif method == "Runtime.consoleAPICalled" and p.get("type") in (
                            "error", "assert"):
                        out.errors.append("console." + p["type"] + ": " + " ".join(
                            str(a.get("value", a.get("description", ""))) for a in p["args"]))
                    elif method == "Runtime.exceptionThrown":
                        d = p["exceptionDetails"]
                        out.errors.append("exception: " + str(
                            d.get("exception", {}).get("description", d.get("text"))))
                    elif method == "Log.entryAdded" and p["entry"]["level"] == "error":
                        out.errors.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
                    elif method == "Network.requestWillBeSent":
                        out.requests.append(p["request"]["url"])
                    elif method == "Network.loadingFailed":
                        out.errors.append(f"network: {p.get('errorText')}")

            task = asyncio.create_task(reader())

            async def call(method: str, params: dict | None = None,
                           session: str | None = None) -> dict:
                i = next(ids)
                fut = asyncio.get_running_loop().create_future()
                pending[i] = fut
                msg = {"id": i, "method": method, "params": params or {}}
                if session:
                    msg["sessionId"] = session
                await ws.send(json.dumps(msg))
                res = await fut
                if "error" in res:
                    raise RuntimeError(f"{method}: {res['error']}")
                return res["result"]

            target = (await call("Target.createTarget", {"url": "about:blank"}))["targetId"]
            s = (await call("Target.attachToTarget", {"targetId": target, "flatten": True}))[
                "sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                await call(f"{domain}.enable", session=s)
            await call("Emulation.setDeviceMetricsOverride",
                       {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                       session=s)
            await call("Page.navigate", {"url": url}, session=s)
            await loaded.wait()
            await asyncio.sleep(0.3)  # let late console messages arrive
            out.screenshot = await self._screenshot(call, s, width)  # before facts_js acts
            res = await call("Runtime.evaluate", {"expression": facts_js, "returnByValue": True,
                                                  "awaitPromise": True}, session=s)
            if "exceptionDetails" in res:
                raise RuntimeError(f"facts script failed: {res['exceptionDetails']}")
            out.facts = res["result"]["value"]
            await asyncio.sleep(0.2)  # errors raised by facts_js (e.g. a click handler)
            await call("Target.closeTarget", {"targetId": target})
            task.cancel()
        return out

    @staticmethod
    async def _screenshot(call, session: str, width: int) -> bytes:
        """The whole page (up to 16000 px tall) as PNG bytes."""
        m = await call("Page.getLayoutMetrics", session=session)
        size = m.get("cssContentSize") or m["contentSize"]
        h = min(int(size["height"]), 16000)
        shot = await call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": h, "scale": 1}}, session=session)
        return base64.b64decode(shot["data"])
