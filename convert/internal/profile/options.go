package profile

import (
	"math"
	"strconv"
)

// ParseClockMHz reads a clock_mhz option: a finite number ≥ 0, where 0
// means "take the clock from the profile or the table". ok is false for
// anything else; each importer words its own message (what 0 means there).
func ParseClockMHz(value string) (mhz float64, ok bool) {
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false
	}
	return v, true
}

// ParseDevice reads a device option: a device number, or −1 for the
// importer's default choice.
func ParseDevice(value string) (device int64, ok bool) {
	v, err := strconv.ParseInt(value, 10, 64)
	if err != nil || v < -1 {
		return 0, false
	}
	return v, true
}
