#!/usr/bin/env bash
# Tests of scripts/lib.sh that need no PostgreSQL: run by scripts/test.sh before the services start,
# or by hand (`bash scripts/lib_test.sh`).
#
# start_s3 must survive losing the race for its port: another process binds the port that
# free_port chose before versitygw does. A socket that is bound but not listening reproduces it
# every time (connections to it are refused, so port_free calls it free; versitygw's bind fails).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

[[ -x $ROOT/.cache/bin/versitygw ]] || install_versitygw "$ROOT"

dir=$(mktemp -d "${TMPDIR:-/tmp}/studio-libtest.XXXXXX")
squatter=
# shellcheck disable=SC2317 # invoked by the trap
finish() {
	[[ -n $squatter ]] && kill "$squatter" 2>/dev/null
	stop_s3 "$dir/s3"
	rm -rf "$dir"
}
trap finish EXIT

base=$(free_port 58170)
# Bind (without listening) the port start_s3 will pick first, for 60 s at most.
perl -MSocket -e 'socket(my $s, PF_INET, SOCK_STREAM, 0) or die; bind($s, sockaddr_in($ARGV[0], inet_aton("127.0.0.1"))) or die "bind: $!"; open(my $f, ">", $ARGV[1]); close $f; sleep 60' \
	"$base" "$dir/bound" &
squatter=$!
for ((i = 0; i < 50; i++)); do
	[[ -e $dir/bound ]] && break
	sleep 0.1
done
[[ -e $dir/bound ]] || die "the squatter did not bind 127.0.0.1:$base"
port_free "$base" || die "port $base should look free to port_free"

# The expected bind failure and the retry go to a log, shown only when the test fails.
TEST_S3_URL=$( (S3_PORT_BASE=$base start_s3 "$ROOT" "$dir/s3" && echo "$TEST_S3_URL") 2>"$dir/start.log") ||
	{
		cat "$dir/start.log" >&2
		die "start_s3 failed"
	}
case $TEST_S3_URL in
*"127.0.0.1:$base&"*) die "start_s3 claims the squatted port $base" ;;
esac
port=${TEST_S3_URL#*127.0.0.1:}
port=${port%%&*}
curl -fsS -o /dev/null "http://127.0.0.1:$port/health" || die "versitygw does not answer on $port"
echo "lib_test: ok (start_s3 moved from the taken port $base to $port)"
