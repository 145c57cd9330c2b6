/* cmd_recover.c - recover: say what an interrupted run left beside a file
 * and put it right: roll the file back from its journal (journal.h), and
 * remove the temporary files of dead runs in its directory (tmpfiles.h).
 * Every run that opens the file does the first by itself; this is for a
 * file no run is about to open.  A directory, or a file that is not HDF5,
 * is refused with nothing touched. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "comm.h"
#include "h5io.h"
#include "replay.h"
#include "tmpfiles.h"

enum { FLAG_QUIET = 1 };

/* PATH's canonical form into OUT (PATH_MAX bytes), whether or not the
 * file is still there: its directory's, and its name.  -1 when the
 * directory is not there either. */
static int canonical(const char *path, char *out, char *dir)
{
	char copy[PATH_MAX], base[PATH_MAX], real[PATH_MAX];
	if (realpath(path, out)) {
		snprintf(copy, sizeof copy, "%s", out);
		snprintf(dir, PATH_MAX, "%s", dirname(copy));
		return 0;
	}
	snprintf(copy, sizeof copy, "%s", path);
	snprintf(base, sizeof base, "%s", basename(copy));
	snprintf(copy, sizeof copy, "%s", path);
	if (!realpath(dirname(copy), real))
		return -1;
	snprintf(dir, PATH_MAX, "%s", real);
	snprintf(out, PATH_MAX, "%.*s/%.*s", PATH_MAX / 2, strcmp(real, "/") ? real : "",
		 PATH_MAX / 2 - 2, base);
	return 0;
}

/* Rank 0: recover FILE, and say what was found and done on stdout. */
static void recover(const char *file, bool quiet, struct err *e)
{
	char path[PATH_MAX], dir[PATH_MAX], text[2048];
	struct stat st;
	struct replay_report r;
	if (canonical(file, path, dir) < 0) {
		err_set(e, EXIT_USAGE, "recover", "cannot open '%s': No such file or directory", file);
		return;
	}
	/* a file there is one HDF5 can open, else nothing is touched: its
	 * journal, if any, was not made for it */
	if (stat(path, &st) == 0 && h5io_check_file(file, "recover", e) < 0)
		return;
	if (replay_recover(path, file, "recover", EXIT_RUN, &r, e) < 0)
		return;
	if (!r.found && stat(path, &st) != 0) {
		err_set(e, EXIT_USAGE, "recover", "cannot open '%s': No such file or directory", file);
		return;
	}
	replay_describe(&r, file, text, sizeof text);
	if (!quiet)
		printf("%s\n", text);
	int n = tmpfiles_sweep(dir, text, sizeof text);
	if (n && !quiet)
		printf("%s: removed %d file%s that dead runs left in '%s': %s\n", file, n,
		       n == 1 ? "" : "s", dir, text);
}

int cmd_recover(int argc, char **argv)
{
	static const struct cli_option own[] = {
		{ "quiet", 'q', false, FLAG_QUIET },
		{ NULL, 0, false, 0 }
	};
	struct err e = { 0 };
	struct cli c;
	if (cli_parse(&c, "recover", argc, argv, own, false, &e) == 0 && c.npos != 1)
		err_set(&e, EXIT_USAGE, "recover", c.npos ? "one file at a time" : "the file to recover is needed");
	if (e.status) {
		cli_usage_error(&e);
		return e.status;
	}
	if (cli_session(&c, &argc, &argv, &e) < 0)
		return cli_finish(&e);
	if (comm_rank() == 0)
		recover(c.pos[0], c.nval > 0, &e);
	fflush(stdout);
	comm_agree(&e);
	return cli_finish(&e);
}
