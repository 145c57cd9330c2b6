/* files.c - the plan's file table: every file a run reads, writes or
 * creates, once each whatever name it is given, and the temporary names of
 * what the run creates.
 *
 * A file is known by its canonical path, so one file under two names is
 * one entry.  A file the run creates is written under a hidden temporary
 * name beside it and renamed at the end (exec.c); named intermediates and
 * printed results live in one scratch file, next to the first output.
 * Files read are opened here, to learn their datasets; plan_build closes
 * them again.  Part of the planner (planner.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "comm.h"
#include "h5io.h"
#include "replay.h"
#include "planner.h"
#include "tmpfiles.h"

/* Canonical path of NAME: realpath of an existing file, or of its directory
 * plus its base name when it does not exist.  NULL when the directory does
 * not exist. */
static char *canonical(struct arena *a, const char *name, bool *exists)
{
	char buf[PATH_MAX];
	if (realpath(name, buf)) {
		*exists = true;
		return arena_strdup(a, buf);
	}
	*exists = false;
	char *copy1 = arena_strdup(a, name), *copy2 = arena_strdup(a, name);
	char *dir = dirname(copy1), *base = basename(copy2);
	if (!realpath(dir, buf))
		return NULL;
	size_t n = strlen(buf) + strlen(base) + 2;
	char *out = arena_alloc(a, n);
	snprintf(out, n, "%s/%s", strcmp(buf, "/") ? buf : "", base);
	return out;
}

struct plan_file *file_find(struct plan *p, const char *canon)
{
	for (int i = 0; i < p->nfiles; i++)
		if (!strcmp(p->files[i]->canon, canon))
			return p->files[i];
	return NULL;
}

struct plan_file *file_add(struct planner *pl, const char *name,
				  const char *canon, bool exists)
{
	struct plan *p = pl->p;
	if (p->nfiles == PLAN_MAXFILES)
		return NULL;
	struct plan_file *f = arena_alloc(p->arena, sizeof *f);
	f->name = arena_strdup(p->arena, name);
	f->canon = canon;
	f->open_path = f->name;
	f->exists = exists;
	f->id = -1;
	f->journal = -1;
	p->files[p->nfiles++] = f;
	return f;
}

/* What an interrupted run left in F, before F is opened: rolled back
 * (said on stderr, unless quiet); `check`, which writes nothing, keeps
 * what it found for the plan.  A live run writing F is an error. */
static int settle(struct planner *pl, struct plan_file *f, const struct site *w, struct err *e)
{
	struct replay_report r;
	if (replay_settle(f->canon, f->name, !pl->o->check_only, w->text, &r, e) < 0)
		return err_place(e, &w->loc);
	if (!r.found)
		return 0;
	char text[1024];
	replay_describe(&r, f->name, text, sizeof text);
	if (pl->o->check_only)
		f->unfinished = arena_strdup(pl->p->arena, text);
	else if (comm_rank() == 0 && !pl->o->quiet)
		fprintf(stderr, "h5ufunc: %s\n", text);
	return 0;
}

/* The plan's file for an operand that is read: it must exist, on disk or
 * as a file an earlier step creates. */
struct plan_file *file_for_read(struct planner *pl, const char *name, const struct site *w,
				       struct err *e)
{
	bool exists;
	char *canon = canonical(pl->p->arena, name, &exists);
	struct plan_file *f = canon ? file_find(pl->p, canon) : NULL;
	if (f)
		return f;
	if (!exists) {
		err_at(e, EXIT_USAGE, w, "cannot open '%s': No such file or directory", name);
		return NULL;
	}
	f = file_add(pl, name, canon, true);
	if (!f) {
		err_at(e, EXIT_USAGE, w, "too many files (at most %d)", PLAN_MAXFILES);
		return NULL;
	}
	if (settle(pl, f, w, e) < 0)
		return NULL;
	f->id = h5io_open(name, false, w->text, e);
	if (f->id < 0) {
		err_place(e, &w->loc);
		return NULL;
	}
	return f;
}

