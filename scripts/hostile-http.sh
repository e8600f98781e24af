#!/usr/bin/env bash
# Re-runs the HTTP-layer hostile vectors of issue 8 against a built binary on
# loopback and prints each answer; the refused ones must leave the house as it
# was and log no server error.
#
#   go build -o /tmp/studio ./cmd/studio
#   scripts/hostile-http.sh /tmp/studio 18931                       # SQLite
#   scripts/hostile-http.sh /tmp/studio 18932 postgres://.../db     # PostgreSQL (an empty database)
set -u
BIN=$1; PORT=$2; DB=${3:-}
DIR=$(mktemp -d)
BASE=http://127.0.0.1:$PORT
STUDIO_ADDR=127.0.0.1:$PORT STUDIO_PUBLIC_URL=$BASE STUDIO_DATA_DIR=$DIR DATABASE_URL=$DB STUDIO_WORKERS=1 "$BIN" serve >$DIR/log 2>&1 &
PID=$!
trap 'kill $PID; wait $PID 2>/dev/null; rm -rf $DIR' EXIT
for _ in $(seq 100); do curl -s $BASE/health >/dev/null && break; sleep 0.1; done
J='Content-Type: application/json'
code() { python3 -c 'import sys,json
b=sys.stdin.read()
try: print(json.loads(b).get("error",""))
except Exception: print(b[:60].replace("\n"," "))'; }
req() { # name, curl args...
  local name=$1; shift
  local out; out=$(curl -s -o $DIR/body -w '%{http_code}' "$@")
  printf '%-44s %s %s\n' "$name" "$out" "$(code <$DIR/body)"
}
curl -s -c $DIR/jar -H "$J" $BASE/api/auth/sign-up/email -d '{"name":"Ada","email":"ada@example.com","password":"a long password"}' >/dev/null
KEY=$(curl -s -b $DIR/jar -H "Origin: $BASE" -H "$J" $BASE/api/keys -d '{"name":"k","role":"member"}' | python3 -c 'import sys,json;print(json.load(sys.stdin)["key"])')
A="Authorization: Bearer $KEY"
python3 - "$DIR" <<'PY'
import sys,struct,zlib
def png(w,h):
    raw=b''.join(b'\x00'+b'\x80'*(w*3) for _ in range(h))
    def chunk(t,d): return struct.pack('>I',len(d))+t+d+struct.pack('>I',zlib.crc32(t+d))
    return b'\x89PNG\r\n\x1a\n'+chunk(b'IHDR',struct.pack('>IIBBBBB',w,h,8,2,0,0,0))+chunk(b'IDAT',zlib.compress(raw))+chunk(b'IEND',b'')
open(sys.argv[1]+'/i.png','wb').write(png(64,48))
PY
req "sign-in, NUL in e-mail (no credential)" -H "$J" $BASE/api/auth/sign-in/email -d '{"email":"a\u0000@example.com","password":"x"}'
req "sign-up, NUL in name" -H "$J" $BASE/api/auth/sign-up/email -d '{"name":"A\u0000","email":"b@example.com","password":"a long password"}'
req "post, NUL in title" -H "$A" -H "$J" $BASE/posts -d '{"title":"T\u0000","body":"b"}'
req "collection, ESC in name" -H "$A" -H "$J" $BASE/api/toolkit/folders -d '{"name":"\u001b[2J"}'
req "asset list, NUL in folderId" -H "$A" "$BASE/api/toolkit/assets?folderId=%00"
req "post by id, NUL in the id" -H "$A" "$BASE/posts/%00"
req "post by id, never existed" -H "$A" "$BASE/posts/0190a1c2-0000-7000-8000-000000000000"
req "submit, NUL in an option" -H "$A" -F tool=upscale -F "image=@$DIR/i.png" -F $'runId=a\x01b' $BASE/api/toolkit/jobs/submit
JOB=$(curl -s -H "$A" -F tool=upscale -F "image=@$DIR/i.png" $BASE/api/toolkit/jobs/submit | python3 -c 'import sys,json;print(json.load(sys.stdin)["jobId"])')
KEY10K=$(python3 -c 'print("k"*10000)')
req "duplicate, 10,000-character key" -H "$A" -H "$J" $BASE/api/toolkit/jobs/$JOB/duplicate -d "{\"idempotencyKey\":\"$KEY10K\"}"
ARGS=(-F tool=upscale); for _ in $(seq 1000); do ARGS+=(-F "image=@$DIR/i.png"); done
req "submit, 1,000 image parts" -H "$A" "${ARGS[@]}" $BASE/api/toolkit/jobs/submit
N=$(curl -s -H "$A" $BASE/api/toolkit/assets | python3 -c 'import sys,json;print(len(json.load(sys.stdin)["assets"]))')
echo "assets in the house after the refusals: $N (the one accepted submit's input, and its frame once developed)"
echo "log lines of status >= 500: $(grep -c '"status":5' $DIR/log)"
echo "log lines with level ERROR: $(grep -c '"level":"ERROR"' $DIR/log)"
