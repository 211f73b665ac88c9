"""The vendored Chinese webfont (serving/static/fonts, scripts/vendor_cjk_font.py).

The font is subset to the CJK characters the page's files use: a Chinese label added without
rerunning the script would render from whatever font the machine has (boxes on one without a
CJK font), so these tests fail until it is rerun. The browser side (the font loads when the
page shows Chinese) is in tests/test_web_i18n.py.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from pathlib import Path

from fontTools.ttLib import TTFont

from serving.app import STATIC_DIR

ROOT = Path(__file__).resolve().parents[1]
FONTS = STATIC_DIR / "fonts"
_spec = importlib.util.spec_from_file_location("vendor_cjk_font",
                                               ROOT / "scripts" / "vendor_cjk_font.py")
vendor = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vendor)
MANIFEST = json.loads((FONTS / "manifest.json").read_text(encoding="utf-8"))
FONT_FILES = sorted(FONTS.glob("*.woff2"))


def test_every_chinese_character_of_the_page_is_in_the_font():
    used = vendor.used_characters(STATIC_DIR)
    assert len(used) > 200 and "中" in used and "棋" in used  # the scan finds the labels
    assert [p.name for p in FONT_FILES] == [vendor.font_name(w) for w in vendor.WEIGHTS]
    for font in FONT_FILES:
        cmap = TTFont(font).getBestCmap()
        lacking = "".join(sorted(c for c in used if ord(c) not in cmap))
        assert not lacking, f"{font.name} has no glyph for {lacking}: rerun " \
                            "scripts/vendor_cjk_font.py"
        # CJK punctuation is kept even where no label uses it yet
        assert all(ord(c) in cmap for c in "，。：；！？（）、《》「」"), font.name


def test_a_new_label_without_a_rerun_is_caught(tmp_path):
    """The check above looks at the page's files as they are: a character only a new file
    uses is reported missing."""
    (tmp_path / "new.js").write_text("export const label = '饕餮';  // not in the page yet\n",
                                     encoding="utf-8")
    assert vendor.used_characters(tmp_path) == {"饕", "餮"}
    assert vendor.missing_characters(FONT_FILES[0], tmp_path) == "餮饕"
    assert vendor.missing_characters(FONT_FILES[0], STATIC_DIR) == ""


def test_the_font_is_the_npm_package_with_its_license():
    assert MANIFEST["package"] == vendor.PACKAGE and MANIFEST["license"] == "OFL-1.1"
    assert f'VERSION = "{MANIFEST["version"]}"' in (ROOT / "scripts" /
                                                     "vendor_cjk_font.py").read_text()
    license_text = (FONTS / vendor.LICENSE).read_text()
    assert "SIL OPEN FONT LICENSE Version 1.1" in license_text
    on_disk = {p.name for p in FONTS.iterdir()} - {"manifest.json"}
    assert on_disk == set(MANIFEST["files"]) and vendor.LICENSE in on_disk
    for name, facts in MANIFEST["files"].items():
        data = (FONTS / name).read_bytes()
        assert len(data) == facts["bytes"], name
        assert hashlib.sha256(data).hexdigest() == facts["sha256"], name
    assert MANIFEST["characters"] == "".join(sorted(vendor.used_characters(STATIC_DIR)))
    assert vendor.check(FONTS) == []
    for font in FONT_FILES:  # the font's own name records still carry its copyright and name
        names = TTFont(font)["name"]
        assert str(names.getDebugName(0)).startswith("(c)"), font.name
        assert names.getDebugName(1).startswith("Noto Sans SC"), font.name


def test_the_style_sheet_declares_each_weight():
    css = (STATIC_DIR / "style.css").read_text()
    faces = re.findall(r"@font-face\s*\{([^}]*)\}", css)
    declared = {re.search(r'url\("fonts/([^"]+)"\)', f).group(1): f for f in faces}
    assert set(declared) == {p.name for p in FONT_FILES}
    for weight in vendor.WEIGHTS:
        face = declared[vendor.font_name(weight)]
        assert f"font-weight: {weight};" in face and 'format("woff2")' in face
        assert '"qizero Noto Sans SC"' in face
    assert re.search(r':lang\(zh\)[^{]*\{\s*font-family: "qizero Noto Sans SC"', css)
