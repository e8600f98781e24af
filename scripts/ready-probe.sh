#!/usr/bin/env bash
# ready-probe.sh: how long /ready takes to turn 503 when PostgreSQL stops and 200 when it is back.
# It starts a throwaway PostgreSQL cluster and one `studio serve --worker=false` on it, polls
# /ready every 20 ms, stops the cluster (pg_ctl -m fast), then starts it again, and prints both
# delays. Everything lives in a temporary folder removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

work=$(mktemp -d /tmp/studio-ready.XXXXXX)
chmod 755 "$work"
pid=
cleanup() {
	[[ -n $pid ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	stop_pg "$work/pg"
	rm -rf "$work"
}
trap cleanup EXIT

start_pg "$work/pg"
go build -o "$work/studio" ./cmd/studio
port=$(free_port 18400)
STUDIO_ADDR=127.0.0.1:$port STUDIO_DATA_DIR=$work/data DATABASE_URL=$TEST_DATABASE_URL \
	"$work/studio" serve --worker=false >"$work/studio.log" 2>&1 &
pid=$!

# until CODE: poll /ready until it answers CODE; print the milliseconds it took.
until_code() {
	local want=$1 start code
	start=$(now_ms)
	while :; do
		code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$port/ready" || true)
		[[ $code == "$want" ]] && break
		(($(now_ms) - start < 120000)) || die "/ready never answered $want (last $code; log $work/studio.log)"
		sleep 0.02
	done
	echo $(($(now_ms) - start))
}

until_code 200 >/dev/null
bin=$(pg_bindir)
as_pg "$bin/pg_ctl" -D "$work/pg/data" -m fast -w stop >/dev/null
down=$(until_code 503)
as_pg "$bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/postgres.log" -w start >/dev/null
up=$(until_code 200)
echo "ready-probe: /ready 503 ${down} ms after PostgreSQL stopped; 200 ${up} ms after it was back"
