#!/usr/bin/env bash
# Download, on a machine that reaches PyPI, the Python 3.12 wheels that the GPU machine lacks
# for training (scripts/gpu_burst.sh installs them there from .whl/, which git ignores).
# That machine's image has torch, numpy, numba, pyyaml, tensorboard and tqdm; qizero also needs
# pydantic (the config models) and gymnasium (envs registers its Gymnasium envs on import).
# The versions are this project's .venv's, so both machines validate configs alike.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
version() { "$PY" -c "import importlib.metadata as m; print(m.version('$1'))"; }
mkdir -p .whl
for name in pydantic pydantic-core annotated-types typing-inspection typing-extensions \
            gymnasium farama-notifications; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform any -d .whl "$name==$(version "$name")"
done
ls -la .whl
