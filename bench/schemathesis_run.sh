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
# (default 1) makes the run repeatable. A player is registered first and its token sent with
# every request, so the ladder's authenticated routes are reached. Prints schemathesis's summary
# and the wall time.
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
TOKEN=$(curl -sf -H 'Content-Type: application/json' -d '{"name": "schemathesis"}' \
  "$BASE/v1/players" | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["token"])')

START=$(date +%s)
status=0
"$SCHEMATHESIS" --config-file "$HERE/schemathesis.toml" run "$BASE/openapi.json" \
  --checks all --max-examples "$MAX_EXAMPLES" --seed "$SEED" --workers "${WORKERS:-1}" \
  --suppress-health-check all --request-timeout 30 --generation-database none --report har \
  --report-har-path "$WORK/requests.har" \
  -H "Authorization: Bearer $TOKEN" "$@" || status=$?
REQUESTS=$("$PYTHON" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["log"]["entries"]))' \
  "$WORK/requests.har" 2>/dev/null || echo "?")
echo "schemathesis: exit $status, $REQUESTS requests, $(( $(date +%s) - START )) s"
if grep -q "Traceback" "$WORK/server.log"; then
  echo "the server logged errors:"; grep -B2 -A12 "Traceback" "$WORK/server.log" | head -60
fi
exit $status