/* Does DIR take new files?  access() answers yes to root whatever the
 * permission bits say, and /proc says yes to it though it takes no files,
 * so one is made and removed: unnamed where the file system can
 * (O_TMPFILE: nothing ever appears in DIR), else under a unique hidden
 * name.  0, or the errno that refused it. */
static int dir_takes_files(const char *dir)
{
	if (access(dir, W_OK | X_OK) != 0)
		return errno;
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) {
		int why = fd >= 0 ? 0 : errno;
		if (fd >= 0)
			close(fd);
		return why;
	}
	char name[PATH_MAX];
	if (snprintf(name, sizeof name, "%s/.h5ufunc-probe-XXXXXX", dir) >= (int)sizeof name)
		return ENAMETOOLONG;
	fd = mkostemp(name, O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	unlink(name);
	return 0;
}

/* Can the existing file PATH be opened for writing (not written: opening
 * changes nothing)?  0, or the errno that refused it. */
static int file_opens_for_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

int file_check_writable(const char *path, bool exists, const struct site *w, struct err *e)
{
	int why;
	if (exists) {
		if ((why = file_opens_for_write(path)) != 0)
			return err_at(e, EXIT_USAGE, w, "cannot write '%s': %s", path, strerror(why));
		return 0;
	}
	char *copy = strdup(path);
	if (!copy)
		abort();
	const char *dir = dirname(copy);
	int r = 0;
	struct stat st;
	if (stat(dir, &st) != 0)
		r = err_at(e, EXIT_USAGE, w, "cannot create '%s': directory '%s' does not exist", path, dir);
	else if (!S_ISDIR(st.st_mode))
		r = err_at(e, EXIT_USAGE, w, "cannot create '%s': '%s' is not a directory", path, dir);
	else if ((why = dir_takes_files(dir)) != 0)
		r = err_at(e, EXIT_USAGE, w, "cannot create '%s': directory '%s': %s", path, dir,
			   why == ENOENT ? "no file can be made in it" : strerror(why));   /* /proc */
	free(copy);
	return r;
}

/* The file an output FILE:/PATH goes to, created by the run when new. */
struct plan_file *file_for_write(struct planner *pl, const char *name, const struct site *w,
					struct err *e)
{
	struct stat st;
	if (stat(name, &st) == 0 && S_ISDIR(st.st_mode)) {
		err_at(e, EXIT_USAGE, w, "'%s' is a directory, not an HDF5 file", name);
		return NULL;
	}
	bool exists;
	char *canon = canonical(pl->p->arena, name, &exists);
	if (!canon) {
		file_check_writable(name, false, w, e);
		return NULL;
	}
	struct plan_file *f = file_find(pl->p, canon);
	if (!f) {
		if (exists) {
			f = file_for_read(pl, name, w, e);
		} else {
			f = file_add(pl, name, canon, false);
			if (!f)
				err_at(e, EXIT_USAGE, w, "too many files (at most %d)", PLAN_MAXFILES);
		}
		if (!f)
			return NULL;
	}
	if (!f->write && file_check_writable(f->name, f->exists, w, e) < 0)
		return NULL;
	f->write = true;
	return f;
}

/* The scratch file of printed results (PRINTED) or of named
 * intermediates: apart, since printed results always stay in memory and
 * intermediates only while they are small (place_files). */
struct plan_file *scratch_file(struct planner *pl, bool printed)
{
	for (int i = 0; i < pl->p->nfiles; i++)
		if (pl->p->files[i]->scratch && pl->p->files[i]->printed == printed)
			return pl->p->files[i];
	const char *name = printed ? "(results)" : "(scratch)";
	struct plan_file *f = file_add(pl, name, name, false);
	if (f) {
		f->scratch = true;
		f->printed = printed;
		f->write = true;
	}
	return f;
}

/* Bytes of the datasets in F. */
static int64_t file_bytes(const struct plan *p, const struct plan_file *f)
{
	int64_t n = 0;
	for (int i = 0; i < p->narrays; i++)
		if (p->arrays[i]->kind == ARR_DATASET && p->arrays[i]->file == f)
			n += shape_size(&p->arrays[i]->shape) * dtype_size(p->arrays[i]->dtype);
	return n;
}

