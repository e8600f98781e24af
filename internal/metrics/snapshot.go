package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	jobsDesc = prometheus.NewDesc("studio_jobs", "Develops in a live state, by tool and state (queued, running), read from the database.",
		[]string{"tool", "state"}, nil)
	queueDesc        = prometheus.NewDesc("studio_queue_depth", "Develops queued, every tool, read from the database.", nil, nil)
	oldestQueuedDesc = prometheus.NewDesc("studio_queue_oldest_age_seconds",
		"Age of the oldest queued develop (0 when none is queued).", nil, nil)
	holdsDesc      = prometheus.NewDesc("studio_holds_pending", "Token holds pending, every house.", nil, nil)
	oldestHoldDesc = prometheus.NewDesc("studio_holds_oldest_age_seconds", "Age of the oldest pending hold (0 when none is).", nil, nil)
	outboxDesc     = prometheus.NewDesc("studio_webhook_outbox_depth", "Webhook deliveries pending (waiting or retrying).", nil, nil)
	scrapeOKDesc   = prometheus.NewDesc("studio_database_scrape_ok", "1 when this scrape read the database's gauges, else 0.", nil, nil)
)

// snapshotCollector reads the database's gauges once per scrape.
type snapshotCollector struct {
	read func(context.Context) (Snapshot, error)
	now  func() time.Time
	log  *slog.Logger
}

func (c *snapshotCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{jobsDesc, queueDesc, oldestQueuedDesc, holdsDesc, oldestHoldDesc, outboxDesc, scrapeOKDesc} {
		ch <- d
	}
}

func (c *snapshotCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), ScrapeWithin)
	defer cancel()
	s, err := c.read(ctx)
	if err != nil {
		c.log.Warn("metrics: database gauges", "err", err)
		ch <- prometheus.MustNewConstMetric(scrapeOKDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(scrapeOKDesc, prometheus.GaugeValue, 1)
	now := c.now()
	age := func(t time.Time) float64 {
		if t.IsZero() || t.After(now) {
			return 0
		}
		return now.Sub(t).Seconds()
	}
	var queued int64
	var oldest time.Time
	for _, j := range s.Jobs {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(j.Count), j.Tool, j.State)
		if j.State == "queued" {
			queued += j.Count
			if oldest.IsZero() || (!j.Oldest.IsZero() && j.Oldest.Before(oldest)) {
				oldest = j.Oldest
			}
		}
	}
	ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(queued))
	ch <- prometheus.MustNewConstMetric(oldestQueuedDesc, prometheus.GaugeValue, age(oldest))
	ch <- prometheus.MustNewConstMetric(holdsDesc, prometheus.GaugeValue, float64(s.HoldsPending))
	ch <- prometheus.MustNewConstMetric(oldestHoldDesc, prometheus.GaugeValue, age(s.OldestHold))
	ch <- prometheus.MustNewConstMetric(outboxDesc, prometheus.GaugeValue, float64(s.Outbox))
}
