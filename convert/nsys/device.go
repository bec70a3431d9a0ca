package nsys

// pickDevice returns the device to convert: Options.Device when set (it
// must have kernels), else the device with the most kernels (the lowest
// id among equals).
func (r *report) pickDevice(o Options) (int64, error) {
	count := map[valueKey]int{}
	ids := map[valueKey]any{}
	err := r.scan(tabKernel, "counting kernels", []string{"deviceId"}, func(_ int64, v []any) error {
		if v[0] != nil {
			k := keyOf(v[0])
			if _, ok := ids[k]; !ok {
				ids[k] = copyValue(v[0])
			}
			count[k]++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if o.Device >= 0 {
		if count[keyOf(o.Device)] == 0 {
			return 0, errorf(r.file, tabKernel, -1, "no kernels on device %d", o.Device)
		}
		return o.Device, nil
	}
	var best any
	n := 0
	for k, c := range count {
		if c > n || c == n && compare(ids[k], best) < 0 {
			best, n = ids[k], c
		}
	}
	if best == nil {
		return 0, errorf(r.file, tabKernel, -1, "no kernels: nothing to convert")
	}
	dev, err := scanInt(best)
	if err != nil {
		return 0, &Error{File: r.file, Table: tabKernel, Row: -1, Msg: "reading deviceId", Err: err}
	}
	return dev.Int64, nil
}
