#!/usr/bin/env bash
# httpapi-weights.sh: the weights scripts/test-shards.sh deals internal/httpapi's tests by, from
# a `go test -json` run of the package under -race (each top-level test's elapsed seconds):
#
#   go test -race -json -count=1 ./internal/httpapi >run.json   # with TEST_DATABASE_URL set
#   bash scripts/httpapi-weights.sh <run.json >scripts/httpapi-weights.txt
set -euo pipefail
grep -E '"Action":"(pass|fail)"' |
	grep -E '"Test":"[^"/]+"' |
	sed -E 's/.*"Test":"([^"]+)".*"Elapsed":([0-9.]+).*/\2 \1/' |
	sort -rn -k1,1
