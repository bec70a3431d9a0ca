// Package study turns a set of replays — traces × policies × swept
// parameter combinations — into a numbered plan, and runs a plan on
// several workers at once.
//
// A plan is data (a manifest, one replay a line, each with a stable id),
// so one study can run on one machine (replay --jobs N), or be cut into
// shards that run anywhere — Slurm array tasks, Kubernetes indexed jobs —
// and write their rows side by side into one hive-partitioned dataset.
// Every way of running a plan gives the same rows: each replay is
// single-threaded and deterministic, rows reach a shared table in id
// order, and the speedup of a replay is against the first replay of its
// group, which always runs in the same shard.
package study
