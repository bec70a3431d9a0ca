package kineto

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// event is one element of traceEvents, with only the fields the importer
// reads; args stays raw until the category says which fields matter, so
// the large args of CPU operators are never decoded.
type event struct {
	Ph   string          `json:"ph"`
	Cat  string          `json:"cat"`
	Name string          `json:"name"`
	Pid  ident           `json:"pid"`
	Tid  ident           `json:"tid"`
	Ts   micros          `json:"ts"`
	Dur  micros          `json:"dur"`
	Args json.RawMessage `json:"args"`
}

// decoder walks a Kineto document with encoding/json's token API: the
// top-level object (or bare array) is read key by key, and traceEvents
// one event at a time, so no more than one event is decoded at once.
type decoder struct {
	file  string
	dec   *json.Decoder
	n     int                     // events read so far
	event func(int, *event) error // called for each event
	props func(*deviceProps)      // called for each deviceProperties entry
}

// document reads the whole input: {"traceEvents": [...], ...} or a bare
// array of events.
func (d *decoder) document() error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.syntax(err)
	}
	switch tok {
	case json.Delim('['):
		if err := d.events(); err != nil {
			return err
		}
		return d.end()
	case json.Delim('{'):
	default:
		return errorf(d.file, -1, 0, "not a Kineto trace: want a JSON object with traceEvents or an array of events")
	}
	for d.dec.More() {
		key, err := d.dec.Token()
		if err != nil {
			return d.syntax(err)
		}
		switch key {
		case "traceEvents":
			err = d.array("traceEvents", d.events)
		case "deviceProperties", "computeProperties": // PyTorch 1.9's name
			err = d.array(key.(string), d.deviceProperties)
		default:
			err = d.skip()
		}
		if err != nil {
			return err
		}
	}
	if _, err := d.dec.Token(); err != nil {
		return d.syntax(err)
	}
	return d.end()
}

// end checks that nothing but white space follows the document.
func (d *decoder) end() error {
	if _, err := d.dec.Token(); err != io.EOF {
		return errorf(d.file, -1, d.dec.InputOffset(), "data after the end of the JSON document")
	}
	return nil
}

// array reads the '[' that opens the value of key, then body.
func (d *decoder) array(key string, body func() error) error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.syntax(err)
	}
	if tok != json.Delim('[') {
		return errorf(d.file, -1, d.dec.InputOffset(), "%s is not an array", key)
	}
	return body()
}

// events reads events up to and including the closing ']'.
func (d *decoder) events() error {
	for d.dec.More() {
		var ev event
		if err := d.dec.Decode(&ev); err != nil {
			return d.eventError(err)
		}
		if err := d.event(d.n, &ev); err != nil {
			return err
		}
		d.n++
	}
	_, err := d.dec.Token()
	if err != nil {
		return d.syntax(err)
	}
	return nil
}

// deviceProperties reads device entries up to and including ']'.
func (d *decoder) deviceProperties() error {
	for i := 0; d.dec.More(); i++ {
		var p deviceProps
		if err := d.dec.Decode(&p); err != nil {
			return &Error{File: d.file, Event: -1, Offset: d.dec.InputOffset(), Msg: fmt.Sprintf("device properties entry %d", i), Err: err}
		}
		p.legacy()
		d.props(&p)
	}
	_, err := d.dec.Token()
	if err != nil {
		return d.syntax(err)
	}
	return nil
}

// skip consumes one value of any shape token by token, so an unknown
// top-level key costs no memory however large its value.
func (d *decoder) skip() error {
	depth := 0
	for {
		tok, err := d.dec.Token()
		if err != nil {
			return d.syntax(err)
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// eventError reports a failure to decode the next event.
func (d *decoder) eventError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		msg := "not an event object"
		if te.Field != "" {
			msg = fmt.Sprintf("field %q: unexpected %s", te.Field, te.Value)
		}
		return errorf(d.file, d.n, d.dec.InputOffset(), "%s", msg)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		e := d.syntax(err)
		e.Event = d.n
		return e
	}
	return errorf(d.file, d.n, d.dec.InputOffset(), "malformed event: %v", err)
}

// syntax wraps a JSON syntax or I/O error with the input position.
func (d *decoder) syntax(err error) *Error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &Error{File: d.file, Event: -1, Offset: d.dec.InputOffset(), Msg: "truncated JSON", Err: io.ErrUnexpectedEOF}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &Error{File: d.file, Event: -1, Offset: se.Offset, Msg: "not valid JSON", Err: err}
	}
	return &Error{File: d.file, Event: -1, Offset: d.dec.InputOffset(), Msg: "reading the trace", Err: err}
}
