"""How long ``qizero serve`` takes to stop, and whether its search processes outlive it.

Starts a server on a free 127.0.0.1 port (shipped checkpoints, a temporary SQLite file,
``--search-processes`` workers), serves a few suggestions, opens an event stream on an AI seat
session and, with ``--mode busy``, sends ``--in-flight`` Stereo Go suggestions that are still
searching; then sends SIGTERM (``--mode kill``: SIGKILL) and prints the seconds until the
process exits, how the waiting requests ended, and which child processes are left after
``--after`` seconds (a zombie counts as ended). Survivors are killed before the script ends.

Usage: python bench/serve_shutdown.py [--mode idle|busy|kill] [--search-processes 2]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["idle", "busy", "kill"], default="busy")
    parser.add_argument("--search-processes", type=int, default=2)
    parser.add_argument("--in-flight", type=int, default=4)
    parser.add_argument("--after", type=float, default=1.0)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="qizero-stop-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(tmp / "server.log", "w")  # noqa: SIM115
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "qizero_cli", "serve", "--port", str(port), "--database",
         str(tmp / "db.sqlite3"), "--search-processes", str(args.search_processes)],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    client = httpx.Client(base_url=url, timeout=120)
    while True:
        try:
            if client.get("/v1/health").status_code == 200:
                break
        except httpx.TransportError:
            pass
        if proc.poll() is not None:
            raise SystemExit(f"the server did not start: see {tmp / 'server.log'}")
        time.sleep(0.05)
    print(f"/v1/health answered {time.monotonic() - started:.1f} s after the start")
    while client.get("/v1/ready").status_code != 200:
        time.sleep(0.1)
    print(f"/v1/ready answered 200 {time.monotonic() - started:.1f} s after the start")
    kids = children(proc.pid)
    for _ in range(3):
        client.post("/v1/games/jiugong/suggest", json={"moves": []}).raise_for_status()
    body = client.post("/v1/sessions", json={"game": "jiugong", "turn_seconds": None,
                                             "seats": {"north": {"type": "ai"}}}).json()
    outcomes: list[str] = []

    def stream() -> None:
        try:
            with httpx.stream("GET", f"{url}/v1/sessions/{body['session']['id']}/events",
                              timeout=None) as r:
                for _ in r.iter_lines():
                    pass
            outcomes.append("stream: ended")
        except httpx.TransportError as exc:
            outcomes.append(f"stream: {type(exc).__name__}")

    def suggest() -> None:
        try:
            r = httpx.post(f"{url}/v1/games/stereo_go/suggest", json={"moves": []},
                           timeout=None)
            outcomes.append(f"suggestion: {r.status_code}")
        except httpx.TransportError as exc:
            outcomes.append(f"suggestion: {type(exc).__name__}")

    threads = [threading.Thread(target=stream, daemon=True)]
    if args.mode != "idle":
        threads += [threading.Thread(target=suggest, daemon=True) for _ in range(args.in_flight)]
    for t in threads:
        t.start()
    time.sleep(1.0)  # let the requests arrive and the searches start
    sig = signal.SIGKILL if args.mode == "kill" else signal.SIGTERM
    t0 = time.monotonic()
    proc.send_signal(sig)
    try:
        proc.wait(timeout=120)
        print(f"exit {time.monotonic() - t0:.2f} s after {sig.name} (status {proc.returncode})")
    except subprocess.TimeoutExpired:
        print(f"no exit 120 s after {sig.name}: killed")
        proc.kill()
        proc.wait()
    for t in threads:
        t.join(10)
    print("waiting requests:", ", ".join(sorted(outcomes)) or "none")
    time.sleep(args.after)
    left = [pid for pid in kids if running(pid)]
    print(f"child processes left {args.after:g} s after the exit: {left or 'none'}")
    for pid in left:
        os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
