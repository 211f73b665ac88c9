"""Every document stands on its own: the rules and source texts the code and docs cite are in
the repository (docs/rules/, docs/sources/), and no text points at a folder outside it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("envs", "agents", "training", "serving", "bench", "scripts", "tests", "docs", "configs",
           "examples")
SUFFIXES = {".py", ".md", ".js", ".txt", ".yaml", ".sh"}
# A cited document: a path inside the repository ending in .md or .txt.
CITED = re.compile(
    r"(?<![\w./-])((?:docs|envs|agents|training|serving|bench|scripts|configs|examples)/"
    r"[\w./-]+\.(?:md|txt))"
)
OUTSIDE = re.compile(r"\.\./shared|(?<![\w/])(?:seeds|rules)/[\w-]+\.(?:txt|md)")


def _texts() -> list[Path]:
    found = [ROOT / "README.md"]
    for folder in FOLDERS:
        found += [p for p in (ROOT / folder).rglob("*")
                  if p.is_file() and p.suffix in SUFFIXES and "node_modules" not in p.parts]
    return sorted(found)


@pytest.mark.parametrize("path", _texts(), ids=lambda p: str(p.relative_to(ROOT)))
def test_cited_documents_exist_in_the_repository(path: Path) -> None:
    if path == Path(__file__):
        return
    text = path.read_text(encoding="utf-8", errors="replace")
    missing = sorted({m for m in CITED.findall(text) if not (ROOT / m).exists()})
    assert not missing, (f"{path.relative_to(ROOT)} cites documents that are not in the "
                         f"repository: {missing}")
    outside = sorted(set(OUTSIDE.findall(text)))
    assert not outside, (f"{path.relative_to(ROOT)} points outside the repository: {outside} "
                         "(the rules are in docs/rules/, the source texts in docs/sources/)")
