package tables

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestColumnsDocumented checks that docs/tables.md names every column in
// its table's section ("## ctas — ..."), and the run columns before the
// first section.
func TestColumnsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/tables.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	parts := strings.Split("\n"+string(b), "\n## ")
	sections[""] = parts[0]
	for _, p := range parts[1:] {
		name, _, _ := strings.Cut(p, " ")
		sections[name] = p
	}
	documented := func(section, table string, cols []Column) {
		text, ok := sections[section]
		if !ok {
			t.Errorf("docs/tables.md has no section ## %s", section)
			return
		}
		for _, c := range cols {
			if !regexp.MustCompile(`(^|\W)` + c.Name + `($|\W)`).MatchString(text) {
				t.Errorf("docs/tables.md does not document %s.%s (%s)", table, c.Name, c.Doc)
			}
		}
	}
	documented("", "every table", RunColumns())
	for _, tb := range All() {
		documented(tb.Name, tb.Name, tb.Columns)
	}
}
