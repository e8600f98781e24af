#!/usr/bin/env bash
# test-exec.sh BINARY ARGS...: the `go test -exec` of scripts/test.sh. It runs one package's test
# binary as go test would, and appends a line to $STUDIO_PROGRESS when the binary ends: the
# package, ok or FAIL, and the binary's wall time (what go test's own "ok" line says, but at once:
# go test prints the packages' results in package order, so a slow package holds back the lines of
# every package after it). STUDIO_PART, when set, names the run ("httpapi shard 1").
#
# go test runs the binary in its package's folder, so the folder names the package.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
t0=${EPOCHREALTIME/./}
"$@"
rc=$?
if [[ -n ${STUDIO_PROGRESS:-} ]]; then
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	pkg=${PWD#"$root"/}
	[[ $pkg == "$PWD" ]] && pkg=$PWD
	status=ok failed=
	((rc == 0)) || status=FAIL failed=" exit $rc"
	printf '%-4s %6d.%ds  %s%s%s\n' "$status" "$((ms / 1000))" "$(((ms % 1000) / 100))" "$pkg" \
		"${STUDIO_PART:+ ($STUDIO_PART)}" "$failed" >>"$STUDIO_PROGRESS"
fi
exit "$rc"
