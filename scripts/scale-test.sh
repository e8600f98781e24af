#!/usr/bin/env bash
# make scale-test: TestScale (cmd/studio) at length, outside CI (issue 30): two API instances and
# two workers as separate processes on one throwaway PostgreSQL and one versitygw bucket, started
# here, with HOUSES houses of DEVELOPS develops each (default 20 x 25 = 500) rendered in RENDER
# (default 1s) at a provider stand-in, through the faults make test's short form runs (a worker
# killed mid-render, a worker and an API instance restarted). It prints the figures docs/scale.md
# quotes, and draws api-b's queue depth, holds pending and running jobs over the run into GRAPH
# (a PNG, default .cache/scale-test.png). Without -race: the figures measure coordination, not
# the race detector.
#   make scale-test HOUSES=4 DEVELOPS=10
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

ensure_packages postgresql
install_versitygw "$ROOT"
install_promtool "$ROOT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/studio-scale.XXXXXX")
chmod 755 "$WORK" # the postgres user must reach $WORK/pg
cleanup() {
	stop_s3 "$WORK/s3"
	stop_pg "$WORK/pg"
	rm -rf "$WORK"
}
trap cleanup EXIT
start_pg "$WORK/pg"
start_s3 "$ROOT" "$WORK/s3"
GRAPH=${GRAPH:-$ROOT/.cache/scale-test.png}
mkdir -p "$(dirname "$GRAPH")"
go test -run '^TestScale$' -count=1 -timeout 0 -v ./cmd/studio \
	-scale.houses="${HOUSES:-20}" -scale.develops="${DEVELOPS:-25}" -scale.render="${RENDER:-1s}" -scale.graph="$GRAPH"
log "graph of api-b's /metrics over the run (queue depth, holds pending, running): $GRAPH"
