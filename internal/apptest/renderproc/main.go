// Command renderproc renders for a test binary: it answers, on its stdin
// and stdout, the local engines' develops a test app asks of it
// (package renderwire; internal/apptest's render.go starts it when
// $STUDIO_RENDER_EXEC names it). It is built without the race detector,
// from the same source as the test binary (scripts/test.sh builds it
// beside the studio binary), so the end-to-end tests' renders run at the
// engine's own speed; the engine's own tests still render under the race
// detector. It is a test tool: the studio binary does not include it.
package main

import (
	"fmt"
	"os"

	"studio/internal/apptest/renderwire"
	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/tool"
)

func main() {
	engines := map[string]engine.Engine{tool.Local: local.New(), tool.Lookbook: local.NewLookbook()}
	if err := renderwire.Serve(os.Stdin, os.Stdout, engines); err != nil {
		fmt.Fprintln(os.Stderr, "renderproc:", err)
		os.Exit(1)
	}
}
