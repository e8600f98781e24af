.PHONY: test run check bench ledger-model scale-test

# Installs what is missing, starts PostgreSQL and an S3 server, runs go test -race, lints OpenAPI.
test:
	bash scripts/test.sh

run:
	go run ./cmd/studio serve

# gofmt, go vet and staticcheck (the version make test runs, installed into .cache/bin once).
check:
	@files=$$(gofmt -l .); if [ -n "$$files" ]; then echo "gofmt -l:"; echo "$$files"; exit 1; fi
	go vet ./...
	bash -c 'source scripts/lib.sh && install_staticcheck "$$PWD"'
	.cache/bin/staticcheck ./...

bench:
	go test -run='^$$' -bench=. -benchmem ./...

# The ledger model test at length, outside CI (issue 18): 1,000,000 random steps on each engine,
# purchases, renewals, expiries and holds interleaved; the touched house audited whole every AUDIT
# steps (default 1000), cheap checks of what each step touched in between. ENGINE=sqlite or
# ENGINE=postgres runs one engine (default both); PostgreSQL is a throwaway one started here.
#   make ledger-model ENGINE=sqlite STEPS=100000
ledger-model:
	$(if $(filter sqlite,$(ENGINE)),,eval "$$(bash scripts/pg.sh start $${TMPDIR:-/tmp}/studio-pg-model)" &&) \
	go test -run '^TestLedgerModel$$$(if $(ENGINE),/^$(ENGINE)$$)' -v -count=1 -timeout 0 ./internal/sqlstore \
		-ledger.steps=$${STEPS:-1000000} -ledger.audit=$${AUDIT:-1000} -ledger.progress=$${PROGRESS:-50000}

# TestScale at length, outside CI (issue 30): 2 API instances and 2 workers as processes on one
# PostgreSQL and one versitygw bucket (both throwaway, started here), HOUSES x DEVELOPS develops
# (default 20 x 25 = 500) with a worker killed mid-render and rolling restarts; prints the figures
# of docs/scale.md and draws a graph of /metrics over the run into GRAPH (default
# .cache/scale-test.png). make test runs the same test short (3 x 20) under -race.
#   make scale-test HOUSES=4 DEVELOPS=10 RENDER=2s
scale-test:
	bash scripts/scale-test.sh
