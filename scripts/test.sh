#!/usr/bin/env bash
# The test runner behind `make test` (and so CI).
#
#  1. install what the machine lacks: Debian postgresql, chromium, make, curl, jq; versitygw and
#     staticcheck into .cache/bin (go install, once); @redocly/cli into npx's cache
#  2. check that start_s3 survives losing its port (scripts/lib_test.sh), then start a throwaway
#     PostgreSQL and a versitygw S3 server on free loopback ports (each retries on a later port);
#     compile every package with -race (the tests then take them from the cache), build the render
#     program without it (internal/apptest/renderproc: the test apps' local renders run there, at
#     the engine's own speed; see docs/testing.md); modernc's
#     SQLite is compiled without the race detector's instrumentation (docs/testing.md); then start
#     staticcheck ./... beside everything that follows (its default checks: any finding fails the
#     run, at the end)
#  3. go test -race -count=1 ./... with TEST_DATABASE_URL, TEST_S3_URL, AWS_ACCESS_KEY_ID,
#     AWS_SECRET_ACCESS_KEY and OPENAPI_OUT set; a line as each group of packages starts and ends,
#     and one as each package's tests end, with their time (scripts/test-exec.sh). Beside them, the
#     MCP Inspector's CLI against a studio binary it builds without -race (scripts/mcp-inspector.sh). staticcheck and the
#     MCP check are mostly waits and single-threaded work, which the tests leave room for on two
#     cores; each prints its output whole, in one block, as it ends, and the tests' end waits for both
#  4. lint the OpenAPI document the tests wrote to $OPENAPI_OUT with Redocly
#  5. stop everything (also on failure or Ctrl-C) and exit non-zero if staticcheck, the tests, the
#     MCP check or the lint failed; the summary lists the test binaries that used the most CPU time,
#     with their wall times (kept in .cache/test-timings.txt)
#
# GO_TEST_PKGS overrides the packages (default ./...), e.g. GO_TEST_PKGS=./internal/post.
# HTTPAPI_SHARDS (default 3) is how many processes run internal/httpapi's tests; 1 runs it whole.
# TEST_PARALLEL (default 4) is how many test binaries of the other packages run at once (go test -p);
# most of the slow ones wait more than they compute (processes, a browser, stand-in providers).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then PATH=$PATH:/usr/local/go/bin; fi

WORK=
READER_PID=
TIMINGS=$ROOT/.cache/test-timings.txt # the per-package times of the last run, kept after it
GO_TEST_PID=
PHASE=
PHASE_T0=0
SUMMARY=()
T_START=$(now_ms)

phase_begin() {
	PHASE=$1
	PHASE_T0=$(now_ms)
	log "phase $PHASE"
}
phase_end() { # [status]
	local dt=$(($(now_ms) - PHASE_T0)) status=${1:-ok}
	SUMMARY+=("$(printf '%-11s %8s  %s' "$PHASE" "$(fmt_ms "$dt")" "$status")")
	log "phase $PHASE: $(fmt_ms "$dt") ($status)"
	PHASE=
}

# side_begin NAME CMD...: runs CMD in the background, in its own process group, beside the phases;
# its output goes to $WORK/NAME.log and is printed whole, in one block, when it ends, with a line
# saying how it ended and after how long. side_end NAME waits for it and sets side_rc[NAME].
declare -A side_pid=() side_rc=()
side_begin() {
	local name=$1
	shift
	log "$name: started (beside the other phases; its output is printed when it ends)"
	setsid -w bash -c '
		name=$1 out=$2
		shift 2
		source scripts/lib.sh
		t0=$(now_ms)
		"$@" >"$out" 2>&1
		rc=$?
		status="ok"
		((rc == 0)) || status="FAILED, exit $rc"
		echo "$(fmt_ms $(($(now_ms) - t0)))  $status" >"$out.end"
		{
			log "$name: $status after $(fmt_ms $(($(now_ms) - t0))); its output:"
			sed "s/^/    | /" "$out"
			log "$name: end of its output"
		} >&2
		exit "$rc"
	' side "$name" "$WORK/$name.log" "$@" &
	side_pid[$name]=$!
}
side_end() {
	local name=$1 rc=0
	[[ -n ${side_pid[$name]:-} ]] || return 0
	kill -0 "${side_pid[$name]}" 2>/dev/null && log "waiting for $name"
	wait "${side_pid[$name]}" || rc=$?
	side_rc[$name]=$rc
	SUMMARY+=("$(printf '%-11s %8s  %s' "$name" "$(cut -d' ' -f1 "$WORK/$name.log.end" 2>/dev/null)" \
		"$( ((rc == 0)) && echo "ok (beside the others)" || echo "FAILED, exit $rc")")")
	unset "side_pid[$name]"
}

# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
	local rc=$?
	set +e
	[[ -n $PHASE ]] && phase_end "aborted, exit $rc"
	if [[ -n $GO_TEST_PID ]]; then
		kill -TERM -- "-$GO_TEST_PID" 2>/dev/null
		wait "$GO_TEST_PID" 2>/dev/null
	fi
	[[ -n $READER_PID ]] && kill "$READER_PID" 2>/dev/null
	for pid in "${side_pid[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	if [[ -n $WORK ]]; then
		stop_s3 "$WORK/s3"
		stop_pg "$WORK/pg"
		rm -rf "$WORK"
	fi
	if [[ -s $TIMINGS ]]; then
		log "costliest test binaries (CPU time, user + system, and wall time of each; scripts/test-exec.sh):"
		cat "$TIMINGS" >&2
	fi
	log "timings:"
	printf '      %s\n' "${SUMMARY[@]}" >&2
	log "total $(fmt_ms $(($(now_ms) - T_START))), exit $rc"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

phase_begin install
ensure_packages "${STUDIO_APT_PACKAGES[@]}"
install_versitygw "$ROOT"
install_staticcheck "$ROOT"
install_promtool "$ROOT"
# Fetch the linter now, so that a missing registry fails early and the lint phase times the lint.
REDOCLY=(npx --yes "@redocly/cli@$REDOCLY_VERSION")
REDOCLY_TELEMETRY=off "${REDOCLY[@]}" --version >/dev/null 2>&1 || die "cannot run @redocly/cli@$REDOCLY_VERSION with npx"
phase_end

WORK=$(mktemp -d "${TMPDIR:-/tmp}/studio-test.XXXXXX")
chmod 755 "$WORK" # the postgres user must reach $WORK/pg
phase_begin services
bash scripts/lib_test.sh >&2 # start_s3 survives losing its port (a lost race failed CI once)
start_pg "$WORK/pg"
start_s3 "$ROOT" "$WORK/s3"
phase_end

# modernc's SQLite is C translated to Go, and -race instruments every memory access of it as it
# does the project's own code: about two thirds of a SQLite-heavy test's CPU went there
# (internal/sqlstore's TestLedgerModel/sqlite, TestJudgeStore and TestPaidOrderChecks: 53.7 -> 19.1
# CPU s; the whole package 63 -> 37). modernc's packages are compiled without the race detector's
# instrumentation (which also drops the checkptr check -race implies); every other package, the
# project's and the standard library's, keeps both. See docs/testing.md. Set before the first
# build, so every build and test binary of the run (and the tests' own `go build`s) compile
# modernc the one way and share it from the cache.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-gcflags=modernc.org/...=-race=false"

phase_begin build
# Every package compiled with -race, as the tests will want them, and nothing linked: the tests then
# take them from the cache (compiled beside each other, go test's processes would compile the same
# packages twice on a cold cache).
go build -race ./...
# The test apps' local renders run in this program, built without -race (the race detector slows
# the engines' pixel loops about twentyfold); the engines' own tests still render under it.
go build -o "$WORK/renderproc" ./internal/apptest/renderproc
phase_end

# After the build, so that on a cold cache it takes the packages the build compiled
# (staticcheck asks go list for their export data, with the same GOFLAGS); it runs beside the
# tests, and the run fails on a finding at the end.
side_begin staticcheck "$ROOT/.cache/bin/staticcheck" ./...

mkdir -p .cache
rm -f "$TIMINGS"
export GO_TEST_LOG=$WORK/go-test.log
export OPENAPI_OUT=$ROOT/.cache/openapi.json
rm -f "$OPENAPI_OUT"
# The browser tests' screenshots (the console's story step by step, every page at a desktop's and a
# phone's width, the reviewer page) are kept here as the run's artefacts.
export STUDIO_SCREENSHOTS=$ROOT/.cache/screenshots
rm -rf "$STUDIO_SCREENSHOTS" && mkdir -p "$STUDIO_SCREENSHOTS"
# The test apps' local renders, shared by the test binaries of this run (internal/apptest's
# memo_shared.go: the httpapi shards and the console render the same fixtures); new each run, as
# its key holds the request and not the engine's code.
export STUDIO_RENDER_MEMO=$WORK/renders
mkdir -p "$STUDIO_RENDER_MEMO"
export STUDIO_RENDER_EXEC=$WORK/renderproc
read -ra pkgs <<<"${GO_TEST_PKGS:-./...}"
log "TEST_DATABASE_URL=$TEST_DATABASE_URL"
log "TEST_S3_URL=$TEST_S3_URL (AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID)"
log "OPENAPI_OUT=$OPENAPI_OUT"
log "STUDIO_SCREENSHOTS=$STUDIO_SCREENSHOTS"
log "STUDIO_RENDER_MEMO=$STUDIO_RENDER_MEMO"
log "STUDIO_RENDER_EXEC=$STUDIO_RENDER_EXEC"

