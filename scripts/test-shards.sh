#!/usr/bin/env bash
# test-shards.sh WORK N LOG: scripts/test.sh's tests phase with internal/httpapi in N shards.
# Runs, all at once: `go test -race` of every package but internal/httpapi, and N processes of
# internal/httpapi's test binary (compiled once, `go test -race -c`), each running a -run list of
# its tests dealt by weight, which write the error
# codes they saw into WORK/seen. Then one more internal/httpapi run with -run '^$' pools those
# files and checks that every documented code was answered, and writes the OpenAPI document (which
# is written even when a test failed, for the lint phase).
# Every output goes to LOG (in order, one process after another) and to stdout as each ends; a
# line on stderr says when each process starts and ends. With STUDIO_TEST_EXEC set (test.sh sets
# it), each test binary runs under it (scripts/test-exec.sh: a line in $STUDIO_PROGRESS as each
# package's tests end).
set -uo pipefail
work=$1 shards=$2 log=$3
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
exec_flag=() exec_cmd=()
[[ -n ${STUDIO_TEST_EXEC:-} ]] && exec_flag=(-exec "$STUDIO_TEST_EXEC") exec_cmd=("$STUDIO_TEST_EXEC")
pkg=studio/internal/httpapi
openapi=${OPENAPI_OUT:-}
unset OPENAPI_OUT # only the pooling run writes it
mkdir -p "$work/seen"
: >"$log"

# part NAME OUT CMD...: runs CMD in the background, its output in OUT, with a line on stderr as it
# starts and as it ends (with its wall time, building included).
pids=() logs=()
part() {
	local name=$1 out=$2
	shift 2
	log "$name: started"
	(
		t0=$(now_ms)
		"$@" >"$out" 2>&1
		rc=$?
		log "$name: $( ((rc == 0)) && echo ok || echo "FAILED, exit $rc") after $(fmt_ms $(($(now_ms) - t0)))"
		exit "$rc"
	) &
	pids+=($!) logs+=("$out")
}

# The other packages run in one go test, TEST_PARALLEL (default 4) test binaries at a time, the
# slowest first (go test starts them in the order given). With go test's default of one binary per
# core, the slow ones (mostly waits: processes, a browser, stand-in providers) queued behind each
# other and ran on long after the shards, with a core idle: in the run at 8304944 the packages but
# httpapi summed 3,400 s of wall, 1,700 s on two slots, while the tests used 2,843 CPU s (1,420 s
# of two cores). The list is the costliest of a run's .cache/test-timings.txt, by wall time.
slow=(cmd/studio internal/console internal/engine/local internal/engine/fal internal/sqlstore
	internal/engine/imageapi internal/app internal/worker internal/asset internal/engine/segment
	internal/judge internal/webhook internal/engine)
mapfile -t all < <(go list ./... | grep -vx "$pkg")
rest=()
for p in "${slow[@]}"; do
	for q in "${all[@]}"; do [[ $q == "studio/$p" ]] && rest+=("$q"); done
done
for q in "${all[@]}"; do
	[[ " ${rest[*]} " == *" $q "* ]] || rest+=("$q")
done
part "go test of the ${#rest[@]} packages but $pkg, ${TEST_PARALLEL:-4} at a time" "$work/test-rest.log" \
	go test -race -count=1 -p "${TEST_PARALLEL:-4}" -timeout=45m "${exec_flag[@]}" "${rest[@]}"
# The package's test binary, compiled and linked once, with -race: the listing, the shards and the
# pooling run all run it (a `go test` of the package each would link it again, ~9 CPU s a link).
# runbin ARGS... runs it as go test would: in the package's folder, under STUDIO_TEST_EXEC when set.
bin=$work/httpapi.test
pkgdir=$(go list -f '{{.Dir}}' ./internal/httpapi/)
runbin() { (cd "$pkgdir" && "${exec_cmd[@]}" "$bin" -test.paniconexit0 -test.timeout=45m -test.count=1 "$@"); }
if ! go test -race -c -ldflags=-w -o "$bin" ./internal/httpapi/ >"$work/httpapi-build.log" 2>&1; then
	echo "test-shards: go test -c of $pkg failed:" >&2
	tee -a "$log" <"$work/httpapi-build.log" >&2
	wait
	exit 1
fi
mapfile -t names < <(cd "$pkgdir" && "$bin" -test.list '^Test' | grep '^Test')
if ((${#names[@]} == 0)); then
	echo "test-shards: no tests listed in $pkg" >&2
	wait
	exit 1
fi

# Deal the tests by their weight (scripts/httpapi-weights.txt: seconds of a -race run, one
# "SECONDS TestName" a line; a test not listed weighs the median), heaviest first, each to the
# shard with the least so far, so that the shards end together.
weights=$(dirname "${BASH_SOURCE[0]}")/httpapi-weights.txt
declare -A weight=()
if [[ -f $weights ]]; then
	while read -r secs name; do weight[$name]=$secs; done <"$weights"
fi
median=$(printf '%s\n' "${weight[@]:-1}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
mapfile -t order < <(for n in "${names[@]}"; do echo "${weight[$n]:-$median} $n"; done | sort -rn -k1,1 -k2 | awk '{print $2}')
loads=() members=()
for ((i = 0; i < shards; i++)); do loads[i]=0 members[i]=""; done
for n in "${order[@]}"; do
	best=0
	for ((i = 1; i < shards; i++)); do
		if awk -v a="${loads[i]}" -v b="${loads[best]}" 'BEGIN {exit !(a < b)}'; then best=$i; fi
	done
	loads[best]=$(awk -v a="${loads[best]}" -v w="${weight[$n]:-$median}" 'BEGIN {print a + w}')
	members[best]+="$n "
done

for ((i = 0; i < shards; i++)); do
	read -ra list <<<"${members[i]}"
	((${#list[@]})) || continue
	run="^($(IFS='|'; echo "${list[*]}"))\$"
	STUDIO_SEEN_DIR=$work/seen STUDIO_PART="httpapi shard $i" part "httpapi shard $i (${#list[@]} tests, ${loads[i]} s by their weights)" \
		"$work/test-shard$i.log" runbin -test.run "$run"
done

rc=0
for k in "${!pids[@]}"; do
	wait "${pids[k]}" || rc=1
	cat "${logs[k]}" | tee -a "$log"
done
# The pooling run also writes the OpenAPI document. When a shard failed, its codes are not pooled
# (the check would only repeat the failure), but the document is still written, so that the lint
# phase reports on it all the same.
if ((rc == 0)); then
	log "httpapi: pooling the error codes the shards saw"
	OPENAPI_OUT=$openapi STUDIO_SEEN_CHECK=$work/seen STUDIO_PART="httpapi pool" \
		runbin -test.run '^$' 2>&1 | tee -a "$log"
	((PIPESTATUS[0] == 0)) || rc=1
elif [[ -n $openapi ]]; then
	log "httpapi: a test failed; writing the OpenAPI document without pooling the error codes"
	OPENAPI_OUT=$openapi STUDIO_PART="httpapi document" \
		runbin -test.run '^$' 2>&1 | tee -a "$log"
fi
exit "$rc"
