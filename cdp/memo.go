package cdp

import (
	"hash/fnv"
	"maps"
	"slices"
	"strconv"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// The memo of a read (read.go): not mapping an unchanged page again, and
// what is kept for the next read; then the walks start.

// A page that has not changed is not mapped again: the Document element
// of each tab's document is kept with a fingerprint of everything the
// mapping read for it (the warm trees' versions, focus, pointer, value
// texts, in every frame), and handed back to the mapping when the next
// read's fingerprint is the same. A document read cold has none.

// memo is one Document element kept for the next read.
type memo struct {
	fp uint64
	el *mapping.Element
}

// fingerprint sums up what mapping a document depends on (what its
// frames are made of: frameOf); ok is false when some frame was read
// cold (it has no version to vouch for it).
func fingerprint(d *doc, focus focusPath, pointer pointerAt) (fp uint64, ok bool) {
	h := fnv.New64a()
	var b []byte
	var walk func(d *doc) bool
	walk = func(d *doc) bool {
		if d.version == 0 {
			return false
		}
		b = strconv.AppendUint(b[:0], d.n, 36)
		b = append(b, ' ')
		b = strconv.AppendUint(b, d.version, 36)
		b = append(b, ' ')
		b = append(b, d.url...)
		b = append(b, ' ')
		hasFocus, hover := focus.has(d), []cdproto.BackendNodeID(nil)
		if pointer.in == d {
			hover = pointer.hover
		}
		for _, flag := range []bool{hasFocus, hasFocus, pointer.in == d} {
			b = strconv.AppendBool(b, flag)
		}
		for _, ids := range [][]cdproto.BackendNodeID{focus.chainIn(d), {0}, hover} {
			for _, id := range ids {
				b = strconv.AppendInt(b, int64(id), 36)
				b = append(b, ',')
			}
		}
		b = strconv.AppendUint(b, d.textSum, 36)
		h.Write(b)
		owners := make([]cdproto.BackendNodeID, 0, len(d.children))
		for k := range d.children {
			owners = append(owners, k)
		}
		slices.Sort(owners)
		for _, o := range owners {
			h.Write(strconv.AppendInt(b[:0], int64(o), 36))
			if !walk(d.children[o]) {
				return false
			}
		}
		h.Write([]byte{'.'})
		return true
	}
	if !walk(d) {
		return 0, false
	}
	return h.Sum64(), true
}

// reuseMapped returns the fingerprints of this read's top documents, and
// the kept Document element of each whose fingerprint is unchanged, by
// document number.
func (p *Provider) reuseMapped(topDocs []*doc, focus focusPath, pointer pointerAt) (fingerprints map[uint64]uint64, reused map[uint64]*mapping.Element) {
	fingerprints, reused = map[uint64]uint64{}, map[uint64]*mapping.Element{}
	for _, d := range topDocs {
		fp, ok := fingerprint(d, focus, pointer)
		if !ok {
			continue
		}
		fingerprints[d.n] = fp
		if m := d.info.mapped; m.el != nil && m.fp == fp {
			reused[d.n] = m.el
			p.reused.Add(1)
		}
	}
	return fingerprints, reused
}

// keepMapped stores the Document elements of an answer that was not cut, for
// the next read; the others are forgotten.
func (p *Provider) keepMapped(root *mapping.Element, fingerprints map[uint64]uint64, cut bool) {
	for _, d := range p.state.docs {
		d.mapped = memo{}
	}
	if cut {
		return
	}
	for doc, fp := range fingerprints {
		d := p.state.docs[doc]
		if d == nil {
			continue
		}
		id := p.ids.Document(doc)
		for _, w := range root.Children {
			for _, el := range w.Children {
				if el.ID == id {
					d.mapped = memo{fp, el}
				}
			}
		}
	}
}

// rememberShown keeps the Document element each top document had in this
// answer, so that a page that cannot be read later (it froze, or waits on
// a dialog) is answered as it was last shown (readDown). The elements of
// documents answered that way are kept as they were.
func (p *Provider) rememberShown(root *mapping.Element, topDocs []*doc) {
	for _, d := range p.state.docs {
		if !d.held {
			d.shown = nil
		}
	}
	for _, d := range topDocs {
		if d.partial { // only what was on screen: not the page as shown
			continue
		}
		id := p.ids.Document(d.n)
		for _, w := range root.Children {
			for _, el := range w.Children {
				if el.ID == id {
					d.info.shown = el
				}
			}
		}
	}
}

// keepScans keeps the node scans of this read's documents for the next
// read (scanOf), and only those. Called with p.mu held.
func (p *Provider) keepScans(reads []*tabRead) {
	var scans map[uint64]nodeScan
	for _, r := range reads {
		if r == nil {
			continue
		}
		r.mu.Lock()
		if scans == nil {
			scans = r.scans
		} else {
			maps.Copy(scans, r.scans)
		}
		r.mu.Unlock()
	}
	p.state.scans = scans
}

// startWalks starts the walks the read that just ended asked for, now
// that it no longer waits on Chrome. Called with p.mu held.
func (p *Provider) startWalks() {
	if p.state == nil {
		return
	}
	for _, s := range p.state.sessions {
		if a := s.ax.Load(); a != nil {
			a.StartWalks()
		}
	}
}
