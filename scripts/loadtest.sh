#!/usr/bin/env bash
# Load test of the authenticated GET /posts against a bare net/http handler
# doing the same database read on the same SQLite file (issue #2):
#
#   scripts/loadtest.sh [seconds] [connections]
#
# Builds both binaries, starts studio on the embedded defaults in a
# temporary data folder, signs up, mints a key, writes ten posts, starts the
# bare server on the same file and house, and runs wrk against each in turn.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs=${1:-10}
conns=${2:-32}
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
wait_for http://127.0.0.1:18081/posts

echo "== studio: GET /posts with an API key ($conns connections, ${secs}s)"
wrk -t2 -c"$conns" -d"${secs}s" -H "Authorization: Bearer $key" "$base/posts" | tee "$tmp/studio.wrk"
echo "== bare: the same read, no auth, no middleware"
wrk -t2 -c"$conns" -d"${secs}s" http://127.0.0.1:18081/posts | tee "$tmp/bare.wrk"
s=$(awk '/Requests\/sec/ {print $2}' "$tmp/studio.wrk")
b=$(awk '/Requests\/sec/ {print $2}' "$tmp/bare.wrk")
awk -v s="$s" -v b="$b" 'BEGIN { printf "studio %.0f req/s, bare %.0f req/s, ratio %.2f\n", s, b, s / b }'
