#!/usr/bin/env bash
# A training burst on a GPU machine: resume the newest stage of a long run, train for MINUTES
# with the GPU for the learner and for every self-play worker's network, the cores for the
# workers' search and rules, and leave the new stages where they can be brought back and
# committed.
#
#   scripts/gpu_burst.sh CONFIG STAGE_FOLDER MINUTES [--set SECTION.KEY=VALUE ...]
#   e.g. scripts/gpu_burst.sh configs/fangqi_b.yaml checkpoints/fangqi/stages/b 6
#
# From a fresh checkout: the machine needs Python with torch, numpy, numba, pyyaml,
# tensorboard and tqdm; what else qizero needs (pydantic, gymnasium) is installed from the
# wheels in .whl/ (scripts/gpu_wheels.sh downloads them where PyPI is reachable), into
# /tmp/qizero-site, so nothing outside /tmp changes. qizero itself runs from the checkout.
#
# One worker per core but one (the learner's); each iteration's games are scaled to give every
# worker one batch (selfplay.batch_games), and the gradient steps in proportion, so the run
# keeps its config's samples-per-step ratio. An empty STAGE_FOLDER starts the run. With $OUT
# set (the device tool), the stage folder's new files go to $OUT/stage.tgz (unpack it in the
# repository root). The CPU path stays the default: nothing here is needed to train on a CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then
  sed -n '2,8p' "$0"; exit 2
fi
CONFIG=$1; STAGES=$2; MINUTES=$3; shift 3
PY=${PYTHON:-python3}

if ! "$PY" -c "import pydantic, gymnasium" 2>/dev/null; then
  [ -d .whl ] || { echo "pydantic/gymnasium missing and no .whl/ (run scripts/gpu_wheels.sh)"; exit 1; }
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/qizero-site .whl/*.whl
  export PYTHONPATH=/tmp/qizero-site${PYTHONPATH:+:$PYTHONPATH}
fi
"$PY" -c "import torch; print('torch', torch.__version__, 'cuda:', torch.cuda.is_available(),
          torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"

WORKERS=${WORKERS:-$(( $(nproc) > 2 ? $(nproc) - 1 : 1 ))}
read -r GAMES STEPS < <("$PY" - "$CONFIG" "$WORKERS" "$@" <<'PYEOF'
import sys
from training.config import load_config, with_overrides
cfg = load_config(sys.argv[1])
workers = int(sys.argv[2])
cfg = with_overrides(cfg, [a for a in sys.argv[3:] if a != "--set"])
games = max(cfg.selfplay.games_per_iteration, workers * cfg.selfplay.batch_games)
steps = round(cfg.training.steps_per_iteration * games / cfg.selfplay.games_per_iteration)
print(games, steps)
PYEOF
)
if ls "$STAGES"/stage-*.pt >/dev/null 2>&1; then
  WHERE=(--resume-stage "$STAGES")
else
  WHERE=(--stage-dir "$STAGES")
fi
before=$(ls "$STAGES"/stage-*.pt 2>/dev/null || true)
echo "burst: $CONFIG, $WORKERS workers, $GAMES games and $STEPS steps an iteration, $MINUTES min"
set +e
"$PY" qizero_cli.py train "$CONFIG" "${WHERE[@]}" --minutes "$MINUTES" --no-progress \
  --stage-every "${STAGE_EVERY:-5}" --run-dir "${RUN_DIR:-/tmp/qizero-burst-run}" \
  --set selfplay.workers="$WORKERS" --set selfplay.device=auto --set training.device=auto \
  --set selfplay.games_per_iteration="$GAMES" --set training.steps_per_iteration="$STEPS" "$@"
rc=$?
set -e
new=()
for f in "$STAGES"/stage-*.pt; do
  [ -e "$f" ] || continue
  grep -qxF "$f" <<<"$before" || new+=("$f")
done
echo "burst: training exited $rc; new stages: ${new[*]:-none}"
if [ -n "${OUT:-}" ] && [ ${#new[@]} -gt 0 ]; then
  tar czf "$OUT/stage.tgz" "${new[@]}" "$STAGES/log.jsonl" "$STAGES/config.yaml"
  echo "burst: $OUT/stage.tgz"
fi
exit $rc
