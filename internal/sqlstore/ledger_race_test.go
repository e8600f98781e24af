//go:build race

package sqlstore

// ledgerRace reports a -race build, where modernc's SQLite runs many times
// slower: the model test takes fewer steps by default.
const ledgerRace = true
