package replay

import "github.com/gpureplay/gpureplay/internal/idtab"

// pendingDecls are the tree filer's declarations of kernels declared and
// not yet launched. The one declared last is held apart from the table: a
// launch-heavy trace launches each kernel right after declaring it (BFS
// scale 20: 165K times), which then costs no table operation, where it
// cost a set, a get and a delete. A kernel is declared once and launched
// once (the Validator in front of the reader rejects any other trace), so
// the held declaration and the table's never name the same kernel.
type pendingDecls struct {
	table  idtab.Table[declaration]
	lastID uint64
	last   declaration
	held   bool // last is the declaration of kernel lastID
}

// declare adds kernel id's declaration d.
func (p *pendingDecls) declare(id uint64, d declaration) {
	if p.held && p.lastID != id {
		p.table.Set(p.lastID, p.last)
	}
	p.lastID, p.last, p.held = id, d, true
}

// take removes and returns kernel id's declaration; ok is false if there
// is none.
func (p *pendingDecls) take(id uint64) (d declaration, ok bool) {
	if p.held && p.lastID == id {
		d = p.last
		p.last, p.held = declaration{}, false
		return d, true
	}
	if d, ok = p.table.Get(id); ok {
		p.table.Delete(id)
	}
	return d, ok
}
