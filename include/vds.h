/* vds.h - a new output written as a virtual dataset over one file per
 * rank (`vds: true`, `--vds`).
 *
 * One file written by many ranks moves its bytes through one inode: the
 * kernel serialises buffered writes into it, and a compressed dataset
 * goes through HDF5's collective filtered writes.  Here each rank writes
 * the boxes it owns into a source file of its own beside the output, FILE
 * named "FILE.rankR" (R the rank), through HDF5's default driver (no
 * MPI-IO, no collective call, compressed by that rank alone), and the
 * output file holds a virtual dataset (HDF5 1.10's VDS) that maps each
 * rank's share of the index space onto its source.  A share is a run of
 * lines (dist.h), one flat run in C order, so one mapping a rank: its
 * union of at most 2 * ndim - 1 hyperslabs onto the same elements of a
 * source dataset that spans the rows the share touches (rows before it
 * cut away).  Every rank computes every share, so every rank makes the
 * same mappings, and the virtual dataset is created collectively like any
 * other.  Ranks without work have no source file and no mapping.
 *
 * Source names in the mappings are relative (the base name alone): HDF5
 * looks for them in the virtual dataset's own directory before the
 * working directory, so the set can be moved together.
 *
 * A source is a part of its output file (tmpfiles_part_name, which names
 * it "FILE.rankR"): made under a temporary name (tmpfiles.h: held while
 * the run lives, swept away after it dies), linked under its name by its
 * rank once every rank has written, before the output file itself appears
 * under its name (exec.c), so that a virtual dataset never names sources
 * that are missing, and its temporary name removed after.  A run killed
 * between the two leaves sources without their output, which the next
 * sweep removes, as it removes the output's temporary.
 *
 * Not here: which outputs may be virtual (outputs.c refuses the others),
 * the layout of the shares (dist.h), or the output file's own temporary
 * name and rename (exec.c).
 */
#ifndef H5UFUNC_VDS_H
#define H5UFUNC_VDS_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

#include "dist.h"
#include "dtype.h"
#include "err.h"
#include "filter.h"
#include "shape.h"

struct vds;   /* one virtual dataset's writing side, on this rank */

/* What a virtual dataset to create is: PATH in the output file whose
 * final name is DIR/BASE; DT stored, of SHAPE (ndim >= 1), its shares
 * those of L (over SHAPE's index space); its sources chunked as CHUNK
 * (NCHUNK 0: contiguous; extents cut to the source's) and compressed as
 * COMPRESSION; FILL (or NULL) its fill value. */
struct vds_spec {
	const char *path, *dir, *base, *token;
	enum dtype dt;
	const struct shape *shape;
	const struct dist_layout *l;
	int nchunk;
	const int64_t *chunk;
	const struct compression *compression;
	const void *fill;
};

/* Collective: create this rank's source (when it has work) and the
 * virtual dataset in FILE (the output file, open on every rank).  Returns
 * the virtual dataset's id and sets *V, or a negative id with E set. */
hid_t vds_create(hid_t file, const struct vds_spec *spec, struct vds **v, const char *where,
		 struct err *e);
/* Read or write this rank's box START/STEP/COUNT (as h5io_write_box takes
 * it, inside the rank's share) of V in its source.  Not collective. */
int vds_box_io(struct vds *v, bool write, enum dtype dt, const int64_t *start, const int64_t *step,
	       const int64_t *count, void *buf, const char *where, struct err *e);
/* Close every source this rank has open. */
void vds_close_all(void);
/* Once every rank has written and closed: link this rank's sources under
 * their names too (their temporary names still held).  0, or -1 with E
 * set. */
int vds_commit(struct err *e);
/* Once the output files are in place: remove the sources' temporary
 * names. */
void vds_finish(void);
/* After a failure, closed: remove this rank's sources, under every name
 * they have. */
void vds_discard(void);

#endif
