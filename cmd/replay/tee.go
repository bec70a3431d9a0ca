package main

import (
	"errors"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/timeline"
)

// tee sends every row to the table writer and to the timeline.
type tee struct {
	tables tableSink
	tl     *timeline.Writer
}

func (t tee) Kernel(r results.Kernel)       { t.tables.Kernel(r); t.tl.Kernel(r) }
func (t tee) CTA(r results.CTA)             { t.tables.CTA(r); t.tl.CTA(r) }
func (t tee) Launch(r results.Launch)       { t.tables.Launch(r); t.tl.Launch(r) }
func (t tee) Occupancy(r results.Occupancy) { t.tables.Occupancy(r); t.tl.Occupancy(r) }
func (t tee) Page(r results.Page)           { t.tables.Page(r); t.tl.Page(r) }
func (t tee) Stage(r results.Stage)         { t.tables.Stage(r); t.tl.Stage(r) }
func (t tee) Begin(r results.Run)           { t.tables.Begin(r); t.tl.Begin(r) }
func (t tee) Summary(r results.Summary)     { t.tables.Summary(r); t.tl.Summary(r) }
func (t tee) Close() error                  { return errors.Join(t.tables.Close(), t.tl.Close()) }
func (t tee) Abort()                        { t.tables.Abort(); t.tl.Abort() }

// setModel tells the timeline, if any, the clock and host cost of the
// next run.
func (t tee) setModel(cfg model.Config) { t.tl.SetModel(cfg.GPU.ClockMHz, cfg.Lat.HostIssue) }

// modelSetter is a sink that wants each run's model.
type modelSetter interface{ setModel(model.Config) }
