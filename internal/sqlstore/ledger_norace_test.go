//go:build !race

package sqlstore

// ledgerRace reports a -race build; see ledger_race_test.go.
const ledgerRace = false
