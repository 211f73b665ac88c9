"""Vendor a Chinese webfont into the web client, cut down to the characters the page uses.

    python scripts/vendor_cjk_font.py            # fetch VERSION with `npm pack`, subset, write
    python scripts/vendor_cjk_font.py --check    # only verify the committed files; no network

Why: the page's Chinese labels must render on a machine without any CJK font (else every one
is a row of boxes), and nothing may be fetched from another host at run time. A whole Chinese
font is megabytes; the page uses a few hundred characters. So the Noto Sans SC font (SIL Open
Font License 1.1) is taken once from the npm registry's tarball of a pinned
``@fontsource/noto-sans-sc`` (``npm pack``, the registry's ordinary client, which checks the
tarball's integrity), subset with fontTools to exactly the CJK characters found in
``serving/static/**/*.{js,html,css}`` plus the CJK punctuation blocks, and committed as WOFF2
under ``serving/static/fonts/`` beside the license (``OFL.txt``) and ``manifest.json`` (the
version, the tarball's integrity, each file's SHA-256 and the characters subset).

Rerun it after adding Chinese labels: ``tests/test_web_font.py`` fails while a character used
by the page is missing from the font. The output is deterministic (no timestamps; the same
characters give the same bytes), so a rerun without new characters changes nothing.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script or loaded by a test
from vendor_onnxruntime_web import check as check_manifest  # noqa: E402
from vendor_onnxruntime_web import sha256  # noqa: E402

PACKAGE = "@fontsource/noto-sans-sc"
VERSION = "5.3.0"
# The package's "chinese-simplified" slice of each weight: every GB 2312 character and more
# (7,946 code points), in a single file. Regular text and the bold of headings and buttons.
WEIGHTS = (400, 700)
SOURCE = "package/files/noto-sans-sc-chinese-simplified-{weight}-normal.woff2"
LICENSE_MEMBER = "package/LICENSE"
ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "serving" / "static"
DEST = STATIC / "fonts"
LICENSE = "OFL.txt"
SCANNED = (".js", ".html", ".css")

# What counts as a CJK character: the CJK and fullwidth blocks (radicals, symbols and
# punctuation, kana, bopomofo, enclosed and compatibility forms, ideographs and their
# extension A, compatibility ideographs, vertical and small forms, halfwidth/fullwidth forms).
CJK = re.compile(
    "[\u2e80-\u2fdf\u3000-\u30ff\u3100-\u312f\u31c0-\u31ef\u3200-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\ufe10-\ufe1f\ufe30-\ufe4f\uff00-\uffef]"
)
# Always kept, used or not: CJK symbols and punctuation (、。「」《》…) and the fullwidth forms
# (，：；！？（）), so a new sentence's punctuation renders even before a rerun.
PUNCTUATION = (range(0x3000, 0x3040), range(0xFF00, 0xFFF0))


def font_name(weight: int) -> str:
    return f"noto-sans-sc-subset-{weight}.woff2"


def used_characters(static: Path = STATIC) -> set[str]:
    """Every CJK character in the page's scripts, markup and style sheets."""
    found: set[str] = set()
    for path in static.rglob("*"):
        if path.suffix in SCANNED and path.is_file():
            found.update(CJK.findall(path.read_text(encoding="utf-8")))
    return found


def cut(source: bytes, wanted: set[int]) -> tuple[bytes, set[int]]:
    """``source`` (a font) subset to the code points of ``wanted`` it has, as WOFF2 bytes;
    and the code points it lacks."""
    font = TTFont(io.BytesIO(source), recalcTimestamp=False)
    missing = wanted - set(font.getBestCmap())
    options = subset.Options()
    options.flavor = "woff2"
    options.hinting = False  # TrueType hints: bytes for low-resolution screens only
    options.name_IDs = ["*"]  # keep the copyright and license records with the glyphs
    options.recalc_timestamp = False  # the same characters give the same bytes
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(wanted - missing))
    subsetter.subset(font)
    out = io.BytesIO()
    font.flavor = "woff2"
    font.save(out, reorderTables=False)
    return out.getvalue(), missing


def fetch(version: str, dest: Path) -> dict:
    """``npm pack`` the package, subset each weight to the page's characters, write to
    ``dest`` with the license and the manifest; fail if the font lacks a used character."""
    used = used_characters()
    wanted = {ord(c) for c in used} | {cp for block in PUNCTUATION for cp in block}
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            ["npm", "pack", f"{PACKAGE}@{version}", "--json", "--pack-destination", tmp],
            check=True, capture_output=True, text=True,
        )
        info = json.loads(out.stdout)[0]
        with tarfile.open(Path(tmp) / info["filename"]) as tar:
            license_text = tar.extractfile(LICENSE_MEMBER).read()
            sources = {w: tar.extractfile(SOURCE.format(weight=w)).read() for w in WEIGHTS}
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("*.woff2"):
        old.unlink()
    for weight, source in sources.items():
        data, missing = cut(source, wanted)
        lacking = "".join(sorted(chr(cp) for cp in missing if chr(cp) in used))
        if lacking:
            raise SystemExit(f"{PACKAGE} {weight} has no glyph for: {lacking}")
        (dest / font_name(weight)).write_bytes(data)
    (dest / LICENSE).write_bytes(license_text)
    files = [LICENSE, *(font_name(w) for w in WEIGHTS)]
    manifest = {
        "package": PACKAGE,
        "version": info["version"],
        "license": "OFL-1.1",
        "source": f"npm pack {PACKAGE}@{info['version']} ({SOURCE.format(weight='{weight}')},"
                  f" {LICENSE_MEMBER})",
        "tarball_integrity": info["integrity"],
        "characters": "".join(sorted(used)),
        "files": {
            name: {"bytes": (dest / name).stat().st_size, "sha256": sha256(dest / name)}
            for name in files
        },
    }
    (dest / "manifest.json").write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest


def missing_characters(font: Path, static: Path = STATIC) -> str:
    """The CJK characters the page uses that ``font`` has no glyph for (sorted, joined)."""
    cmap = TTFont(font).getBestCmap()
    return "".join(sorted(c for c in used_characters(static) if ord(c) not in cmap))


def font_problem(name: str, path: Path) -> str | None:
    """A subset font that lacks a character the page uses."""
    if name.endswith(".woff2") and (lacking := missing_characters(path)):
        return f"no glyph for {lacking} (rerun scripts/vendor_cjk_font.py)"
    return None


def check(dest: Path) -> list[str]:
    """What differs between the committed files and their manifest, glyphs included."""
    return check_manifest(dest, font_problem)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", default=VERSION, help=f"default {VERSION}")
    parser.add_argument("--check", action="store_true", help="verify only; no network")
    args = parser.parse_args()
    if not args.check:
        manifest = fetch(args.version, DEST)
        print(f"{len(manifest['characters'])} characters used by the page")
        for name, facts in manifest["files"].items():
            print(f"{name}: {facts['bytes']:,} bytes, sha256 {facts['sha256']}")
    problems = check(DEST)
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
