/* cli.c - option parsing, and the start and end of a data command. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "cli.h"
#include "comm.h"
#include "diag.h"
#include "h5io.h"
#include "literal.h"

#define DEFAULT_MEMORY ((size_t)256 << 20)

/* The options every data command takes: long name, short name, whether
 * it takes a value, its id, and how help COMMAND shows it (the one list:
 * the parser's table and the help are made from it). */
#define COMMON_OPTIONS(X) \
	X("set", 0, true, OPTV_SET, "--set NAME=VALUE", \
	  "fill ${NAME} in the recipe or the command line (else the environment)") \
	X("memory", 0, true, OPTV_MEMORY, "--memory SIZE", \
	  "per-rank working memory: bytes, or with K M G T (default 256M)") \
	X("mpi", 0, false, OPTV_MPI, "--mpi", "initialise MPI even without a launcher") \
	X("overwrite", 0, false, OPTV_OVERWRITE, "--overwrite", \
	  "allow replacing existing datasets that are not in-place targets") \
	X("no-history", 0, false, OPTV_NO_HISTORY, "--no-history", \
	  "do not add a line to the history attribute of written files") \
	X("risk-partial-writes", 0, false, OPTV_RISK_PARTIAL_WRITES, "--risk-partial-writes", \
	  "write into existing files without the journal that undoes\n" \
	  "                     an interrupted run: a stopped run may leave them half written") \
	X("mpi-info", 0, true, OPTV_MPI_INFO, "--mpi-info KEY=VALUE", \
	  "an MPI-IO hint for every file (striping_factor=16, ...)") \
	X("quiet", 'q', false, OPTV_QUIET, "-q, --quiet", "print nothing but results and errors") \
	X("progress", 0, false, OPTV_PROGRESS, "--progress", \
	  "the progress meter on stderr (default: on a terminal)") \
	X("no-progress", 0, false, OPTV_NO_PROGRESS, "--no-progress", "no progress meter") \
	X("json", 0, false, OPTV_JSON, "--json", "a machine-readable run summary on stdout")

#define OPTION_ROW(NAME, SHORT, ARG, ID, LABEL, HELP) { NAME, SHORT, ARG, ID },
static const struct cli_option common[] = {
	COMMON_OPTIONS(OPTION_ROW)
	{ NULL, 0, false, 0 }
};
#undef OPTION_ROW

void cli_print_common(FILE *f)
{
#define HELP_ROW(NAME, SHORT, ARG, ID, LABEL, HELP) \
	fprintf(f, strlen(LABEL) < 19 ? "  %-18s %s\n" : "  %s  %s\n", LABEL, HELP);
	COMMON_OPTIONS(HELP_ROW)
#undef HELP_ROW
}

int cli_size(const char *text, size_t *out)
{
	size_t whole = strspn(text, "0123456789"), frac = 0;
	const char *end = text + whole;
	if (*end == '.') {
		frac = strspn(end + 1, "0123456789");
		end += 1 + frac;
	}
	if (!whole)
		return -1;
	int shift = 0;
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; break;
	case 'M': shift = 20; break;
	case 'G': shift = 30; break;
	case 'T': shift = 40; break;
	}
	const char *suffix = end + (shift > 0);
	if (shift && (!strcmp(suffix, "iB") || !strcmp(suffix, "B")))
		suffix += strlen(suffix);
	/* decimal only; a fraction of a byte is no size */
	if (*suffix || (end > text + whole && !shift))
		return -1;
	double bytes = strtod(text, NULL) * (double)((uint64_t)1 << shift);
	if (bytes < 1 || bytes > 9e18)
		return -1;
	*out = (size_t)bytes;
	return 0;
}

static const struct cli_option *find(const struct cli_option *t, const char *name, char short_name)
{
	for (; t && t->name; t++)
		if ((name && !strcmp(t->name, name)) || (short_name && t->short_name == short_name))
			return t;
	return NULL;
}

static int take(struct cli *c, const struct cli_option *o, const char *arg, struct err *e)
{
	const char *w = c->command;
	switch (o->id) {
	case OPTV_SET: {
		const char *eq = strchr(arg, '=');
		if (!eq || eq == arg)
			return err_set(e, EXIT_USAGE, w, "--set takes NAME=VALUE, got '%s'", arg);
		if (c->vars.n == CLI_MAXSET)
			return err_set(e, EXIT_USAGE, w, "too many --set options (at most %d)", CLI_MAXSET);
		c->set_name[c->vars.n] = arg;
		c->set_name_len[c->vars.n] = (size_t)(eq - arg);
		c->set_value[c->vars.n] = eq + 1;
		c->vars.n++;
		return 0;
	}
	case OPTV_MEMORY:
		if (cli_size(arg, &c->memory) < 0)
			return err_set(e, EXIT_USAGE, w,
				       "--memory: invalid size '%s' (bytes, or a number with K, M, G or T)", arg);
		return 0;
	case OPTV_MPI: c->mpi = true; return 0;
	case OPTV_PROGRESS: c->progress_given = c->progress = true; return 0;
	case OPTV_JSON: c->json = true; return 0;
	case OPTV_NO_PROGRESS: c->progress_given = true; c->progress = false; return 0;
	case OPTV_QUIET: c->quiet = true; return 0;
	case OPTV_OVERWRITE: c->overwrite = true; return 0;
	case OPTV_NO_HISTORY: c->no_history = true; return 0;
	case OPTV_RISK_PARTIAL_WRITES: c->risk_partial_writes = true; return 0;
	case OPTV_MPI_INFO: {
		const char *eq = strchr(arg, '=');
		if (!eq || eq == arg)
			return err_set(e, EXIT_USAGE, w, "--mpi-info takes KEY=VALUE, got '%s'", arg);
		if (h5io_hint(arg, (size_t)(eq - arg), eq + 1) < 0)
			return err_set(e, EXIT_USAGE, w, "--mpi-info: too many hints, or a key of %d characters or more",
				       MPI_MAX_INFO_KEY);
		return 0;
	}
	}
	if (c->nval == CLI_MAXPOS)
		return err_set(e, EXIT_USAGE, w, "too many options");
	c->val[c->nval].id = o->id;
	c->val[c->nval].arg = arg;
	c->nval++;
	return 0;
}

