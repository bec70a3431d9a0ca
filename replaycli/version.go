package replaycli

import (
	"runtime/debug"
	"strings"
)

// versionLine says which replay this is: the module version (or "devel"
// for a build from a checkout), the commit and whether the tree had
// changes, and the Go that built it.
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "replay (gpureplay), version unknown"
	}
	v := strings.Trim(info.Main.Version, "()")
	if v == "" {
		v = "devel"
	}
	s := "replay (gpureplay) " + v
	var rev, modified string
	for _, kv := range info.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			modified = kv.Value
		}
	}
	if rev != "" {
		s += " commit " + rev[:min(12, len(rev))]
		if modified == "true" {
			s += " (modified)"
		}
	}
	return s + ", " + info.GoVersion
}
