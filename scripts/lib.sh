# shellcheck shell=bash
# Shared helpers for scripts/test.sh and scripts/pg.sh. Source it; it does nothing by itself.
#
# Services started here listen on 127.0.0.1 only and keep all their state in a directory the caller
# passes in, so several runs on one machine do not collide.

# Debian packages the test suite needs (node, npm, go and gcc are already on the machine).
# shellcheck disable=SC2034 # used by test.sh
STUDIO_APT_PACKAGES=(postgresql chromium make curl jq ca-certificates)
VERSITYGW_VERSION=v1.8.0
# staticcheck 2026.2.2, the release that reads Go 1.26 (scripts/test.sh runs it over the module).
STATICCHECK_VERSION=v0.8.2
# shellcheck disable=SC2034 # used by test.sh
REDOCLY_VERSION=2.77.0
S3_ACCESS_KEY=testkey
S3_SECRET_KEY=testsecret123

log() { printf '==> %s\n' "$*" >&2; }
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# now_ms prints the wall clock in milliseconds.
now_ms() {
	local t=${EPOCHREALTIME/./}
	printf '%d\n' "$((t / 1000))"
}

# fmt_ms 12345 prints "12.3s".
fmt_ms() { printf '%d.%ds' "$(($1 / 1000))" "$((($1 % 1000) / 100))"; }

