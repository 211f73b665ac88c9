#!/usr/bin/env bash
# GPU figures for docs/scale.md, each beside its CPU figure in the same run: the learner's
# gradient steps (bench/learner_speed.py) and a self-play worker's games with its network on
# the GPU and on one core (bench/selfplay_speed.py). Run on the GPU machine after the wheels
# are installed (scripts/gpu_burst.sh says how); prints figures, writes nothing. Self-play in
# float32 whatever the config says (selfplay.inference_dtype), as docs/scale.md's figures were.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
GPU=${DEVICE:-cuda}
export PYTHONUNBUFFERED=1
for config in configs/stereo_go.yaml configs/stereo_go_cylinder.yaml configs/fangqi_b.yaml; do
  echo "== learner: $config"
  timeout 60 "$PY" bench/learner_speed.py --config "$config" --device "$GPU" --steps 200
done
echo "== learner on the CPU, 4 threads: configs/stereo_go.yaml"
timeout 60 "$PY" bench/learner_speed.py --config configs/stereo_go.yaml --device cpu --threads 4 \
  --steps 10
for config in configs/stereo_go_9x9.yaml configs/fangqi_b.yaml; do
  for device in "$GPU" cpu; do
    echo "== self-play, one worker: $config, network on $device"
    timeout 90 "$PY" bench/selfplay_speed.py --config "$config" --games 16 --positions 0 \
      --device "$device" --inference-dtype float32
  done
done
