package nsys

// clockRateMHz reads TARGET_INFO_GPU.clockRate. The export schema
// documents it in Hz, but CUDA's cudaDeviceProp.clockRate, which it
// mirrors, is in kHz, and exports have carried either; a GPU core clock
// lies between 100 MHz and 10 GHz, which in Hz, kHz and MHz are three
// disjoint ranges, so the magnitude tells the unit. ok is false for a
// value in none of them.
func clockRateMHz(v int64) (mhz float64, unit string, ok bool) {
	switch {
	case v >= 100e6 && v <= 10e9:
		return float64(v) / 1e6, "Hz", true
	case v >= 100e3 && v <= 10e6:
		return float64(v) / 1e3, "kHz", true
	case v >= 100 && v <= 10e3:
		return float64(v), "MHz", true
	}
	return 0, "", false
}
