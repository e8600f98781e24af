#!/usr/bin/env bash
# The MCP interop check behind `make test` (scripts/test.sh runs it beside the Go tests): two TypeScript
# clients against the real binary, the official MCP Inspector's CLI and an old-protocol SDK build.
#
#  1. build the studio binary and start it on the embedded defaults (SQLite and blobs in a temporary
#     data dir, local engine, console mailer, workers) on a free loopback port
#  2. sign up a user with curl and mint a member API key (session cookie + Origin)
#  3. npx @modelcontextprotocol/inspector --cli ... --method tools/list: all eighteen tools must be listed
#  4. ... --method tools/call, once for every tool, in the order an agent runs the lookbook story: each
#     answer is checked against the tool's outputSchema by the inspector's client, and must not be a
#     refusal (get_verdict may still be NOT_FOUND: the judge scores a frame shortly after it lands)
#  5. the TypeScript SDK 1.12.3 (its latest protocol is 2025-03-26) connects, must be answered
#     2025-03-26, lists the tools and calls check_balance
#  6. stop the binary and remove the data dir (also on failure or Ctrl-C)
#
# The inspector's client checks every structuredContent against the tool's outputSchema, which the
# Go SDK's client does not. MCP_INSPECTOR_VERSION and MCP_OLD_SDK_VERSION override the pinned versions.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then PATH=$PATH:/usr/local/go/bin; fi

INSPECTOR=(npx --yes "@modelcontextprotocol/inspector@${MCP_INSPECTOR_VERSION:-0.17.2}" --cli)
OLD_SDK=${MCP_OLD_SDK_VERSION:-1.12.3}
TOOLS=(list_capabilities check_balance list_assets start_develop get_develop list_develops upload_asset cancel_develop
	preflight_develop create_look get_look develop_look lock_look develop_variations get_verdict share_frames get_asset
	develop_lookbook)

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
# STUDIO_BIN is a studio binary built already (scripts/test.sh builds it before the tests, and runs
# this check beside them); else it is built here. Without -race: the check is of the protocol, and
# the Go tests run the MCP server under the race detector (internal/mcp, internal/httpapi).
if [[ -n ${STUDIO_BIN:-} ]]; then
	cp "$STUDIO_BIN" "$WORK/studio"
else
	go build -o "$WORK/studio" ./cmd/studio
fi

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

