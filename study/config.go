package study

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// InputError is a problem with the plan's files or settings — a trace
// that is missing or malformed, a key the model does not know, a value
// out of range — that the user is to fix, as opposed to a failure of the
// machine (a full disk).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(err error) error {
	if err == nil {
		return nil
	}
	return &InputError{err}
}

// IsInputError reports whether err is, or wraps, an InputError.
func IsInputError(err error) bool {
	var in *InputError
	return errors.As(err, &in)
}

// Config is the model a replay runs on: its GPU (a preset, a JSON file
// or the trace's captured GPU), then its --set overrides in order, then
// its swept settings.
func (r Replay) Config() (model.Config, error) {
	var cfg model.Config
	var err error
	if r.GPU == "captured" {
		cfg, err = CapturedConfig(r.Trace)
	} else {
		cfg, err = model.Load(r.GPU)
	}
	if err != nil {
		return cfg, inputErr(err)
	}
	captured := cfg
	for _, kv := range r.Sets {
		if err := set(&cfg, kv); err != nil {
			return cfg, inputErr(fmt.Errorf("--set: %w", err))
		}
	}
	if err := cfg.Validate(); err != nil {
		// A value the trace's header set and no --set replaced is the
		// trace's: name it (issue 75: "lat.host_sync is -5; ..." named
		// no file).
		if r.GPU == "captured" {
			if herr := captured.Validate(); herr != nil && herr.Error() == err.Error() {
				err = fmt.Errorf("%s: --gpu=captured: the trace header's %w", r.Trace, err)
			}
		}
		return cfg, inputErr(err)
	}
	for _, kv := range r.Sweep {
		if err := set(&cfg, kv); err != nil {
			return cfg, inputErr(fmt.Errorf("--sweep: %w", err))
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, inputErr(fmt.Errorf("--sweep %s: %w", r.Params(), err))
	}
	return cfg, nil
}

func set(cfg *model.Config, kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return fmt.Errorf("%q: want key=value", kv)
	}
	return cfg.Set(k, v)
}

// CapturedConfig is the k20c model with the GPU the trace header records,
// and then the model settings its importer measured (header meta keys
// "set.KEY", in key order; see model.FromHeader).
func CapturedConfig(path string) (model.Config, error) {
	base, err := model.Preset("k20c")
	if err != nil {
		return base, err
	}
	h, err := ReadHeader(path)
	if err != nil {
		return base, err
	}
	if h.GPUSpec == nil {
		return base, fmt.Errorf("%s: --gpu=captured, but the trace header records no gpu_spec", path)
	}
	cfg, err := model.FromHeader(base, h)
	if err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ReadHeader reads a trace's first record.
func ReadHeader(path string) (*trace.Header, error) {
	src, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	r, err := trace.NewValidator(src).Next()
	if err != nil {
		return nil, err
	}
	h, ok := r.(*trace.Header)
	if !ok {
		return nil, fmt.Errorf("%s: first record is not a header", path)
	}
	return h, nil
}
