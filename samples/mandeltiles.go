package samples

// mandelWork counts pixels evaluated by the escape-time loop and the
// iterations they took: what the loop costs.
type mandelWork struct {
	pixels int
	iters  int64
}

func (w *mandelWork) add(dwell int) {
	w.pixels++
	w.iters += int64(dwell)
}

// mandelTile is one thread's tile in the Mariani-Silver recursion, with the
// work its thread does and the nested work it may hand to a child. A tile
// whose border has one dwell is uniform: its interior is filled with that
// dwell. Otherwise its interior is the nested work, which either
// subdivides into sub-tiles (subs, the next level) or, at the last level,
// evaluates every interior pixel (pixels).
type mandelTile struct {
	rect    mandelRect
	border  mandelWork
	uniform bool
	pixels  mandelWork    // the interior, evaluated pixel by pixel (no subs)
	subs    []*mandelTile // the interior's sub-tiles, row-major; nil for an empty one
	site    bool          // the nested work is launched as a child kernel
	inline  int64         // what the nested work costs the tile's own thread, done serially
}

// nested is the tile's nested work in pixels: a launch site's workload.
func (t *mandelTile) nested() int {
	if t.uniform {
		return 0
	}
	return t.rect.interior().pixels()
}

// mandelSolver runs Mariani-Silver over an image. Tiles at levels below
// depth−1 subdivide their nested work into subdiv×subdiv sub-tiles; those
// at level depth−1 evaluate it pixel by pixel. A non-uniform tile whose
// interior has more than threshold pixels launches its nested work as a
// child; a smaller one does it inline.
type mandelSolver struct {
	img                      *mandelImage
	depth, subdiv, threshold int
}

// tile evaluates r's border at the given level and resolves its interior:
// filled if the border is uniform, otherwise subdivided or evaluated, and
// its inline cost totalled.
func (s *mandelSolver) tile(r mandelRect, level int) *mandelTile {
	t := &mandelTile{rect: r, uniform: true}
	first := -1
	r.border(func(x, y int) {
		d := s.img.evaluate(x, y)
		t.border.add(d)
		if first < 0 {
			first = d
		} else if d != first {
			t.uniform = false
		}
	})
	in := r.interior()
	if t.uniform {
		s.img.fill(in, first)
		return t
	}
	if level+1 < s.depth {
		for _, sub := range in.split(s.subdiv) {
			if sub.pixels() == 0 {
				t.subs = append(t.subs, nil)
				continue
			}
			st := s.tile(sub, level+1)
			t.subs = append(t.subs, st)
			t.inline += mandelSerialCycles(st)
		}
	} else {
		for y := in.y; y < in.y+in.h; y++ {
			for x := in.x; x < in.x+in.w; x++ {
				t.pixels.add(s.img.evaluate(x, y))
			}
		}
		t.inline = mandelEvalCycles(t.pixels)
	}
	t.site = in.pixels() > s.threshold
	return t
}

// tiles cuts the image into side×side tiles, row-major, clipping those at
// the right and bottom edges, and resolves each at level 0.
func (s *mandelSolver) tiles(side int) []*mandelTile {
	var ts []*mandelTile
	for y := 0; y < s.img.height; y += side {
		for x := 0; x < s.img.width; x += side {
			r := mandelRect{x, y, min(side, s.img.width-x), min(side, s.img.height-y)}
			ts = append(ts, s.tile(r, 0))
		}
	}
	return ts
}
