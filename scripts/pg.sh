#!/usr/bin/env bash
# A throwaway PostgreSQL for running tests by hand (scripts/test.sh starts its own).
#
#   eval "$(scripts/pg.sh start)"   # start it; prints `export TEST_DATABASE_URL=...`
#   go test ./internal/sqlstore
#   scripts/pg.sh stop              # stop it and delete its data
#
# DIR (default ${TMPDIR:-/tmp}/studio-pg) holds the data, log and socket. Other commands:
# `url` prints the URL of the running instance, `status` tells whether it runs.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd=${1:-}
dir=${2:-${TMPDIR:-/tmp}/studio-pg}

case $cmd in
start)
	if [[ -f $dir/data/postmaster.pid ]]; then
		log "already running in $dir"
	else
		[[ ! -e $dir ]] || rm -rf "$dir"
		ensure_packages postgresql
		start_pg "$dir"
	fi
	printf 'export TEST_DATABASE_URL=%q\n' "$(cat "$dir/url")"
	;;
stop)
	stop_pg "$dir"
	rm -rf "$dir"
	;;
url)
	cat "$dir/url"
	;;
status)
	as_pg "$(pg_bindir)/pg_ctl" -D "$dir/data" status
	;;
*)
	echo "usage: $0 start|stop|url|status [DIR]" >&2
	exit 2
	;;
esac
