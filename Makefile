.PHONY: test run check bench

# Installs what is missing, starts PostgreSQL and an S3 server, runs go test -race, lints OpenAPI.
test:
	bash scripts/test.sh

run:
	go run ./cmd/studio serve

check:
	@files=$$(gofmt -l .); if [ -n "$$files" ]; then echo "gofmt -l:"; echo "$$files"; exit 1; fi
	go vet ./...

bench:
	go test -run='^$$' -bench=. -benchmem ./...
