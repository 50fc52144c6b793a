"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (no websocket
library, no driver download): enough to load a page, collect console errors and failed or
non-file requests, evaluate JavaScript and take a screenshot."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

#: Where Debian's chromium package installs the browser.
CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-pipe",
)


def _high(fd: int) -> int:
    """``fd`` moved above 9, so that placing the pipe on fds 3 and 4 clobbers neither end."""
    import fcntl

    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def find_browser() -> str | None:
    """Path of an installed Chromium, or None."""
    for name in CHROMIUM_CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless Chromium with a fresh profile, driven through a pipe (fds 3 and 4)."""

    def __init__(self, executable: str, width: int = 1400, height: int = 900) -> None:
        self._profile = tempfile.mkdtemp(prefix="rl-chromium-")
        to_browser_r, self._to_browser = (_high(fd) for fd in os.pipe())
        self._from_browser, from_browser_w = (_high(fd) for fd in os.pipe())
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

        def child_fds() -> None:  # runs in the child before exec: put the pipe on fds 3 and 4
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(
            [
                executable,
                *_FLAGS,
                f"--user-data-dir={self._profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            pass_fds=(3, 4),
            preexec_fn=child_fds,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.width, self.height = width, height
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)[
            "sessionId"
        ]

    def _read_message(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send a command and wait for its answer; events seen meanwhile are kept."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read_message()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def page(self, method: str, **params: Any) -> dict[str, Any]:
        """A command to the page's session."""
        return self.call(method, session=self.session, **params)

    def wait_for(self, method: str) -> dict[str, Any]:
        """Block until the event ``method`` arrives (kept in :attr:`events` too)."""
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            event = self._read_message()
            self.events.append(event)
            if event.get("method") == method:
                return event

    def open(self, url: str, *, offline: bool = True) -> None:
        """Load ``url`` with console, log and network events on (network off when offline)."""
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.page(f"{domain}.enable")
        self.page(
            "Emulation.setDeviceMetricsOverride",
            width=self.width,
            height=self.height,
            deviceScaleFactor=1,
            mobile=False,
        )
        if offline:
            self.page(
                "Network.emulateNetworkConditions",
                offline=True,
                latency=0,
                downloadThroughput=-1,
                uploadThroughput=-1,
            )
        self.page("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page."""
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and browser log errors seen so far."""
        out = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append(str(params["exceptionDetails"]))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append(str(params.get("args")))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                out.append(str(params["entry"]))
        return out

    def requested_urls(self) -> list[str]:
        """Every URL the page requested."""
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def screenshot(self, path: Path) -> Path:
        """A PNG of the viewport."""
        data = self.page("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        """End the browser and remove its profile."""
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)