static int positional(struct cli *c, const char *arg, struct err *e)
{
	if (c->npos == CLI_MAXPOS)
		return err_set(e, EXIT_USAGE, c->command, "too many operands (at most %d)", CLI_MAXPOS);
	c->pos[c->npos++] = arg;
	return 0;
}

int cli_parse(struct cli *c, const char *command, int argc, char **argv,
	      const struct cli_option *own, bool data, struct err *e)
{
	memset(c, 0, sizeof *c);
	c->command = command;
	c->argc = argc;
	c->argv = argv;
	c->memory = DEFAULT_MEMORY;
	c->vars.name = c->set_name;
	c->vars.value = c->set_value;
	c->vars.name_len = c->set_name_len;
	bool options = true;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		struct literal lit;
		if (!options || a[0] != '-' || !a[1] || literal_parse(a, &lit) == 0) {
			if (positional(c, a, e) < 0)
				return -1;
			continue;
		}
		if (!strcmp(a, "--")) {
			options = false;
			continue;
		}
		const struct cli_option *o;
		const char *arg = NULL;
		char name[64];
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			snprintf(name, sizeof name, "%.*s", (int)n, a + 2);
			o = find(own, name, 0);
			if (!o && data)
				o = find(common, name, 0);
			if (!o)
				return err_set(e, EXIT_USAGE, command, "unknown option '--%s' (see h5ufunc help %s)",
					       name, command);
			if (eq && !o->has_arg)
				return err_set(e, EXIT_USAGE, command, "option '--%s' takes no value", name);
			arg = eq ? eq + 1 : NULL;
		} else {
			snprintf(name, sizeof name, "-%c", a[1]);
			o = find(own, NULL, a[1]);
			if (!o && data)
				o = find(common, NULL, a[1]);
			if (!o && a[strspn(a + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") + 1])
				/* no option reads so: an operand or an expression */
				return err_set(e, EXIT_USAGE, command, "unknown option '%s' (an operand or expression "
					       "that starts with - goes after --: h5ufunc %s ... -- '%s')", a, command, a);
			if (!o)
				return err_set(e, EXIT_USAGE, command, "unknown option '%s' (see h5ufunc help %s)",
					       a, command);
			if (a[2] && !o->has_arg)
				return err_set(e, EXIT_USAGE, command, "option '%s' takes no value", name);
			arg = a[2] ? a + 2 : NULL;
		}
		if (o->has_arg && !arg) {
			if (i + 1 >= argc)
				return err_set(e, EXIT_USAGE, command, "option '%s' needs a value",
					       a[1] == '-' ? a : name);
			arg = argv[++i];
		}
		if (take(c, o, arg, e) < 0)
			return -1;
	}
	return 0;
}

int cli_session(struct cli *c, int *argc, char ***argv, struct err *e)
{
	if (comm_init(c->mpi || comm_launched(), argc, argv, e) < 0)
		return -1;
	h5io_init();
	return 0;
}

void cli_usage_error(const struct err *e)
{
	/* Under a launcher the ranks meet in MPI before they leave: a rank
	 * that left at once would have mpirun kill the first before its
	 * message is out.  (Every rank has the same command line, so every
	 * rank comes here.) */
	struct err init = {0};
	if (comm_launched() && comm_init(true, NULL, NULL, &init) == 0) {
		if (comm_rank() == 0)
			diag_print(e);
		comm_finalize();
		return;
	}
	/* Without MPI every rank would print: leave it to the first. */
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", NULL
	};
	for (int i = 0; vars[i]; i++) {
		const char *v = getenv(vars[i]);
		if (v && atoi(v) != 0)
			return;
	}
	diag_print(e);
}

int cli_finish(struct err *e)
{
	if (e->status && comm_rank() == 0)
		diag_print(e);
	fflush(stdout);
	comm_finalize();
	return e->status;
}

void cli_history_line(const struct cli *c, char *buf, size_t len)
{
	if (comm_rank() == 0) {
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		size_t n = strftime(buf, len, "%a %b %d %H:%M:%S %Y: h5ufunc", &tm);
		for (int i = 0; i < c->argc && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, " %s", c->argv[i]);
	}
	comm_bcast(buf, len);
}
