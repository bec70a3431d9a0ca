package sqlite

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// Logs are the files beside a database that can hold the state SQLite
// reads instead of the file's own pages: its rollback journal (NAME-journal)
// and its write-ahead log (NAME-wal), each nil where there is none. SQLite
// finds them by the database's path with every symbolic link resolved.
type Logs struct {
	Journal     io.ReaderAt
	JournalSize int64
	WAL         io.ReaderAt
	WALSize     int64
}

// overlay is a database file as SQLite sees it after a hot journal is
// rolled back or a write-ahead log's committed frames are applied: some
// pages come from the journal or the log, the file ends at size, and
// pages past the base file's end read as zeros (as after SQLite extends
// the file in a rollback).
type overlay struct {
	base     io.ReaderAt
	baseSize int64
	pageSize int64
	src      map[uint32]int64 // page → offset of its bytes in from
	from     io.ReaderAt
	size     int64
}

func (o *overlay) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		at := off + int64(n)
		if at >= o.size {
			return n, io.EOF
		}
		pg := uint32(at/o.pageSize) + 1
		in := at % o.pageSize
		m := min(int64(len(p)-n), o.pageSize-in, o.size-at)
		q := p[n : n+int(m)]
		switch src, ok := o.src[pg]; {
		case ok:
			if _, err := o.from.ReadAt(q, src+in); err != nil {
				return n, err
			}
		case at < o.baseSize:
			q = q[:min(m, o.baseSize-at)]
			if _, err := o.base.ReadAt(q, at); err != nil {
				return n, err
			}
		default:
			q = q[:min(m, o.pageSize-in)]
			clear(q)
		}
		n += len(q)
	}
	return n, nil
}

// journalMagic starts each header of a rollback journal.
var journalMagic = []byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7}

// rollback returns the database as SQLite reads it after rolling back
// the hot journal j (https://www.sqlite.org/fileformat2.html#the_rollback_journal,
// and pager_playback in SQLite's pager.c, whose rules it follows): each
// journal header starts a segment of nRec page records (4-byte page
// number, the page's original bytes, a checksum), the first header's
// page count is the database's size before the transaction, and playback
// stops at the first header or record that is not whole and valid (the
// part a crashed writer had not synced). A journal that is empty, whose
// first byte is zero (a committed PERSIST journal) or whose first header
// is not valid is not hot: the file is read as it is. The journal is
// read, never changed; no lock shows whether a writer is still running.
func rollback(r io.ReaderAt, size int64, pageSize int, j io.ReaderAt, jsize int64) (io.ReaderAt, int64, error) {
	if j == nil || jsize == 0 || size == 0 {
		return r, size, nil
	}
	bad := func(off int64, format string, a ...any) error {
		return &Error{Offset: -1, Msg: fmt.Sprintf("the hot journal (byte %d): ", off) + fmt.Sprintf(format, a...)}
	}
	var h [28]byte
	if n, _ := j.ReadAt(h[:], 0); n < len(h) || h[0] == 0 || !bytes.Equal(h[:8], journalMagic) {
		return r, size, nil
	}
	be := binary.BigEndian
	sector, jPage := int64(be.Uint32(h[20:])), int64(be.Uint32(h[24:]))
	if jPage < 512 || jPage > 65536 || jPage&(jPage-1) != 0 || sector < 32 || sector > 65536 || sector&(sector-1) != 0 {
		return r, size, nil // a header never synced: nothing to play back
	}
	if jPage != int64(pageSize) {
		return nil, 0, bad(24, "its page size %d is not the database's %d", jPage, pageSize)
	}
	if super(j, jsize) {
		return nil, 0, bad(jsize-8, "it names a super-journal (a transaction over several attached databases), which this reader does not resolve")
	}
	o := &overlay{base: r, baseSize: size, pageSize: jPage, src: map[uint32]int64{}, from: j}
	orig := int64(be.Uint32(h[16:])) // pages before the transaction
	o.size = orig * jPage
	rec := 8 + jPage
	page := make([]byte, jPage)
	for hdr := int64(0); ; {
		if hdr+sector > jsize {
			break
		}
		if _, err := j.ReadAt(h[:], hdr); err != nil || !bytes.Equal(h[:8], journalMagic) {
			break
		}
		nRec, nonce := int64(be.Uint32(h[8:])), be.Uint32(h[12:])
		off := hdr + sector
		if nRec == 0xffffffff && hdr == 0 {
			nRec = (jsize - sector) / rec
		}
		for k := int64(0); k < nRec; k++ {
			if off+rec > jsize {
				return o, o.size, nil
			}
			var pn [4]byte
			if _, err := j.ReadAt(pn[:], off); err != nil {
				return nil, 0, bad(off, "reading: %v", err)
			}
			if _, err := j.ReadAt(page, off+4); err != nil {
				return nil, 0, bad(off+4, "reading: %v", err)
			}
			var ck [4]byte
			if _, err := j.ReadAt(ck[:], off+4+jPage); err != nil {
				return nil, 0, bad(off+4+jPage, "reading: %v", err)
			}
			pg := be.Uint32(pn[:])
			if pg == 0 || pg == pendingPage(jPage) {
				return o, o.size, nil // the end of what was synced
			}
			off += rec
			if int64(pg) > orig {
				continue // a page the transaction added: truncated away
			}
			sum := nonce
			for i := jPage - 200; i > 0; i -= 200 {
				sum += uint32(page[i])
			}
			if sum != be.Uint32(ck[:]) {
				return o, o.size, nil
			}
			o.src[pg] = off - rec + 4
		}
		// The next header starts at the next sector boundary.
		hdr = (off + sector - 1) / sector * sector
	}
	return o, o.size, nil
}