/* Room for the journal of F's old bytes: those of the datasets written in
 * place, and a mebibyte for HDF5's metadata. */
#define JOURNAL_SLACK ((int64_t)1 << 20)

static int64_t journal_room(const struct plan *p, const struct plan_file *f)
{
	int64_t n = JOURNAL_SLACK;
	for (int i = 0; i < p->narrays; i++) {
		const struct array *x = p->arrays[i];
		if (x->kind == ARR_DATASET && x->file == f && x->in_place)
			n += shape_size(&x->shape) * dtype_size(x->dtype);
	}
	return n;
}

/* An existing file the run writes into is journaled, and its journal goes
 * beside it: the directory must be writable, with room for the old bytes
 * the run overwrites (a journal that runs out of space half way stops an
 * MPI run at once: journal.c). */
static int plan_journal(struct planner *pl, struct plan_file *f, struct err *e)
{
	f->undoable = f->exists && f->write && !f->scratch && !pl->o->risk_partial_writes;
	if (!f->undoable)
		return 0;
	const char *dir = dirname(arena_strdup(pl->p->arena, f->canon));
	static const char hint[] = "--risk-partial-writes writes in place without a journal";
	struct statvfs vfs;
	int64_t room = journal_room(pl->p, f);
	int why = dir_takes_files(dir);
	if (why != 0)
		return err_set(e, EXIT_USAGE, f->name, "cannot write into it undoably: its directory "
			       "'%s' (where its journal goes) is not writable: %s; %s", dir,
			       strerror(why), hint);
	if (statvfs(dir, &vfs) == 0 && (int64_t)(vfs.f_bavail * vfs.f_frsize) < room)
		return err_set(e, EXIT_USAGE, f->name, "cannot write into it undoably: the journal of "
			       "the bytes it overwrites needs up to %lld bytes beside it, and '%s' has "
			       "%lld free; %s", (long long)room, dir,
			       (long long)(vfs.f_bavail * vfs.f_frsize), hint);
	return 0;
}

/* Where scratch files and temporary names go, once outputs are known.
 * Printed results stay in memory (each rank's copy holds what it wrote;
 * exec.c gathers them); so do named intermediates of one process while
 * they take at most a quarter of the budget.  Larger ones spill to a file
 * beside the first output; with no output, in $TMPDIR (else /tmp) for one
 * process, in the working directory for many ranks (which must all see
 * it).  Names on disk carry the run's token (tmpfiles.h).  Existing files
 * written are journaled (plan_journal). */
int place_files(struct planner *pl, struct err *e)
{
	struct plan *p = pl->p;
	const char *dir = NULL;
	for (int i = 0; i < p->nfiles && !dir; i++)
		if (p->files[i]->write && !p->files[i]->scratch)
			dir = p->files[i]->canon;
	char *scratch_dir;
	if (dir) {
		char *copy = arena_strdup(p->arena, dir);
		scratch_dir = arena_strdup(p->arena, dirname(copy));
	} else {
		const char *t = getenv("TMPDIR");
		scratch_dir = arena_strdup(p->arena, pl->o->nranks > 1 ? "." : t && *t ? t : "/tmp");
	}
	for (int i = 0; i < p->nfiles; i++) {
		struct plan_file *f = p->files[i];
		if (f->scratch) {
			f->memory = f->printed || (pl->o->nranks == 1 &&
						   file_bytes(p, f) <= (int64_t)(pl->o->memory / 4));
			if (!f->memory)
				f->tmp_dir = scratch_dir;
		} else if (!f->exists) {
			char *c1 = arena_strdup(p->arena, f->canon), *c2 = arena_strdup(p->arena, f->canon);
			f->tmp_dir = dirname(c1);
			f->tmp_base = basename(c2);
		}
		char buf[2 * PATH_MAX];   /* a canonical path is shorter than PATH_MAX */
		if (f->tmp_dir && tmpfiles_name(buf, sizeof buf, f->tmp_dir, f->tmp_base, pl->o->token) == 0)
			f->open_path = arena_strdup(p->arena, buf);
		if (plan_journal(pl, f, e) < 0)
			return -1;
	}
	return 0;
}
