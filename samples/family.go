package samples

import "github.com/gpureplay/gpureplay/trace"

// writeCTAs writes a kernel's ctas CTAs, CTA c from cta(c) with the launch
// sites it holds, and returns the sites in CTA order.
func writeCTAs[S any](out trace.Sink, ctas int, cta func(c int) (*trace.CTA, []S)) ([]S, error) {
	var sites []S
	for c := range ctas {
		rec, s := cta(c)
		if err := out.Write(rec); err != nil {
			return nil, err
		}
		sites = append(sites, s...)
	}
	return sites, nil
}

// writeFamily writes a parent kernel's CTAs (writeCTAs), then child(s) for
// each of their launch sites in CTA order: every DP generator writes a
// kernel's CTAs before its children, so a reader holds one family in
// flight.
func writeFamily[S any](out trace.Sink, ctas int, cta func(c int) (*trace.CTA, []S), child func(S) error) error {
	sites, err := writeCTAs(out, ctas, cta)
	if err != nil {
		return err
	}
	for _, s := range sites {
		if err := child(s); err != nil {
			return err
		}
	}
	return nil
}