# call NAME ARGS...: tools/call of NAME with --tool-arg key=value pairs (values that parse as JSON are sent
# as JSON); the answer must not be a refusal. Sets OUT to the result's file.
n=0
call() {
	local name=$1
	shift
	n=$((n + 1))
	OUT=$WORK/call-$n-$name.json
	if (($# > 0)); then
		inspect "$OUT" --method tools/call --tool-name "$name" --tool-arg "$@"
	else
		inspect "$OUT" --method tools/call --tool-name "$name"
	fi
	if ! grep -q '"isError": false' "$OUT"; then
		cat "$OUT" >&2
		die "$name was refused"
	fi
}

# field FILE PATH: the value at a dotted path of the result's structuredContent ("" when absent).
field() {
	node -e '
		let v = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).structuredContent;
		for (const k of process.argv[2].split(".")) v = v == null ? undefined : v[k];
		process.stdout.write(v == null ? "" : typeof v === "string" ? v : JSON.stringify(v));
	' "$1" "$2"
}

log "inspector tools/call of every tool"
call check_balance
grep -q '"balance": 60' "$OUT" || die "check_balance did not answer the 60 sign-up tokens"
call list_capabilities
IMAGE=$(base64 -w0 internal/httpapi/testdata/coffee.jpg)
call upload_asset kind=clothes name=Shirt "data=$IMAGE"
SHIRT=$(field "$OUT" asset.id)
call upload_asset kind=clothes name=Trousers "data=$IMAGE"
TROUSERS=$(field "$OUT" asset.id)
# A look's model is a standing figure on a plain ground: the local engine refuses any other (NO_FIGURE).
FIGURE=$(base64 -w0 internal/httpapi/testdata/figure.jpg)
call upload_asset kind=model name=Ines "data=$FIGURE"
MODEL=$(field "$OUT" asset.id)
call get_asset "assetId=$SHIRT" preview=true
grep -q '"type": "image"' "$OUT" || die "get_asset with preview answered no image"
call list_assets limit=10
call preflight_develop tool=upscale "inputs={\"image\":\"$SHIRT\"}"
[[ $(field "$OUT" ok) == true ]] || die "preflight_develop of an upscale was not ok"
call start_develop tool=upscale "inputs={\"image\":\"$SHIRT\"}" idempotencyKey=inspector-1
JOB=$(field "$OUT" jobId)
call get_develop "jobId=$JOB"
call list_develops limit=5
call cancel_develop "jobId=$JOB"
call create_look name=Spring "modelAssetId=$MODEL" "itemAssetIds=[{\"assetId\":\"$SHIRT\",\"role\":\"top\"}]" \
	'background={"kind":"preset","value":"studio-white"}' aesthetic=editorial
LOOK=$(field "$OUT" look.id)
call develop_look "lookId=$LOOK"
call develop_lookbook "modelAssetId=$MODEL" "garmentAssetIds=[\"$SHIRT\",\"$TROUSERS\"]" looks=2 'brief=noir on the beach'
BOOK_LOOK=$(field "$OUT" looks.0.lookId)
BOOK_JOB=$(field "$OUT" looks.0.jobId)
# The workers develop the base frame; wait for it, a second at a time for at most five minutes. The watch
# is get_develop over MCP too, sent with curl: a start of the inspector's CLI costs seconds of a loaded CPU.
for _ in $(seq 300); do
	curl -fsS -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -H 'MCP-Protocol-Version: 2025-06-18' \
		-d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_develop\",\"arguments\":{\"jobId\":\"$BOOK_JOB\"}}}" \
		"$BASE/api/mcp" | node -e 'process.stdout.write(JSON.stringify(JSON.parse(require("fs").readFileSync(0, "utf8")).result))' \
		>"$WORK/watch.json" || die "get_develop of the lookbook's base frame failed"
	state=$(field "$WORK/watch.json" status)
	[[ $state == done || $state == failed || $state == cancelled ]] && break
	sleep 1
done
[[ $state == done ]] || die "the lookbook's base frame is $state"
FRAME=$(field "$WORK/watch.json" resultAssetId)
call get_look "lookId=$BOOK_LOOK"
call lock_look "lookId=$BOOK_LOOK" "assetId=$FRAME"
call develop_variations "lookId=$BOOK_LOOK" 'keys=["front"]'
call share_frames "assetIds=[\"$FRAME\"]" recipientLabel=Buyer
n=$((n + 1))
inspect "$WORK/call-$n-get_verdict.json" --method tools/call --tool-name get_verdict --tool-arg "assetId=$FRAME"
if ! grep -q '"isError": false' "$WORK/call-$n-get_verdict.json" && ! grep -q 'NOT_FOUND: ' "$WORK/call-$n-get_verdict.json"; then
	cat "$WORK/call-$n-get_verdict.json" >&2
	die "get_verdict answered neither a verdict nor NOT_FOUND"
fi
log "MCP inspector: ${#TOOLS[@]} tools listed, each called once"

# An old-protocol client: the TypeScript SDK 1.12.3 offers 2025-03-26 (its latest) and aborts on any
# answer it does not speak. The initialize answer is read off the wire by a wrapped fetch.
log "TypeScript SDK $OLD_SDK (protocol 2025-03-26): initialize, tools/list, check_balance"
mkdir -p "$WORK/old"
if ! npm install --prefix "$WORK/old" --no-save --no-audit --no-fund --loglevel=error "@modelcontextprotocol/sdk@$OLD_SDK" \
	>"$WORK/old/npm.log" 2>&1; then
	cat "$WORK/old/npm.log" >&2
	die "cannot install @modelcontextprotocol/sdk@$OLD_SDK"
fi
cat >"$WORK/old/client.mjs" <<'JS'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const [url, key] = process.argv.slice(2);
let answered = "";
const fetchOnWire = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const res = await fetchOnWire(input, init);
  if (typeof init?.body === "string" && init.body.includes('"initialize"')) {
    answered = (await res.clone().json()).result?.protocolVersion ?? "";
  }
  return res;
};
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const client = new Client({ name: "old-protocol-check", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const balance = await client.callTool({ name: "check_balance", arguments: {} });
console.log(JSON.stringify({ offered: LATEST_PROTOCOL_VERSION, answered, tools: tools.map((t) => t.name), isError: balance.isError }));
await client.close();
JS
if ! old=$(cd "$WORK/old" && timeout 120 node client.mjs "$BASE/api/mcp" "$KEY" 2>"$WORK/old/client.err"); then
	cat "$WORK/old/client.err" >&2
	die "the TypeScript SDK $OLD_SDK client failed"
fi
node -e '
	const r = JSON.parse(process.argv[1]);
	const want = process.argv.slice(2);
	if (r.offered !== "2025-03-26" || r.answered !== "2025-03-26") throw new Error("offered " + r.offered + ", answered " + r.answered);
	for (const t of want) if (!r.tools.includes(t)) throw new Error("tools/list does not name " + t);
	if (r.isError !== false) throw new Error("check_balance was refused");
' "$old" "${TOOLS[@]}" || die "old-protocol client: $old"
log "TypeScript SDK $OLD_SDK: answered 2025-03-26, ${#TOOLS[@]} tools listed, check_balance called"