// pendingPage is the page that holds byte 2^30 (SQLite's PENDING_BYTE),
// which no journal record names.
func pendingPage(pageSize int64) uint32 { return uint32(0x40000000/pageSize) + 1 }

// super reports whether journal j ends with a super-journal name (its
// length, checksum and the journal magic are its last 16 bytes).
func super(j io.ReaderAt, jsize int64) bool {
	if jsize < 16 {
		return false
	}
	var t [16]byte
	if _, err := j.ReadAt(t[:], jsize-16); err != nil {
		return false
	}
	n := int64(binary.BigEndian.Uint32(t[:]))
	return bytes.Equal(t[8:], journalMagic) && n > 0 && n+20 <= jsize
}

// wal returns the database as SQLite reads it with its write-ahead log w
// (https://www.sqlite.org/fileformat2.html#the_write_ahead_log): the
// pages of the frames up to the last commit frame whose salts and
// cumulative checksums are valid, the latest frame of a page winning,
// and the size the commit frame gives. A log whose header is not valid,
// or with no valid commit frame, adds nothing.
func wal(r io.ReaderAt, size int64, pageSize int, w io.ReaderAt, wsize int64) (io.ReaderAt, int64, error) {
	if w == nil || wsize < 32 || size == 0 {
		return r, size, nil
	}
	var h [32]byte
	if _, err := w.ReadAt(h[:], 0); err != nil {
		return r, size, nil
	}
	be := binary.BigEndian
	magic := be.Uint32(h[:])
	if magic&^1 != 0x377f0682 || be.Uint32(h[4:]) != 3007000 {
		return r, size, nil
	}
	var order binary.ByteOrder = binary.LittleEndian
	if magic&1 == 1 {
		order = binary.BigEndian
	}
	wPage := int64(be.Uint32(h[8:]))
	if wPage < 512 || wPage > 65536 || wPage&(wPage-1) != 0 {
		return r, size, nil
	}
	s1, s2 := walSum(order, h[:24], 0, 0)
	if s1 != be.Uint32(h[24:]) || s2 != be.Uint32(h[28:]) {
		return r, size, nil
	}
	if wPage != int64(pageSize) {
		return nil, 0, &Error{Offset: -1, Msg: fmt.Sprintf("the write-ahead log (byte 8): its page size %d is not the database's %d", wPage, pageSize)}
	}
	o := &overlay{base: r, baseSize: size, pageSize: wPage, src: map[uint32]int64{}, from: w, size: size}
	pending := map[uint32]int64{} // frames since the last commit
	fh := make([]byte, 24)
	page := make([]byte, wPage)
	for off := int64(32); off+24+wPage <= wsize; off += 24 + wPage {
		if _, err := w.ReadAt(fh, off); err != nil {
			break
		}
		if _, err := w.ReadAt(page, off+24); err != nil {
			break
		}
		pg, commit := be.Uint32(fh), be.Uint32(fh[4:])
		if pg == 0 || !bytes.Equal(fh[8:16], h[16:24]) {
			break
		}
		s1, s2 = walSum(order, fh[:8], s1, s2)
		s1, s2 = walSum(order, page, s1, s2)
		if s1 != be.Uint32(fh[16:]) || s2 != be.Uint32(fh[20:]) {
			break
		}
		pending[pg] = off + 24
		if commit != 0 {
			for p, at := range pending {
				o.src[p] = at
			}
			clear(pending)
			o.size = int64(commit) * wPage
		}
	}
	if len(o.src) == 0 {
		return r, size, nil
	}
	return o, o.size, nil
}

// walSum continues the write-ahead log's checksum (s1, s2) over b, a
// multiple of 8 bytes read as 32-bit words in order.
func walSum(order binary.ByteOrder, b []byte, s1, s2 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s1 += order.Uint32(b[i:]) + s2
		s2 += order.Uint32(b[i+4:]) + s1
	}
	return s1, s2
}