phase_begin tests
test_rc=0
# The MCP check builds its binary itself, beside the tests, without -race: that check is of the
# protocol, against the official TypeScript clients (the Go tests run the MCP server under -race:
# internal/mcp, internal/httpapi), and the race detector slowed its develops (a look, a lookbook,
# variations): 206 -> 92 CPU s.
side_begin mcp bash scripts/mcp-inspector.sh
# In its own process group, waited for in the background, so that a TERM or INT to this script
# stops the tests at once (cleanup kills the group) instead of after they finish. The output is
# also kept, for the per-package timings of the summary.
# The HTTP package is most of the suite's time: by default it runs in HTTPAPI_SHARDS processes
# (each a -run list of its tests, dealt by their weights in scripts/httpapi-weights.txt) beside one `go test` of every other package,
# all at once; each shard writes the error codes it saw, and a last run pools them for the check
# that every documented code was answered (internal/httpapi/main_test.go).
# Each test binary runs under scripts/test-exec.sh, which notes in $STUDIO_PROGRESS when it ends;
# the reader below prints those lines as they come (go test itself prints results in package
# order, so one slow package would hold back every line after it).
export STUDIO_PROGRESS=$WORK/progress STUDIO_TEST_EXEC=$ROOT/scripts/test-exec.sh
: >"$STUDIO_PROGRESS"
runs=$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' "${pkgs[@]}" | grep -c .) || true
if [[ -z ${GO_TEST_PKGS:-} ]] && ((${HTTPAPI_SHARDS:-3} > 1)); then
	runs=$((runs + ${HTTPAPI_SHARDS:-3})) # internal/httpapi runs once per shard, then once to pool what they saw
	setsid -w bash scripts/test-shards.sh "$WORK" "${HTTPAPI_SHARDS:-3}" "$GO_TEST_LOG" &
else
	log "go test of $runs packages started"
	setsid -w bash -c 'go test -race -count=1 -p "${TEST_PARALLEL:-4}" -timeout=45m -exec "$STUDIO_TEST_EXEC" "$@" 2>&1 | tee "$GO_TEST_LOG"; exit "${PIPESTATUS[0]}"' \
		go-test "${pkgs[@]}" &
fi
GO_TEST_PID=$!
# (A bash loop rather than awk: Debian's awk, mawk, reads a pipe in blocks, which held every line
# back until the tests ended.)
tail -n +1 -f --pid="$GO_TEST_PID" "$STUDIO_PROGRESS" | {
	i=0
	while IFS= read -r line; do printf '==> [%d/%d] %s\n' $((++i)) "$runs" "$line"; done
} >&2 &
READER_PID=$!
wait "$GO_TEST_PID" || test_rc=$?
GO_TEST_PID=
wait "$READER_PID" 2>/dev/null
READER_PID=
phase_end "$( ((test_rc == 0)) && echo ok || echo "FAILED, exit $test_rc")"
package_timings "$STUDIO_PROGRESS" >"$TIMINGS"
if ((test_rc != 0)) && grep -qE 'ERROR|FATAL|PANIC' "$WORK/pg/postgres.log"; then
	# The logs go with $WORK at exit; keep the server's side of a failure in the output.
	log "last errors in the PostgreSQL log (some may be expected by the tests):"
	grep -E 'ERROR|FATAL|PANIC' "$WORK/pg/postgres.log" | tail -n 20 >&2
fi

side_end mcp
side_end staticcheck

phase_begin lint
lint_rc=0
if [[ -f $OPENAPI_OUT ]]; then
	REDOCLY_TELEMETRY=off "${REDOCLY[@]}" lint --config=scripts/redocly.yaml --format=stylish "$OPENAPI_OUT" || lint_rc=$?
else
	printf 'error: the tests did not write the OpenAPI document to OPENAPI_OUT=%s\n' "$OPENAPI_OUT" >&2
	lint_rc=1
fi
phase_end "$( ((lint_rc == 0)) && echo ok || echo "FAILED, exit $lint_rc")"

((test_rc == 0)) || exit "$test_rc"
((side_rc[staticcheck] == 0)) || exit "${side_rc[staticcheck]}"
((side_rc[mcp] == 0)) || exit "${side_rc[mcp]}"
exit "$lint_rc"
