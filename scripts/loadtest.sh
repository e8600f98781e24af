#!/usr/bin/env bash
# Load tests of the studio against a bare net/http program doing the same
# work on the same SQLite file (issues #2 and #9), each pair side by side in
# one run, with wrk -t2:
#
#   GET /health       the cheapest JSON route through the whole middleware stack
#                     (request id, panic guard, the log line, the metrics) vs a bare
#                     hello encoding the same body (neither touches the database)
#   GET /posts/{id}   an authenticated read of one row vs the same read, no auth
#   GET /posts        an authenticated list of ten rows vs the same list
#
#   scripts/loadtest.sh [seconds] [connections]
#
# ROUNDS=n repeats each pair's studio-bare-bare-studio n times (default 1)
# and reports the ratio of the summed figures; ONLY=health (or "one row",
# "ten rows") runs one pair.
#
# Builds both binaries, starts studio on the embedded defaults in a
# temporary data folder (its log to a file, as a service's would go), signs
# up, mints a key, writes ten posts, starts the bare server on the same
# file and house, and runs wrk against each in turn.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs=${1:-10}
conns=${2:-64}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -qq -y wrk >/dev/null; }

tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/studio" ./cmd/studio
go build -o "$tmp/bare" ./internal/loadtest/bare
STUDIO_ADDR=127.0.0.1:18080 STUDIO_PUBLIC_URL=http://127.0.0.1:18080 STUDIO_DATA_DIR="$tmp/data" \
	"$tmp/studio" serve --worker=false >"$tmp/studio.log" 2>&1 &
pids+=($!)
studio_pid=$!
wait_for() {
	for _ in $(seq 300); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done
	echo "no answer from $1:" >&2
	cat "$tmp"/*.log >&2
	exit 1
}
wait_for http://127.0.0.1:18080/health

base=http://127.0.0.1:18080
curl -fsS -c "$tmp/jar" -H 'Content-Type: application/json' "$base/api/auth/sign-up/email" \
	-d '{"name":"Load","email":"load@example.com","password":"a long password"}' >/dev/null
house=$(curl -fsS -b "$tmp/jar" "$base/api/auth/get-session" | sed -E 's/.*"activeOrganizationId":"([^"]+)".*/\1/')
key=$(curl -fsS -b "$tmp/jar" -H "Origin: $base" -H 'Content-Type: application/json' "$base/api/keys" \
	-d '{"name":"load"}' | sed -E 's/.*"key":"([^"]+)".*/\1/')
for i in $(seq 10); do
	curl -fsS -H "Authorization: Bearer $key" -H 'Content-Type: application/json' "$base/posts" \
		-d "{\"title\":\"Post $i\",\"body\":\"Spring, ten frames for the lookbook.\"}" >/dev/null
done

"$tmp/bare" -data "$tmp/data" -house "$house" -addr 127.0.0.1:18081 >"$tmp/bare.log" 2>&1 &
pids+=($!)
bare_pid=$!
wait_for http://127.0.0.1:18081/posts

post=$(curl -fsS -H "Authorization: Bearer $key" "$base/posts" | sed -E 's/.*"id":"([^"]+)".*/\1/')
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # user + system CPU of a process, in clock ticks
# run PID FILE wrk-args...: one wrk run against the server PID; appends
# "requests cpu-ticks" of the run to FILE.
run() {
	local pid=$1 out=$2
	shift 2
	local t0 t1
	t0=$(ticks "$pid")
	wrk -t2 -c"$conns" -d"${secs}s" "$@" >"$tmp/last.wrk"
	t1=$(ticks "$pid")
	grep -E 'Latency|Requests/sec|Non-2xx' "$tmp/last.wrk"
	echo "$(awk '/requests in/ {print $1}' "$tmp/last.wrk") $((t1 - t0))" >>"$out"
}
pair() { # name, studio path, bare path, studio's wrk flags...
	local name=$1 sp=$2 bp=$3
	shift 3
	versus "$name" bare "$bare_pid" "http://127.0.0.1:18081$bp" "" "$sp" "$@"
}
versus() { # name, other's name, other's pid, other's url, other's auth header, studio path, studio's wrk flags...
	# Studio, other, other, studio (ABBA), so that a load drifting during the
	# run (other work on the machine) weighs on both sides alike. Two
	# ratios: requests per second, and the server's CPU per request (the
	# ceiling on a busy machine, and steadier when other work shares it).
	local name=$1 other=$2 opid=$3 ourl=$4 oauth=$5 sp=$6
	shift 6
	if [ -n "${ONLY:-}" ] && [ "$ONLY" != "$name" ]; then return; fi
	local rounds=${ROUNDS:-1}
	local oflags=()
	if [ -n "$oauth" ]; then oflags=(-H "$oauth"); fi
	echo "== $name: studio $sp vs $other $ourl ($conns connections, $rounds x 2 x ${secs}s each)"
	: >"$tmp/s" && : >"$tmp/b"
	for _ in $(seq "$rounds"); do
		run "$studio_pid" "$tmp/s" "$@" "$base$sp"
		run "$opid" "$tmp/b" "${oflags[@]}" "$ourl"
		run "$opid" "$tmp/b" "${oflags[@]}" "$ourl"
		run "$studio_pid" "$tmp/s" "$@" "$base$sp"
	done
	paste "$tmp/s" "$tmp/b" | awk -v n="$name" -v o="$other" -v secs="$secs" -v runs="$((2 * rounds))" -v hz="$(getconf CLK_TCK)" '
		{ sr += $1; st += $2; br += $3; bt += $4 }
		END {
			printf "%s: studio %.0f req/s, %s %.0f req/s, ratio %.2f; CPU per request studio %.1f us, %s %.1f us, ratio %.2f\n",
				n, sr / (runs * secs), o, br / (runs * secs), sr / br, 1e6 * st / hz / sr, o, 1e6 * bt / hz / br, (bt / br) / (st / sr)
		}' | tee -a "$tmp/ratios"
}
pair health /health /health
pair "one row" "/posts/$post" "/posts/$post" -H "Authorization: Bearer $key"
pair "ten rows" /posts /posts -H "Authorization: Bearer $key"
# A PocketBase serving the same kind of read, when one is given (built and
# filled outside this repository: POCKETBASE_PID, POCKETBASE_URL of one
# record of a collection whose view rule needs an authenticated user, and
# that user's POCKETBASE_TOKEN).
if [ -n "${POCKETBASE_URL:-}" ]; then
	versus pocketbase pocketbase "$POCKETBASE_PID" "$POCKETBASE_URL" "Authorization: $POCKETBASE_TOKEN" \
		"/posts/$post" -H "Authorization: Bearer $key"
fi
echo "== ratios"
cat "$tmp/ratios"
