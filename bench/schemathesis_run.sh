#!/usr/bin/env bash
# schemathesis over the whole API with every check on (responses, status codes, content types,
# headers, the schema, auth, unsupported methods and Allow), against a server of its own on a
# fresh SQLite database (or QIZERO_DATABASE_URL's PostgreSQL database): 0 failures expected.
#
#   bench/schemathesis_run.sh [examples-per-operation] [extra schemathesis arguments...]
#
# Every phase runs (examples, coverage, fuzzing, then stateful: sequences that create sessions,
# players and challenges and follow their ids into the other routes).
# PYTHON (default python3) runs the server from this checkout; SCHEMATHESIS (default
# schemathesis) is the schemathesis 4 command; PORT (default 8731) the server's port; SEED
# (default 1) makes the run repeatable; WORKERS (default 1: two tripped a thread-safety error
# inside hypothesis, an error of the tool, not a failure) its concurrency. Two players, a
# session and a challenge are made first; their ids and tokens fill the path parameters and the
# Authorization header (bench/schemathesis.toml), so generated requests reach each route's
# logic. Prints schemathesis's summary, the number of requests and the wall time.
set -euo pipefail

MAX_EXAMPLES=${1:-50}
shift || true
PYTHON=${PYTHON:-python3}
SCHEMATHESIS=${SCHEMATHESIS:-schemathesis}
PORT=${PORT:-8731}
SEED=${SEED:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
WORK=$(mktemp -d)
BASE="http://127.0.0.1:$PORT"

cd "$ROOT"
QIZERO_DATABASE_PATH="$WORK/sessions.sqlite3" QIZERO_SEARCH_PROCESSES=0 QIZERO_AI_WORKERS=2 \
QIZERO_LADDER_ADMIN_TOKEN=schemathesis-admin \
  "$PYTHON" -m uvicorn --factory serving.app:app_from_env --host 127.0.0.1 --port "$PORT" \
  --log-level warning >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; rm -rf "$WORK"' EXIT

for _ in $(seq 300); do
  curl -sf "$BASE/v1/health" >/dev/null && break
  kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/server.log"; exit 1; }
  sleep 0.2
done
# Real resources for the path parameters and tokens (bench/schemathesis.toml reads them).
post() { curl -sf -H 'Content-Type: application/json' "${@:3}" -d "$2" "$BASE$1"; }
field() { "$PYTHON" -c "import json, sys; print(json.load(sys.stdin)$1)"; }
TAG=$(date +%s)  # names of their own on a database that outlives the run (PostgreSQL)
ME=$(post /v1/players "{\"name\": \"schemathesis $TAG\"}")
OTHER=$(post /v1/players "{\"name\": \"opponent $TAG\"}")
SESSION=$(post /v1/sessions '{"game": "jiugong", "turn_seconds": null}')
export QIZERO_ST_PLAYER_TOKEN=$(field '["token"]' <<<"$ME")
export QIZERO_ST_PLAYER_ID=$(field '["player"]["id"]' <<<"$ME")
export QIZERO_ST_SESSION_ID=$(field '["session"]["id"]' <<<"$SESSION")
export QIZERO_ST_OWNER_TOKEN=$(field '["owner_token"]' <<<"$SESSION")
CHALLENGE=$(post /v1/ladder/challenges "{\"opponent\": \"$(field '["player"]["id"]' <<<"$OTHER")\"}" \
  -H "Authorization: Bearer $QIZERO_ST_PLAYER_TOKEN")
export QIZERO_ST_CHALLENGE_ID=$(field '["id"]' <<<"$CHALLENGE")

START=$(date +%s)
status=0
cd "$WORK"  # schemathesis keeps a cache folder where it runs: not in the checkout
"$SCHEMATHESIS" --config-file "$HERE/schemathesis.toml" run "$BASE/openapi.json" \
  --checks all --max-examples "$MAX_EXAMPLES" --seed "$SEED" --workers "${WORKERS:-1}" \
  --suppress-health-check all --request-timeout 30 --generation-database none --report har \
  --report-har-path "$WORK/requests.har" \
  "$@" || status=$?
REQUESTS=$("$PYTHON" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["log"]["entries"]))' \
  "$WORK/requests.har" 2>/dev/null || echo "?")
echo "schemathesis: exit $status, $REQUESTS requests, $(( $(date +%s) - START )) s"
if grep -q "Traceback" "$WORK/server.log"; then
  echo "the server logged errors:"; grep -B2 -A12 "Traceback" "$WORK/server.log" | head -60
fi
exit $status
