"""Vendor onnxruntime-web's WebAssembly build into the web client (the offline mode's network).

    python scripts/vendor_onnxruntime_web.py            # fetch VERSION with `npm pack`
    python scripts/vendor_onnxruntime_web.py --check    # only verify the committed files

Why vendored and committed: the page must run its networks with no server and no CDN, and a
fresh machine must serve it without npm. So the few files the in-page inference needs are
taken once from the npm registry's tarball of a pinned version (``npm pack``, the registry's
ordinary client, which checks the tarball's integrity) and committed under
``serving/static/offline/ort/``, with ``manifest.json`` recording the version, the tarball's
integrity and each file's SHA-256 (``tests/test_web_offline.py`` checks them).

The files: ``ort.wasm.bundle.min.mjs`` (ONNX Runtime Web's ES module for the WebAssembly
backend only, its Emscripten loader inlined) and ``ort-wasm-simd-threaded.wasm`` (the runtime;
it runs single-threaded unless the page is cross-origin isolated, which qizero's is not).
No WebGL/WebGPU builds: these networks are tiny and the CPU is the fast path for them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

PACKAGE = "onnxruntime-web"
VERSION = "1.31.1"
FILES = ("ort.wasm.bundle.min.mjs", "ort-wasm-simd-threaded.wasm")
ROOT = Path(__file__).resolve().parents[1]
DEST = ROOT / "serving" / "static" / "offline" / "ort"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch(version: str, dest: Path) -> dict:
    """``npm pack`` the package into a temporary folder and copy FILES to ``dest``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            ["npm", "pack", f"{PACKAGE}@{version}", "--json", "--pack-destination", tmp],
            check=True, capture_output=True, text=True,
        )
        info = json.loads(out.stdout)[0]
        with tarfile.open(Path(tmp) / info["filename"]) as tar:
            dest.mkdir(parents=True, exist_ok=True)
            for name in FILES:
                member = tar.getmember(f"package/dist/{name}")
                data = tar.extractfile(member).read()
                (dest / name).write_bytes(data)
    manifest = {
        "package": PACKAGE,
        "version": info["version"],
        "license": "MIT",
        "source": f"npm pack {PACKAGE}@{info['version']} (package/dist/)",
        "tarball_integrity": info["integrity"],
        "files": {
            name: {"bytes": (dest / name).stat().st_size, "sha256": sha256(dest / name)}
            for name in FILES
        },
    }
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def check(dest: Path, file_problem: Callable[[str, Path], str | None] | None = None) -> list[str]:
    """What differs between the committed files and their manifest (empty when all agree);
    ``file_problem(name, path)`` adds a vendor's own check of a file that matches it."""
    manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    problems = []
    for name, facts in manifest["files"].items():
        path = dest / name
        if not path.is_file():
            problems.append(f"{name}: missing")
        elif sha256(path) != facts["sha256"]:
            problems.append(f"{name}: SHA-256 differs from the manifest")
        elif file_problem is not None and (found := file_problem(name, path)):
            problems.append(f"{name}: {found}")
    extra = {p.name for p in dest.iterdir()} - set(manifest["files"]) - {"manifest.json"}
    problems += [f"{name}: not in the manifest" for name in sorted(extra)]
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", default=VERSION, help=f"default {VERSION}")
    parser.add_argument("--check", action="store_true", help="verify only; no network")
    args = parser.parse_args()
    if not args.check:
        manifest = fetch(args.version, DEST)
        for name, facts in manifest["files"].items():
            print(f"{name}: {facts['bytes']:,} bytes, sha256 {facts['sha256']}")
    problems = check(DEST)
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
