/* h5io_pieces.c - a box's runs of its chunks moved by few calls: the
 * lines a box has of each chunk of a dataset written in place by runs
 * (h5io_move_in_place, h5io_extent.c), gathered into one preadv or pwritev
 * where they lie one after another in the file, joined into one piece
 * where they also do in the box's buffer.  The lines of a ragged last
 * chunk along the last axis (a width the chunk's does not divide) lie
 * a chunk's width apart, the chunk's padding past the dataset's edge
 * between them: they are gathered across it, the padding read into
 * scratch (and, to write, read there first and written back as it was),
 * so that such a chunk also moves by one call, not one a line. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>
#include <hdf5.h>

#include "h5io.h"
#include "h5io_internal.h"

/* The most bytes a call that crosses padding spans (its scratch). */
#define PADDED_SPAN ((uint64_t)1 << 20)

/* Pieces of a box gathered for one call: runs of the file one after
 * another, each a piece of the box's buffer, or (iov_base NULL) padding
 * that the call moves through SCRATCH. */
struct h5io_pieces {
	struct iovec iov[IOV_MAX < 1024 ? IOV_MAX : 1024];
	int n;
	uint64_t at, end;    /* the file's bytes they cover */
	bool padded;         /* some of them padding */
	char *scratch;       /* PADDED_SPAN bytes once padding was crossed */
};

/* P's padding pointed at its place in P's scratch, the file's bytes read
 * there first for a write (WRITE), so that it writes them back as they
 * were: 0, or -1 (errno). */
static int pad_through_scratch(bool write, int fd, struct h5io_pieces *p)
{
	size_t span = (size_t)(p->end - p->at);
	if (write) {
		for (size_t got = 0; got < span;) {
			ssize_t k = pread(fd, p->scratch + got, span - got, (off_t)(p->at + got));
			if (k <= 0) {
				errno = k == 0 ? EIO : errno;
				return -1;
			}
			got += (size_t)k;
		}
	}
	size_t off = 0;
	for (int i = 0; i < p->n; i++) {
		if (!p->iov[i].iov_base)
			p->iov[i].iov_base = p->scratch + off;
		off += p->iov[i].iov_len;
	}
	p->padded = false;
	return 0;
}

/* Move P's pieces by one call, again for what a call leaves: 0, or -1
 * (errno). */
static int pieces_move(bool write, int fd, struct h5io_pieces *p)
{
	struct iovec *iov = p->iov;
	int n = p->n;
	uint64_t at = p->at;
	if (p->padded && pad_through_scratch(write, fd, p) < 0)
		return -1;
	while (n > 0) {
		ssize_t got = write ? pwritev(fd, iov, n, (off_t)at) : preadv(fd, iov, n, (off_t)at);
		if (got <= 0) {
			errno = got == 0 ? EIO : errno;   /* the file ends before the chunk */
			return -1;
		}
		at += (uint64_t)got;
		for (size_t left = (size_t)got; left > 0;) {
			size_t take = left < iov->iov_len ? left : iov->iov_len;
			iov->iov_base = (char *)iov->iov_base + take;
			iov->iov_len -= take;
			left -= take;
			if (iov->iov_len == 0)
				iov++, n--;
		}
	}
	p->n = 0;
	return 0;
}

/* Add LEN bytes at AT of the file, BUF in memory, to P: joined to its
 * last piece where both go on from it (a slice's lines of one chunk),
 * else moved first when they do not go on from P's in the file or P is
 * full.  PAD: the most bytes of padding that may lie between P's end and
 * AT (a ragged chunk's, between two of its lines), crossed within
 * PADDED_SPAN; P, once it crosses padding, spans no more. */
static int piece_add(bool write, int fd, struct h5io_pieces *p, uint64_t at, void *buf, size_t len,
		     uint64_t pad)
{
	int max = (int)(sizeof p->iov / sizeof p->iov[0]);
	struct iovec *last = p->n > 0 ? &p->iov[p->n - 1] : NULL;
	bool over = p->padded && at + len - p->at > PADDED_SPAN;   /* past its scratch */
	if (last && at == p->end && !over && last->iov_base &&
	    (char *)last->iov_base + last->iov_len == (char *)buf) {
		last->iov_len += len;
		p->end += len;
		return 0;
	}
	if (p->n > 0 && at > p->end && at - p->end <= pad && p->n + 2 <= max &&
	    at + len - p->at <= PADDED_SPAN) {
		if (!p->scratch && !(p->scratch = malloc(PADDED_SPAN)))
			abort();
		p->iov[p->n++] = (struct iovec){ NULL, (size_t)(at - p->end) };
		p->padded = true;
		p->end = at;
	}
	if (p->n > 0 && (at != p->end || p->n == max || over) && pieces_move(write, fd, p) < 0)
		return -1;
	if (p->n == 0)
		p->at = p->end = at;
	p->iov[p->n++] = (struct iovec){ buf, len };
	p->end += len;
	return 0;
}

int h5io_chunk_part(bool write, int fd, const struct h5io_storage *st, struct h5io_pieces *p,
		    const hsize_t *c0, haddr_t addr, const int64_t *start, const int64_t *count,
		    const uint64_t *bstride, char *buf)
{
	int n = st->ndim;
	uint64_t esize = st->esize, cstride[H5U_MAXDIM];
	int64_t lo[H5U_MAXDIM] = { 0 }, hi[H5U_MAXDIM] = { 0 }, idx[H5U_MAXDIM];
	cstride[n - 1] = 1;
	for (int i = n - 1; i > 0; i--)
		cstride[i - 1] = cstride[i] * st->chunk[i];
	for (int i = 0; i < n; i++) {
		int64_t a = (int64_t)c0[i], b = a + (int64_t)st->chunk[i], end = start[i] + count[i];
		lo[i] = idx[i] = start[i] > a ? start[i] : a;
		hi[i] = end < b ? end : b;
	}
	size_t len = (size_t)(hi[n - 1] - lo[n - 1]) * esize;
	/* A ragged chunk's part from its first column to the dataset's edge:
	 * between two of its lines, its padding alone. */
	uint64_t pad = 0;
	if (n > 1 && lo[n - 1] == (int64_t)c0[n - 1] && hi[n - 1] == (int64_t)st->dim[n - 1] &&
	    hi[n - 1] < (int64_t)(c0[n - 1] + st->chunk[n - 1]))
		pad = (st->chunk[n - 1] - (uint64_t)(hi[n - 1] - lo[n - 1])) * esize;
	for (;;) {
		uint64_t at = 0, in = 0;
		for (int i = 0; i < n; i++) {
			at += (uint64_t)(idx[i] - (int64_t)c0[i]) * cstride[i];
			in += (uint64_t)(idx[i] - start[i]) * bstride[i];
		}
		if (piece_add(write, fd, p, addr + at * esize, buf + in * esize, len,
			      idx[n - 2] > lo[n - 2] ? pad : 0) < 0)
			return -1;
		int i = n - 2;
		while (i >= 0 && ++idx[i] == hi[i])
			idx[i] = lo[i], i--;
		if (i < 0)
			return 0;
	}
}

struct h5io_pieces *h5io_pieces_new(void)
{
	struct h5io_pieces *p = malloc(sizeof *p);
	if (!p)
		abort();
	p->n = 0;
	p->padded = false;
	p->scratch = NULL;
	return p;
}

void h5io_pieces_free(struct h5io_pieces *p)
{
	if (p)
		free(p->scratch);
	free(p);
}

int h5io_pieces_flush(bool write, int fd, struct h5io_pieces *p)
{
	return p->n > 0 ? pieces_move(write, fd, p) : 0;
}
