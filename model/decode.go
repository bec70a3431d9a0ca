package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// decoder overlays a JSON document of the shape of Config — an object of
// section objects of scalar values — onto a Config, key by key. It walks the
// tokens itself rather than calling json.Unmarshal so that every error can
// name the dotted key and the line it is on, unknown keys are all reported
// together, duplicates are caught, and numbers go through the same parser as
// --set, so a file and the command line accept exactly the same values.
type decoder struct {
	name    string // file name for messages
	data    []byte
	dec     *json.Decoder
	dst     reflect.Value   // the Config being filled
	named   map[string]bool // keys the document set
	unknown []string        // "key (line n)" for each key Config lacks
}

// decodeConfig overlays the JSON object in data onto c and returns the set
// of keys it named. name prefixes every error.
func decodeConfig(name string, data []byte, c *Config) (map[string]bool, error) {
	d := &decoder{
		name:  name,
		data:  data,
		dec:   json.NewDecoder(bytes.NewReader(data)),
		dst:   reflect.ValueOf(c).Elem(),
		named: make(map[string]bool),
	}
	if err := d.document(); err != nil {
		return nil, err
	}
	if len(d.unknown) > 0 {
		for _, u := range d.unknown {
			// A top-level "gpu.sms" is the --set spelling of a nested key.
			if k, _, _ := strings.Cut(u, " "); keyByName[k] != nil {
				section, field, _ := strings.Cut(k, ".")
				return nil, fmt.Errorf("%s: key %s: a GPU file nests keys by section, as the presets do: write {%q: {%q: ...}}, not %q (replay gpus lists the presets; docs/model.md the keys)", name, u, section, field, k)
			}
		}
		first, _, _ := strings.Cut(d.unknown[0], " ")
		return nil, fmt.Errorf("%s: unknown %s %s; %s",
			name, plural(len(d.unknown), "key"), strings.Join(d.unknown, ", "), unknownKeyHint(first))
	}
	return d.named, nil
}

func (d *decoder) document() error {
	if err := d.open("the file"); err != nil {
		return err
	}
	for d.dec.More() {
		section, err := d.key()
		if err != nil {
			return err
		}
		if !sections[section] {
			if err := d.skip(section); err != nil {
				return err
			}
			continue
		}
		if err := d.section(section); err != nil {
			return err
		}
	}
	if err := d.close(); err != nil {
		return err
	}
	if _, err := d.dec.Token(); err != io.EOF {
		return d.errorf("unexpected data after the closing }")
	}
	return nil
}

func (d *decoder) section(section string) error {
	if err := d.open("section " + section); err != nil {
		return err
	}
	for d.dec.More() {
		field, err := d.key()
		if err != nil {
			return err
		}
		name := section + "." + field
		k, ok := keyByName[name]
		if !ok {
			if err := d.skip(name); err != nil {
				return err
			}
			continue
		}
		if d.named[name] {
			return d.errorf("duplicate key %s", name)
		}
		d.named[name] = true
		if err := d.value(k); err != nil {
			return err
		}
	}
	return d.close()
}

// value decodes one scalar into k's field. A number must be written as a
// JSON number and a string as a JSON string: "13" for gpu.sms is a mistake
// worth reporting, not something to guess at.
func (d *decoder) value(k *key) error {
	var raw json.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		return d.syntax(err)
	}
	if k.kind == reflect.String {
		var s string
		if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return d.errorf("bad value %s for %s: want a string", raw, k.name)
		}
		k.value(d.dst).SetString(s)
		return nil
	}
	problem := "want an integer"
	if k.kind == reflect.Float64 {
		problem = "want a number"
	}
	if raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') {
		problem = k.parse(k.value(d.dst), string(raw))
	}
	if problem != "" {
		return d.errorf("bad value %s for %s: %s", raw, k.name, problem)
	}
	return nil
}

// skip records an unknown key and steps over its value, so one run of the
// decoder reports every misspelling in the file.
func (d *decoder) skip(name string) error {
	d.unknown = append(d.unknown, fmt.Sprintf("%s (line %d)", name, d.line()))
	var raw json.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		return d.syntax(err)
	}
	return nil
}

func (d *decoder) key() (string, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return "", d.syntax(err)
	}
	s, ok := tok.(string)
	if !ok {
		return "", d.errorf("want a key, found %v", tok)
	}
	return s, nil
}

func (d *decoder) open(what string) error {
	tok, err := d.dec.Token()
	if err == io.EOF {
		return fmt.Errorf("%s: empty; want a JSON object", d.name)
	}
	if err != nil {
		return d.syntax(err)
	}
	if tok != json.Delim('{') {
		return d.errorf("%s: want an object, found %v", what, tok)
	}
	return nil
}

func (d *decoder) close() error {
	if _, err := d.dec.Token(); err != nil {
		return d.syntax(err)
	}
	return nil
}

// syntax turns a json error into one that names the file and line. A
// file that ends inside its object is said so whichever way encoding/json
// tells it: Go 1.26 returns io.ErrUnexpectedEOF, Go 1.27 a SyntaxError at
// the end of the input.
func (d *decoder) syntax(err error) error {
	var se *json.SyntaxError
	switch {
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &se) && se.Offset >= int64(len(d.data)):
		return fmt.Errorf("%s: unexpected end of file", d.name)
	case se != nil:
		return fmt.Errorf("%s:%d: %v", d.name, lineAt(d.data, se.Offset), err)
	}
	return fmt.Errorf("%s:%d: %v", d.name, d.line(), err)
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", d.name, d.line(), fmt.Sprintf(format, args...))
}

// line is the line of the token the decoder last returned.
func (d *decoder) line() int { return lineAt(d.data, d.dec.InputOffset()) }

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
