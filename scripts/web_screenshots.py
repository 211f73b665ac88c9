"""Screenshots of every screen of the web client, at desktop and phone size, in both languages.

Why: docs/web_client.md shows each screen as a new user meets it, and the pictures must come
from the page as it is, not from memory. The script starts the real service (`qizero serve`,
a fresh SQLite database, the shipped checkpoints), sets the positions up through the public
API and photographs them with Chromium (Playwright), so rerunning it after a change to the
page renews every picture:

    .venv/bin/python scripts/web_screenshots.py            # all screens -> docs/img/screens/
    .venv/bin/python scripts/web_screenshots.py --only start rules

and rewrites the table between the screenshot markers of docs/web_client.md.

Needs Chromium at /usr/bin/chromium and Playwright for Python (both used by the browser tests).
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img" / "screens"
DOC = ROOT / "docs" / "web_client.md"
BEGIN, END = "<!-- screenshots:begin -->", "<!-- screenshots:end -->"
CHROMIUM = Path("/usr/bin/chromium")
SIZES = {"desktop": (1366, 800), "phone": (390, 844)}
LANGUAGES = ("en", "zh")


@dataclass(frozen=True)
class Shot:
    """One screen: ``open_page`` brings the page to it (the language is already chosen)."""

    name: str
    title: str
    open_page: Callable[[Any, str], None]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_service() -> Iterator[str]:
    """`qizero serve` on a free port with a throwaway database; its base URL."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "QIZERO_DATABASE_PATH": str(Path(tmp) / "screens.sqlite3")}
        qizero = Path(sys.executable).with_name("qizero")
        proc = subprocess.Popen([str(qizero), "serve", "--port", str(port)], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(240):
                try:
                    if httpx.get(url + "/v1/games", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if proc.poll() is not None:
                    raise SystemExit(f"qizero serve exited with {proc.returncode}")
                time.sleep(0.5)
            else:
                raise SystemExit("qizero serve did not answer within 2 minutes")
            yield url
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def _session(url: str, game: str, moves: int, seed: int = 1, **body: Any) -> str:
    """A session with people in every seat and ``moves`` random legal moves (no passes); the
    fragment that opens it."""
    r = httpx.post(f"{url}/v1/sessions", json={"game": game, **body}, timeout=30)
    r.raise_for_status()
    sid, token = r.json()["session"]["id"], r.json()["owner_token"]
    rng = random.Random(seed)
    auth = {"Authorization": f"Bearer {token}"}
    view = r.json()["session"]
    for _ in range(moves):
        if view["turn_complete"]:  # a game whose turns wait for confirmation (TriGolden)
            r = httpx.post(f"{url}/v1/sessions/{sid}/confirm", headers=auth,
                           json={"version": view["version"]}, timeout=60)
            r.raise_for_status()
            view = r.json()
        legal = [m for m in view["position"]["legal_moves"] if m != "pass"]
        if not legal:
            break
        r = httpx.post(f"{url}/v1/sessions/{sid}/moves", headers=auth,
                       json={"move": rng.choice(legal), "version": view["version"]}, timeout=60)
        r.raise_for_status()
        view = r.json()
    return f"#session={sid}&token={token}"


def _game(game: str, moves: int, **body: Any) -> Callable[[Any, str], None]:
    def open_page(page: Any, url: str) -> None:
        page.goto(url + "/" + _session(url, game, moves, **body))
        page.wait_for_selector("#game-screen:not([hidden])")
        page.wait_for_timeout(500)  # the event stream's first view
    return open_page


def _analysis(page: Any, url: str) -> None:
    """A Stereo Go 9x9 position with the analysis mode on: top moves and ownership drawn."""
    _game("stereo_go", 20, config={"board": "9x9"})(page, url)
    page.check("#analysis-toggle")
    page.wait_for_selector('.analysis-progress[data-final="true"]', timeout=120_000)


def _review(page: Any, url: str) -> None:
    """A finished Jiugong game (random moves to the end) and its review."""
    _game("jiugong", 10_000)(page, url)
    page.click("#review-open")
    page.wait_for_selector("#mistakes", timeout=120_000)


def _start(page: Any, url: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("fieldset.seats select")


def _rules(page: Any, url: str) -> None:
    _start(page, url)
    page.click("#start-rules")
    page.wait_for_selector("#rules-dialog[open]")


_NEWCOMERS = itertools.count(1)


def _ladder(tab: str) -> Callable[[Any, str], None]:
    def open_page(page: Any, url: str) -> None:
        page.goto(url + "/")
        page.click("#ladder-link")
        page.wait_for_selector("#ladder-screen:not([hidden]) #ladder-account")
        # One service for every picture: each registers a name of its own (names are unique).
        page.fill("#ladder-reg-name", f"Newcomer {next(_NEWCOMERS)}")
        page.click("#ladder-register-button")
        page.wait_for_selector("#ladder-token")
        if tab != "lobby":
            page.click(f'.ladder-tabs [data-tab="{tab}"]')
        page.wait_for_timeout(500)
    return open_page


SHOTS = [
    Shot("start", "Start screen", _start),
    Shot("rules", "Rules dialog", _rules),
    Shot("jiugong", "Jiugong game", _game("jiugong", 12)),
    Shot("fangqi", "Fang Qi game", _game("fangqi", 20)),
    Shot("trigolden", "TriGolden game", _game("trigolden", 8)),
    Shot("stereo_go", "Stereo Go (the cylinder)", _game("stereo_go", 16)),
    Shot("stereo_go_9x9", "Stereo Go on 9×9", _game("stereo_go", 16, config={"board": "9x9"})),
    Shot("analysis", "Analysis mode (9×9)", _analysis),
    Shot("review", "Review after a game (Jiugong)", _review),
    Shot("ladder_lobby", "Ladder lobby", _ladder("lobby")),
    Shot("ladder_leaderboard", "Leaderboard", _ladder("leaderboard")),
    Shot("ladder_profile", "Ladder profile", _ladder("profile")),
]


def take(url: str, shots: list[Shot]) -> list[Path]:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=["--no-sandbox"])
        for shot in shots:
            for size, (width, height) in SIZES.items():
                for lang in LANGUAGES:
                    context = browser.new_context(
                        viewport={"width": width, "height": height},
                        has_touch=size == "phone", is_mobile=size == "phone",
                        device_scale_factor=1)
                    context.add_init_script(f"localStorage.setItem('qizero.lang', '{lang}')")
                    page = context.new_page()
                    page.set_default_timeout(30_000)
                    shot.open_page(page, url)
                    path = OUT / f"{shot.name}-{size}-{lang}.png"
                    page.screenshot(path=str(path))
                    written.append(path)
                    context.close()
        browser.close()
    return written


def markdown(shots: list[Shot]) -> str:
    """The docs' table: a row per screen, a picture per size and language."""
    head = [f"{size} {width}×{height}, {lang}" for size, (width, height) in SIZES.items()
            for lang in LANGUAGES]
    rows = ["| screen | " + " | ".join(head) + " |", "|" + " --- |" * (len(head) + 1)]
    for shot in shots:
        cells = [f"![{shot.title}, {size}, {lang}](img/screens/{shot.name}-{size}-{lang}.png)"
                 for size in SIZES for lang in LANGUAGES]
        rows.append(f"| {shot.title} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def rewrite_doc(shots: list[Shot]) -> None:
    text = DOC.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOC.write_text(text[:start] + "\n" + markdown(shots) + "\n" + text[end:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="screen names (default: all): "
                        + ", ".join(s.name for s in SHOTS))
    parser.add_argument("--url", help="photograph a service already running here instead")
    args = parser.parse_args()
    shots = [s for s in SHOTS if not args.only or s.name in args.only]
    if args.url:
        written = take(args.url.rstrip("/"), shots)
    else:
        with running_service() as url:
            written = take(url, shots)
    for path in written:
        print(path.relative_to(ROOT))
    rewrite_doc(SHOTS)


if __name__ == "__main__":
    main()
