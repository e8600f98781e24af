package job

import (
	"strconv"
	"time"
)

// Failure is why a develop failed: a code machines read ("" when none
// applies; the job's errorCode) and one plain sentence for people (the
// job's error). Its hold is voided either way: a failed develop charges
// nothing (SPEC §1 rule 4).
type Failure struct {
	Code   string
	Reason string
}

// CodeProviderTimeout is the code of a develop that passed its render
// deadline (DECISIONS §11): failed, its hold voided, the provider told to
// cancel where it can be.
const CodeProviderTimeout = "PROVIDER_TIMEOUT"

// TimedOut is the failure of a develop still rendering d after it was first
// claimed: the same words whichever provider it waited on.
func TimedOut(d time.Duration) Failure {
	return Failure{Code: CodeProviderTimeout, Reason: "Timed out after " + seconds(d) +
		": the provider did not finish in time, so the develop was stopped. Nothing was charged."}
}

// seconds writes d in whole seconds ("600 s"), at least 1.
func seconds(d time.Duration) string {
	return strconv.FormatInt(max(1, int64((d+time.Second/2)/time.Second)), 10) + " s"
}

// Deadlines says how long a claimed develop of a tool may render before it
// fails with PROVIDER_TIMEOUT: the tool's own deadline or the configured
// default (STUDIO_RENDER_DEADLINE).
type Deadlines func(tool string) time.Duration
