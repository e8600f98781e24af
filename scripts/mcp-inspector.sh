#!/usr/bin/env bash
# The MCP interop check behind `make test` (scripts/test.sh runs it after the Go tests): the official
# MCP Inspector's CLI, a TypeScript client, against the real binary.
#
#  1. build the studio binary and start it on the embedded defaults (SQLite and blobs in a temporary
#     data dir, local engine, console mailer) on a free loopback port
#  2. sign up a user with curl and mint a member API key (session cookie + Origin)
#  3. npx @modelcontextprotocol/inspector --cli ... --method tools/list: the six tools must be listed
#  4. ... --method tools/call --tool-name check_balance: the sign-up balance must come back
#  5. stop the binary and remove the data dir (also on failure or Ctrl-C)
#
# The inspector's client checks every structuredContent against the tool's outputSchema, which the
# Go SDK's client does not. MCP_INSPECTOR_VERSION overrides the pinned version.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then PATH=$PATH:/usr/local/go/bin; fi

INSPECTOR=(npx --yes "@modelcontextprotocol/inspector@${MCP_INSPECTOR_VERSION:-0.17.2}" --cli)
TOOLS=(list_capabilities check_balance list_assets start_develop get_develop list_develops)

WORK=
STUDIO_PID=

# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
	local rc=$?
	set +e
	if [[ -n $STUDIO_PID ]]; then
		kill -TERM "$STUDIO_PID" 2>/dev/null
		wait "$STUDIO_PID" 2>/dev/null
	fi
	if ((rc != 0)) && [[ -f $WORK/studio.log ]]; then
		log "last lines of the studio log:"
		tail -n 20 "$WORK/studio.log" >&2
	fi
	[[ -n $WORK ]] && rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

WORK=$(mktemp -d "${TMPDIR:-/tmp}/studio-mcp.XXXXXX")
# -race: the Go tests just compiled every package that way, so the build reuses their cache.
go build -race -o "$WORK/studio" ./cmd/studio

# start_studio: the binary on a free port with nothing but the embedded defaults; sets BASE.
start_studio() {
	local try port
	for try in 1 2 3 4 5; do
		port=$(free_port "${MCP_PORT_BASE:-18480}")
		BASE=http://127.0.0.1:$port
		env -i HOME="$HOME" TMPDIR="${TMPDIR:-/tmp}" STUDIO_ADDR="127.0.0.1:$port" STUDIO_PUBLIC_URL="$BASE" \
			STUDIO_DATA_DIR="$WORK/data" "$WORK/studio" serve >"$WORK/studio.log" 2>&1 &
		STUDIO_PID=$!
		for _ in $(seq 100); do
			if curl -fsS "$BASE/health" >/dev/null 2>&1; then
				log "studio on $BASE (pid $STUDIO_PID)"
				return 0
			fi
			kill -0 "$STUDIO_PID" 2>/dev/null || break
			sleep 0.1
		done
		# Someone may have taken the port between the check and the listen: try another one.
		kill -TERM "$STUDIO_PID" 2>/dev/null || true
		wait "$STUDIO_PID" 2>/dev/null || true
		STUDIO_PID=
		((try < 5)) || die "studio did not start (log: $WORK/studio.log)"
		log "studio start failed, retrying"
	done
}
start_studio

curl -fsS -c "$WORK/cookies" -H 'Content-Type: application/json' \
	-d '{"name":"Inspector","email":"inspector@studio.test","password":"correct horse battery"}' \
	"$BASE/api/auth/sign-up/email" >/dev/null || die "sign-up failed"
minted=$(curl -fsS -b "$WORK/cookies" -H "Origin: $BASE" -H 'Content-Type: application/json' \
	-d '{"name":"inspector","role":"member"}' "$BASE/api/keys") || die "minting a key failed"
KEY=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).key || "")' "$minted")
[[ -n $KEY ]] || die "no key in $minted"

# inspect OUT ARGS...: runs the inspector's CLI against the endpoint with the key; its output goes to
# OUT, npm's chatter to OUT.err (shown when it fails).
inspect() {
	local out=$1
	shift
	if ! timeout 600 "${INSPECTOR[@]}" "$BASE/api/mcp" --transport http --header "Authorization: Bearer $KEY" "$@" \
		>"$out" 2>"$out.err"; then
		cat "$out" "$out.err" >&2
		die "inspector $* failed"
	fi
}

log "inspector tools/list"
inspect "$WORK/tools.json" --method tools/list
for tool in "${TOOLS[@]}"; do
	grep -q "\"name\": \"$tool\"" "$WORK/tools.json" || {
		cat "$WORK/tools.json" >&2
		die "tools/list does not name $tool"
	}
done

log "inspector tools/call check_balance"
inspect "$WORK/balance.json" --method tools/call --tool-name check_balance
if ! grep -q '"balance": 60' "$WORK/balance.json" || ! grep -q '"isError": false' "$WORK/balance.json"; then
	cat "$WORK/balance.json" >&2
	die "check_balance did not answer the 60 sign-up tokens"
fi
log "MCP inspector: ${#TOOLS[@]} tools listed, check_balance answered"