# ensure_packages installs the Debian packages that are not installed yet (apt-get update only when
# something is missing, so a second run does not touch apt at all).
ensure_packages() {
	local missing=() p
	for p in "$@"; do
		[[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) == ii* ]] || missing+=("$p")
	done
	((${#missing[@]} == 0)) && return 0
	[[ $(id -u) -eq 0 ]] || die "missing Debian packages: ${missing[*]} (run as root, or apt-get install them)"
	log "apt-get install ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -qq -y "${missing[@]}" >/dev/null
}

# port_free PORT: true when nothing accepts connections on 127.0.0.1:PORT.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port BASE prints the first free loopback port at or above BASE.
free_port() {
	local p
	for ((p = $1; p < $1 + 200; p++)); do
		if port_free "$p"; then
			echo "$p"
			return 0
		fi
	done
	die "no free port in $1..$(($1 + 199))"
}

# --- PostgreSQL --------------------------------------------------------------------------------

# pg_bindir prints the newest /usr/lib/postgresql/N/bin. The real binaries are used, not the
# pg_ctl/initdb/postgres on PATH (/usr/local/bin has symlinks; Debian's /usr/bin/pg_ctlcluster
# wrappers expect clusters under /etc/postgresql).
pg_bindir() {
	local d
	d=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
	[[ -n $d && -x $d/initdb ]] || die "no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)"
	echo "$d"
}

# as_pg runs a command as the postgres OS user when we are root (PostgreSQL refuses to run as
# root), and as ourselves otherwise.
as_pg() {
	if [[ $(id -u) -eq 0 ]]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# start_pg DIR: initdb a throwaway cluster in DIR/data, start it on a free loopback port with trust
# auth, create the database studio_test, and export TEST_DATABASE_URL. DIR must not exist yet or be
# empty. DIR/url and DIR/port record the instance for pg.sh.
start_pg() {
	local dir=$1 bin port url try base=${PG_PORT_BASE:-55432}
	bin=$(pg_bindir)
	mkdir -p "$dir"
	chmod 755 "$dir"
	if [[ $(id -u) -eq 0 ]]; then chown postgres:postgres "$dir"; fi
	as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
		{
			cat "$dir/initdb.log" >&2
			die "initdb failed"
		}
	# A throwaway cluster: durability off for speed, room for parallel test packages.
	cat >>"$dir/data/postgresql.conf" <<-EOF
		listen_addresses = '127.0.0.1'
		unix_socket_directories = '$dir'
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		max_connections = 300
		max_locks_per_transaction = 256
	EOF
	for try in 1 2 3 4 5; do
		port=$(free_port "$base")
		sed -i '/^port = /d' "$dir/data/postgresql.conf"
		echo "port = $port" >>"$dir/data/postgresql.conf"
		if as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start >/dev/null; then
			break
		fi
		# Someone may have taken the port between the check and the start: try another one.
		tail -n 20 "$dir/postgres.log" >&2 || true
		((try < 5)) || die "PostgreSQL did not start (log: $dir/postgres.log)"
		log "PostgreSQL start failed, retrying on a later port"
		base=$((port + 1))
	done
	echo "$port" >"$dir/port"
	"$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres studio_test
	url="postgres://postgres@127.0.0.1:$port/studio_test?sslmode=disable"
	"$bin/psql" "$url" -qAtc 'select 1' >/dev/null || die "cannot connect to $url"
	echo "$url" >"$dir/url"
	export TEST_DATABASE_URL=$url
	log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data $dir/data)"
}

# stop_pg DIR stops the cluster started by start_pg DIR (if any); it never fails.
stop_pg() {
	local dir=$1 bin pid
	[[ -f $dir/data/postmaster.pid ]] || return 0
	bin=$(pg_bindir) || return 0
	if ! as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1; then
		pid=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null) || true
		if [[ -n $pid ]]; then
			log "pg_ctl stop failed; killing postmaster $pid"
			kill -9 "$pid" 2>/dev/null || true
		fi
	fi
}

# --- S3 (versitygw) ----------------------------------------------------------------------------

# install_versitygw builds versitygw into ROOT/.cache/bin once (about 2 minutes on a cold Go cache).
install_versitygw() {
	local bindir=$1/.cache/bin
	if [[ -x $bindir/versitygw && $(cat "$bindir/versitygw.version" 2>/dev/null) == "$VERSITYGW_VERSION" ]]; then
		return 0
	fi
	log "go install versitygw@$VERSITYGW_VERSION"
	mkdir -p "$bindir"
	GOBIN=$bindir go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
	echo "$VERSITYGW_VERSION" >"$bindir/versitygw.version"
}

# --- staticcheck -------------------------------------------------------------------------------

# install_staticcheck builds staticcheck into ROOT/.cache/bin once (about a minute of CPU).
install_staticcheck() {
	local bindir=$1/.cache/bin
	if [[ -x $bindir/staticcheck && $(cat "$bindir/staticcheck.version" 2>/dev/null) == "$STATICCHECK_VERSION" ]]; then
		return 0
	fi
	log "go install staticcheck@$STATICCHECK_VERSION"
	mkdir -p "$bindir"
	GOBIN=$bindir go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
	echo "$STATICCHECK_VERSION" >"$bindir/staticcheck.version"
}

# --- promtool ----------------------------------------------------------------------------------

# install_promtool unpacks promtool from Debian's prometheus package into ROOT/.cache/bin once (a
# 19 MB download; nothing is installed, no service started). TestScale runs `promtool check
# metrics` on a scrape when it is there. A machine without the package or apt goes without it.
install_promtool() {
	local bindir=$1/.cache/bin tmp
	[[ -x $bindir/promtool ]] && return 0
	command -v apt-get >/dev/null || return 0
	tmp=$(mktemp -d)
	if (cd "$tmp" && apt-get download -qq prometheus >/dev/null 2>&1) && dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x"; then
		mkdir -p "$bindir"
		cp "$tmp/x/usr/bin/promtool" "$bindir/promtool"
		log "promtool $("$bindir/promtool" --version 2>&1 | head -1 | cut -d' ' -f3) in $bindir"
	else
		log "promtool not installed (apt-get download prometheus failed): TestScale skips its check"
	fi
	rm -rf "$tmp"
}

# start_s3 ROOT DIR: start versitygw (posix backend in DIR/data, object metadata in a sidecar
# directory DIR/meta so it works without xattrs; --nometa would drop Content-Type, ETag and user
# metadata) on a free loopback port and export TEST_S3_URL and the AWS credentials.
# Buckets are created by the tests. Like start_pg, it retries on a later port when another process
# took the chosen one between the check and versitygw's bind.
start_s3() {
	local root=$1 dir=$2 port try
	local base=${S3_PORT_BASE:-57070}
	mkdir -p "$dir/data" "$dir/meta"
	for try in 1 2 3 4 5; do
		port=$(free_port "$base")
		if s3_try "$root" "$dir" "$port"; then
			break
		fi
		cat "$dir/versitygw.log" >&2
		((try < 5)) || die "versitygw did not start (log: $dir/versitygw.log)"
		log "versitygw start on port $port failed, retrying on a later port"
		base=$((port + 1))
	done
	export TEST_S3_URL="s3://studio-test?endpoint=http://127.0.0.1:$port&region=us-east-1"
	export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY
	log "versitygw $VERSITYGW_VERSION on 127.0.0.1:$port (data $dir/data)"
}

# s3_try ROOT DIR PORT starts versitygw on PORT and waits for its health check; false (with the
# process gone) when it exited, e.g. because the port was taken, or did not answer in 30 s.
s3_try() {
	local root=$1 dir=$2 port=$3 pid i
	"$root/.cache/bin/versitygw" --port "127.0.0.1:$port" \
		--access "$S3_ACCESS_KEY" --secret "$S3_SECRET_KEY" --region us-east-1 \
		--quiet --health /health \
		posix --sidecar "$dir/meta" "$dir/data" >"$dir/versitygw.log" 2>&1 &
	pid=$!
	echo "$pid" >"$dir/pid"
	for ((i = 0; i < 300; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null || true
			rm -f "$dir/pid"
			return 1
		fi
		# The answer must come from our process: check it is still alive after it answered
		# (a server that lost the port exits at once, another one may be answering there).
		if curl -fsS -o /dev/null "http://127.0.0.1:$port/health" 2>/dev/null && sleep 0.1 && kill -0 "$pid" 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	stop_s3 "$dir"
	return 1
}

# stop_s3 DIR stops the versitygw started by start_s3 (if any); it never fails.
stop_s3() {
	local dir=$1 pid i
	[[ -f $dir/pid ]] || return 0
	pid=$(cat "$dir/pid")
	kill "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do
		[[ $(proc_state "$pid") == [^Z]* ]] || break # gone, or exited and waiting to be reaped
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true # reap it when it is our child
}

# proc_state PID prints the process state letter (R, S, Z, ...) or nothing when it is gone.
proc_state() {
	local _pid _comm state
	read -r _pid _comm state _ 2>/dev/null <"/proc/$1/stat" || return 0
	echo "$state"
}

# package_timings PROGRESS prints, from scripts/test-exec.sh's lines in PROGRESS, the 15 test
# binaries that used the most CPU time (user + system) with their wall times, then how many ran and
# their summed CPU and wall times. The CPU time is what a package costs: the wall time also counts
# the waits for the other binaries sharing the cores.
package_timings() {
	awk '$3 == "cpu" {
			w = $2; c = $4; sub(/s$/, "", w); sub(/s$/, "", c)
			name = $5; for (i = 6; i <= NF; i++) name = name " " $i
			printf "%9.1fs %9.1fs  %-4s %s\n", c, w, $1, name
		}' "$1" | sort -rn | awk '
		BEGIN { printf "      %9s %9s\n", "cpu", "wall" }
		{ n++; cpu += $1; wall += $2; if (n <= 15) print "      " $0 }
		END { if (n) printf "      %d test binaries: %.1fs CPU, %.1fs wall summed\n", n, cpu, wall }'
}
