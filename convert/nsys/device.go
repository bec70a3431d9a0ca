package nsys

import (
	"database/sql"
	"errors"
)

// pickDevice returns the device to convert: Options.Device when set (it
// must have kernels), else the device with the most kernels.
func (r *report) pickDevice(o Options) (int64, error) {
	if o.Device >= 0 {
		var n int64
		if err := r.db.QueryRow(`SELECT COUNT(*) FROM `+tabKernel+` WHERE deviceId = ?`, o.Device).Scan(&n); err != nil {
			return 0, &Error{File: r.file, Table: tabKernel, Row: -1, Msg: "counting kernels", Err: err}
		}
		if n == 0 {
			return 0, errorf(r.file, tabKernel, -1, "no kernels on device %d", o.Device)
		}
		return o.Device, nil
	}
	var dev int64
	err := r.db.QueryRow(`SELECT deviceId FROM ` + tabKernel + ` WHERE deviceId IS NOT NULL
		GROUP BY deviceId ORDER BY COUNT(*) DESC, deviceId LIMIT 1`).Scan(&dev)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, errorf(r.file, tabKernel, -1, "no kernels: nothing to convert")
	}
	if err != nil {
		return 0, &Error{File: r.file, Table: tabKernel, Row: -1, Msg: "reading deviceId", Err: err}
	}
	return dev, nil
}
