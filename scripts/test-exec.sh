#!/usr/bin/env bash
# test-exec.sh BINARY ARGS...: the `go test -exec` of scripts/test.sh. It runs one package's test
# binary as go test would, and appends a line to $STUDIO_PROGRESS when the binary ends: ok or
# FAIL, the binary's wall time, the CPU time (user + system) it and the processes it waited for
# used, and the package (what go test's own "ok" line says, but at once: go test prints the
# packages' results in package order, so a slow package holds back the lines of every package
# after it; and the CPU time is a package's cost even when a loaded machine stretches its wall
# time). STUDIO_PART, when set, names the run ("httpapi shard 1").
#
# go test runs the binary in its package's folder, so the folder names the package.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
t0=${EPOCHREALTIME/./}
"$@"
rc=$?
if [[ -n ${STUDIO_PROGRESS:-} ]]; then
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	# times' second line is the user and system time of this shell's waited-for children: the
	# test binary and whatever it waited for (servers it started, the browser).
	# (Run here, not in a $(...) or <(...) subshell, where they start again at zero.)
	cpu_ms=0 tf=$(mktemp)
	times >"$tf"
	read -r _ _ user sys < <(tr '\n' ' ' <"$tf")
	rm -f "$tf"
	for t in "$user" "$sys"; do
		[[ $t =~ ^([0-9]+)m([0-9]+)\.([0-9]{3})s$ ]] || continue
		cpu_ms=$((cpu_ms + BASH_REMATCH[1] * 60000 + 10#${BASH_REMATCH[2]} * 1000 + 10#${BASH_REMATCH[3]}))
	done
	pkg=${PWD#"$root"/}
	[[ $pkg == "$PWD" ]] && pkg=$PWD
	status=ok failed=
	((rc == 0)) || status=FAIL failed=" exit $rc"
	printf '%-4s %6d.%ds  cpu %6d.%ds  %s%s%s\n' "$status" "$((ms / 1000))" "$(((ms % 1000) / 100))" \
		"$((cpu_ms / 1000))" "$(((cpu_ms % 1000) / 100))" "$pkg" \
		"${STUDIO_PART:+ ($STUDIO_PART)}" "$failed" >>"$STUDIO_PROGRESS"
fi
exit "$rc"
