// Package interop checks that gpureplay's output tables load cleanly in
// the tools users analyse them with. It is its own module so that the
// main module's build and `go test ./...` do not need cgo or DuckDB's
// ~100 MB library; .ci/run runs its tests separately. Run them with
// -count=1: they build and run the replay command, which go test's cache
// does not see, so a cached pass may predate a change to the main module.
package interop
