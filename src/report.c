/* report.c - what a run tells the user besides its results: the progress
 * meter on stderr and the --json run summary on stdout (and check's
 * --json plan, in the summary's form).
 *
 * Every rank counts the bytes of dataset data it reads and writes (stage.c
 * calls report_read and report_written for every block).  Between step
 * boundaries the ranks never talk for the report's sake: the meter, drawn by
 * rank 0 alone, shows rank 0's own bytes times the number of ranks against
 * a total estimated from the plan (the size of every array the step reads
 * and writes), held below the total until the step ends.  At each step end
 * the true counts are gathered on rank 0 (one collective call per step, and
 * only when the meter or the summary is wanted), so the step's final meter
 * line and the summary hold the exact sums over ranks.
 *
 * The meter: one line per step (a step that heads a pass of fused steps
 * runs them all, and says "(+N fused)"), redrawn in place with '\r' at most
 * ten times a second, "step 2/3 reduce add: 1.5 GiB of 4.0 GiB (37%), 512.0 MiB/s,
 * 0:05 left", ended with a newline when the step ends, as
 * "step 2/3 reduce add: 4.0 GiB in 8.1 s (505.7 MiB/s)".  A result printed
 * as text first clears the line, so results never mix with the meter.
 *
 * The summary (schema in h5ufunc(1), JSON OUTPUT): one JSON object printed
 * by rank 0 when the run has written everything, before it commits its
 * files (so that a summary lost to a full disk still undoes the run), one
 * entry per recipe step (a fused
 * step names the step whose pass ran it, and counts nothing itself); printed results are kept as JSON
 * (print.h's print_json) and go under "result" instead of being printed as
 * text.  After a failure nothing is printed on stdout: the exit status and
 * the message on stderr say what happened.
 *
 * It never changes what a run computes, and it prints nothing unless asked:
 * no meter without report_options.progress, no summary without .json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "comm.h"
#include "dtype.h"
#include "iostat.h"
#include "print.h"
#include "report.h"

#ifndef H5UFUNC_VERSION
#define H5UFUNC_VERSION "unknown"
#endif

#define REPORT_REDRAW 0.1        /* seconds between two draws of the meter */
#define REPORT_NAME_MAX 40       /* bytes of an expression shown in the meter */

/* What one step did, summed over ranks (kept on rank 0). */
struct step_record {
	int64_t read, written, masked;
	double seconds;
	char *result[RECIPE_MAXOUT];   /* JSON text of printed outputs, malloc'd */
};

/* What every rank sends to rank 0 at a step's end. */
struct step_counts {
	int64_t read, written, masked, nanoseconds;
};

/* What every rank sends to rank 0 at the end of a run with --json: its own
 * totals over the run and its I/O call counts (iostat.h). */
struct rank_counts {
	int64_t elements, read, written, nanoseconds;
	struct iostat io;
};

static struct {
	bool active;                   /* between report_begin and report_end */
	struct report_options opt;     /* rank 0's; progress false on the others */
	bool gather;                   /* step ends gather the counts (same on every rank) */
	const struct plan *plan;
	struct step_record *steps;
	double run_start;
	/* the current step, this rank */
	const struct plan_step *step;
	double step_start;
	int64_t read, written, masked;
	int64_t run_elements, run_read, run_written;   /* this rank, whole run */
	int64_t estimate;              /* bytes the step moves, over all ranks */
	/* the meter, rank 0 */
	double last_draw;
	int drawn;                     /* width of the line on screen; 0 when none */
	int columns;                   /* of the terminal; 0 when not one */
} rep;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int64_t array_bytes(const struct array *x)
{
	return shape_size(&x->shape) * dtype_size(x->dtype);
}

/* Bytes step S moves over all ranks, as the plan says: each input dataset
 * once (every rank reads an input that broadcasts along the rows; a
 * shared scan reads its input twice), each output once, and a printed
 * output once more (read back for printing). */
static int64_t step_estimate(const struct plan_step *s)
{
	int64_t n = 0;
	bool elementwise = s->verb == VERB_UFUNC || s->verb == VERB_OUTER || s->verb == VERB_EXPR;
	for (int k = 0; k < s->nin; k++) {
		const struct array *x = s->in[k];
		if (!x || x->kind != ARR_DATASET)
			continue;
		const struct shape *b = &s->bshape[k];
		bool whole = elementwise && (b->ndim < s->shape.ndim ||
			     (b->ndim > 0 && b->dim[0] == 1 && s->shape.dim[0] != 1));
		bool twice = s->verb == VERB_ACCUMULATE && s->blocks.stream.shared;
		n += array_bytes(x) * (whole ? comm_size() : twice ? 2 : 1);
	}
	for (int k = 0; k < s->nout; k++)
		if (s->out[k])
			n += array_bytes(s->out[k]) * (s->print ? 2 : 1);
	return n;
}

/* The text of the expression of recipe step RS (or NULL) without
 * surrounding blanks: *LEN bytes. */
static const char *expr_text(const struct recipe_step *rs, size_t *len)
{
	const char *t = rs && rs->fn ? rs->fn : "";
	while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')
		t++;
	size_t n = strlen(t);
	while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\n' || t[n - 1] == '\r'))
		n--;
	*len = n;
	return t;
}

/* How many steps were fused into step STEP (1-based; they run in its pass). */
static int fused_count(const struct plan *p, int step)
{
	int n = 0;
	for (int i = 0; i < p->nsteps; i++)
		n += p->steps[i].fused.merged_into == step - 1;
	return n;
}

/* ---- the meter ---------------------------------------------------------- */

/* "1.5 GiB" */
static char *format_bytes(double n, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	if (n < 1024) {
		snprintf(buf, len, "%.0f B", n);
		return buf;
	}
	int u = -1;
	while (n >= 1024 && u < 5) {
		n /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", n, units[u]);
	return buf;
}

/* "0:05", "12:30", "1:02:03" */
static char *format_duration(double t, char *buf, size_t len)
{
	long s = t < 0 ? 0 : t > 1e9 ? 999999999 : (long)(t + 0.5);
	if (s >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
	return buf;
}

/* "ufunc add", "expr (u - 0.5 * v) * 2.5" (long expressions cut, control
 * characters as blanks), "ufunc add (+2 fused)" for a pass that runs the
 * steps fused into it too. */
static void step_name(const struct plan_step *s, char *buf, size_t len)
{
	size_t m;
	const char *fn = s->verb == VERB_EXPR ? expr_text(s->src, &m) : s->uf ? s->uf->name : "?";
	if (s->verb != VERB_EXPR)
		m = strlen(fn);
	size_t n = (size_t)snprintf(buf, len, "%s ", verb_name(s->verb));
	if (n >= len)
		return;
	size_t room = len - n - 1;
	bool cut = m > REPORT_NAME_MAX;
	if (cut)
		m = REPORT_NAME_MAX;
	while (cut && m > 0 && ((unsigned char)fn[m] & 0xc0) == 0x80)
		m--;   /* not inside a UTF-8 sequence */
	if (m > room)
		m = room;
	for (size_t i = 0; i < m; i++)
		buf[n + i] = (unsigned char)fn[i] < 0x20 || fn[i] == 0x7f ? ' ' : fn[i];
	buf[n + m] = '\0';
	if (cut && n + m + 3 < len)
		strcat(buf, "...");
	int fused = fused_count(rep.plan, s->index);
	n = strlen(buf);
	if (fused && n < len)
		snprintf(buf + n, len - n, " (+%d fused)", fused);
}

/* Put LINE on the meter's line, blanking what is left of the last one.
 * A redraw is cut to the terminal's width: a line that wrapped could not
 * be drawn over. */
static void meter_put(char *line, bool end)
{
	int n = (int)strlen(line);
	if (!end && rep.columns > 1 && n > rep.columns - 1) {
		n = rep.columns - 1;
		while (n > 0 && ((unsigned char)line[n] & 0xc0) == 0x80)
			n--;
		line[n] = '\0';
	}
	int pad = rep.drawn > n ? rep.drawn - n : 0;
	fprintf(stderr, "\r%s%*s%s", line, pad, "", end ? "\n" : "");
	fflush(stderr);
	rep.drawn = end ? 0 : n;
}

/* Clear the meter's line (before a result is printed as text). */
static void meter_clear(void)
{
	if (!rep.drawn)
		return;
	fprintf(stderr, "\r%*s\r", rep.drawn, "");
	fflush(stderr);
	rep.drawn = 0;
}

static void meter_draw(double t)
{
	const struct plan_step *s = rep.step;
	char name[128], line[512], done[32], total[32], rate[32], left[32];
	step_name(s, name, sizeof name);
	int64_t bytes = (rep.read + rep.written) * comm_size();
	if (bytes > rep.estimate)
		bytes = rep.estimate;
	double elapsed = t - rep.step_start;
	int pct = rep.estimate > 0 ? (int)(100.0 * (double)bytes / (double)rep.estimate) : 0;
	if (pct > 99)
		pct = 99;   /* 100% is the step's end */
	int n = snprintf(line, sizeof line, "step %d/%d %s: %s of %s (%d%%)", s->index,
			 rep.plan->nsteps, name, format_bytes((double)bytes, done, sizeof done),
			 format_bytes((double)rep.estimate, total, sizeof total), pct);
	if (elapsed > 0.05 && bytes > 0 && n > 0 && (size_t)n < sizeof line) {
		double r = (double)bytes / elapsed;
		snprintf(line + n, sizeof line - (size_t)n, ", %s/s, %s left",
			 format_bytes(r, rate, sizeof rate),
			 format_duration((double)(rep.estimate - bytes) / r, left, sizeof left));
	}
	meter_put(line, false);
	rep.last_draw = t;
}

static void meter_tick(void)
{
	if (!rep.active || !rep.opt.progress || !rep.step || comm_rank() != 0)
		return;
	double t = now();
	if (t - rep.last_draw >= REPORT_REDRAW)
		meter_draw(t);
}

static void meter_step_done(const struct plan_step *s, const struct step_record *r)
{
	char name[128], line[512], bytes[32], rate[32];
	step_name(s, name, sizeof name);
	double total = (double)(r->read + r->written);
	int n = snprintf(line, sizeof line, "step %d/%d %s: %s in %.1f s", s->index,
			 rep.plan->nsteps, name, format_bytes(total, bytes, sizeof bytes), r->seconds);
	if (r->seconds > 0 && n > 0 && (size_t)n < sizeof line)
		snprintf(line + n, sizeof line - (size_t)n, " (%s/s)",
			 format_bytes(total / r->seconds, rate, sizeof rate));
	meter_put(line, true);
	rep.last_draw = now();
}

/* ---- the hooks ---------------------------------------------------------- */

void report_begin(const struct plan *p, const struct report_options *o)
{
	memset(&rep, 0, sizeof rep);
	rep.opt = *o;
	/* Rank 0's choice holds for all: whether a step end gathers counts
	 * must be the same on every rank (stderr may be a terminal on some). */
	comm_bcast(&rep.opt, sizeof rep.opt);
	rep.gather = rep.opt.json || rep.opt.progress;
	if (comm_rank() != 0)
		rep.opt.progress = false;
	rep.plan = p;
	rep.steps = calloc((size_t)(p->nsteps > 0 ? p->nsteps : 1), sizeof *rep.steps);
	if (!rep.steps) {
		fputs("h5ufunc: out of memory\n", stderr);
		abort();
	}
	struct winsize ws;
	if (rep.opt.progress && isatty(STDERR_FILENO) && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0)
		rep.columns = ws.ws_col;
	rep.run_start = now();
	rep.last_draw = rep.run_start - REPORT_REDRAW;
	rep.active = true;
}

void report_step_begin(const struct plan_step *s)
{
	if (!rep.active)
		return;
	rep.step = s;
	rep.read = rep.written = rep.masked = 0;
	rep.step_start = now();
	rep.estimate = step_estimate(s);
	meter_tick();
}

void report_read(int64_t elements, int64_t size)
{
	rep.read += elements * size;
	rep.run_read += elements * size;
	rep.run_elements += elements;
	meter_tick();
}

void report_read_again(int64_t elements)
{
	rep.run_elements -= elements;
}

void report_masked(int64_t elements)
{
	rep.masked += elements;
}

void report_written(int64_t elements, int64_t size)
{
	rep.written += elements * size;
	rep.run_written += elements * size;
	meter_tick();
}

/* Collective: every rank's SIZE bytes at MINE, in rank order, in a new
 * malloc'd array on rank 0 (NULL on the others). */
static void *gather(const void *mine, size_t size)
{
	void *all = NULL;
	if (comm_rank() == 0) {
		all = calloc((size_t)comm_size(), size);
		if (!all) {
			fputs("h5ufunc: out of memory\n", stderr);
			abort();
		}
	}
	comm_gather(mine, size, all);
	return all;
}

void report_step_end(const struct plan_step *s)
{
	if (!rep.active)
		return;
	rep.step = NULL;
	if (!rep.gather)
		return;
	struct step_counts mine = {
		rep.read, rep.written, rep.masked, (int64_t)((now() - rep.step_start) * 1e9)
	};
	struct step_counts *all = gather(&mine, sizeof mine);
	if (comm_rank() != 0)
		return;
	struct step_record *r = &rep.steps[s->index - 1];
	int64_t ns = 0;
	for (int i = 0; i < comm_size(); i++) {
		r->read += all[i].read;
		r->written += all[i].written;
		r->masked += all[i].masked;
		if (all[i].nanoseconds > ns)
			ns = all[i].nanoseconds;
	}
	free(all);
	r->seconds = (double)ns * 1e-9;
	if (rep.opt.progress)
		meter_step_done(s, r);
}

bool report_result(int step, int k, const struct array *x, const void *data, const uint8_t *mask)
{
	if (!rep.active || !rep.opt.json) {
		if (rep.active)
			meter_clear();
		return false;
	}
	if (k < 0 || k >= RECIPE_MAXOUT)
		return false;   /* printed steps have at most two outputs */
	struct step_record *r = &rep.steps[step - 1];
	size_t len;
	free(r->result[k]);
	FILE *f = open_memstream(&r->result[k], &len);
	if (!f) {
		r->result[k] = NULL;
		return false;
	}
	print_json(f, x->dtype, data, x->shape.ndim, x->shape.dim, mask);
	fclose(f);
	return true;
}

/* ---- the summary ------------------------------------------------------- */

/* S as a JSON string: quotes, backslashes and control characters escaped,
 * bytes that are not UTF-8 as U+FFFD (JSON text is UTF-8). */
static void json_string_n(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	fputc('"', f);
	while (p < end) {
		unsigned char b = *p;
		if (b == '"' || b == '\\') {
			fprintf(f, "\\%c", b);
			p++;
		} else if (b < 0x20 || b == 0x7f) {
			fprintf(f, "\\u%04x", b);
			p++;
		} else if (b < 0x80) {
			fputc(b, f);
			p++;
		} else {
			size_t len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3
				   : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
			if (len > (size_t)(end - p))
				len = 0;
			uint32_t c = len == 2 ? b & 0x1f : len == 3 ? b & 0x0f : b & 0x07;
			size_t i = 1;
			for (; i < len && (p[i] & 0xc0) == 0x80; i++)
				c = c << 6 | (p[i] & 0x3f);
			bool ok = len && i == len &&
				  c >= (len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u) &&
				  c <= 0x10ffff && !(c >= 0xd800 && c <= 0xdfff);
			if (ok) {
				fwrite(p, 1, len, f);
				p += len;
			} else {
				fputs("\\ufffd", f);
				p++;
			}
		}
	}
	fputc('"', f);
}

static void json_string(FILE *f, const char *s)
{
	json_string_n(f, s, strlen(s));
}

static void json_shape(FILE *f, const struct shape *s)
{
	fputc('[', f);
	for (int i = 0; i < s->ndim; i++)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)s->dim[i]);
	fputc(']', f);
}

/* One operand: {"operand": ..., "kind": ..., "shape": [...], "dims": [...],
 * "units": ..., "dtype": ..., "read": ..., "chunk_cache": ...}, "dims" only
 * when its axes are named, "units" only when known, "read" only for an
 * input read as the runs of its chunks the boxes cut (RUNS, step_blocks's
 * in_runs), "chunk_cache" only for an output opened with a chunk cache
 * paid from the budget (array's chunk_cache).  DT is the
 * dtype to show (a literal's is the one it takes in the loop); OUTPUT says
 * how the step uses X.  An operand broadcast by name shows the dataset it
 * reads.  MASKED: its masked elements, or -1 (not a step that masks). */
static void json_operand(FILE *f, const struct array *x, enum dtype dt, bool output,
			 bool printed, int64_t masked, bool runs)
{
	if (x && x->base)
		x = x->base;
	fputs("{\"operand\": ", f);
	if (printed)
		fputs("null", f);
	else
		json_string(f, x->display);
	static const char *const kinds[] = {
		[FATE_READ] = "dataset", [FATE_LITERAL] = "literal", [FATE_INTERMEDIATE] = "intermediate",
		[FATE_IN_PLACE] = "in place", [FATE_REPLACED] = "replaced", [FATE_NEW_FILE] = "new file",
		[FATE_NEW_DATASET] = "new dataset"
	};
	enum plan_fate fate = printed ? FATE_READ : plan_array_fate(x);
	const char *kind = printed ? "printed"
			 : !output && fate != FATE_LITERAL && fate != FATE_INTERMEDIATE ? "dataset"
			 : kinds[fate];
	fprintf(f, ", \"kind\": \"%s\", \"shape\": ", kind);
	json_shape(f, &x->shape);
	if (x->dims) {
		fputs(", \"dims\": [", f);
		for (int i = 0; i < x->dims->ndim; i++) {
			if (i)
				fputs(", ", f);
			if (x->dims->name[i])
				json_string(f, x->dims->name[i]);
			else
				fputs("null", f);   /* an axis None added */
		}
		fputc(']', f);
	}
	if (x->units.kind == UK_KNOWN) {
		fputs(", \"units\": ", f);
		json_string(f, x->units.text);
	}
	fprintf(f, ", \"dtype\": \"%s\"", dtype_name(dt));
	if (runs)
		fputs(", \"read\": \"runs of its chunks\"", f);
	if (masked >= 0)
		fprintf(f, ", \"masked\": %lld", (long long)masked);
	if (x->unused)
		fputs(", \"written\": false", f);
	if (output && x->chunk_cache > 0)
		fprintf(f, ", \"chunk_cache\": %zu", x->chunk_cache);
	fputc('}', f);
}

/* The printed results of a step of NOUT outputs (R): one value, or a list
 * of both outputs. */
static void json_result(FILE *f, int nout, const struct step_record *r)
{
	if (nout > 1)
		fputc('[', f);
	for (int k = 0; k < nout; k++) {
		if (k)
			fputs(", ", f);
		fputs(r->result[k] ? r->result[k] : "null", f);
	}
	if (nout > 1)
		fputc(']', f);
}

/* The dtype to show for input K of S: a literal's is the one it takes in
 * the loop (NEP 50), when K is still the step's own operand K (fusion and
 * the reading of each array once reorder a step's inputs). */
static enum dtype literal_dtype(const struct plan_step *s, int k)
{
	const struct array *x = s->in[k];
	if (x->kind != ARR_LITERAL || s->verb == VERB_EXPR || !s->loop || !s->src ||
	    k >= s->uf->nin || k >= s->src->nin || !s->src->in[k] ||
	    strcmp(s->src->in[k], x->display) != 0)
		return x->dtype;
	return s->loop->types[k];
}

/* S's line of `h5ufunc check` (plan_print_step), as "plan". */
static void json_plan_line(FILE *f, const struct plan *p, const struct plan_step *s)
{
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);
	if (!m)
		abort();
	plan_print_step(p, s, m);
	fclose(m);
	fputs(",\n     \"plan\": ", f);
	json_string_n(f, text, n && text[n - 1] == '\n' ? n - 1 : n);
	free(text);
}

/* Step S of P: what it is, its operands and, after a run (R), what it
 * did; from check (R NULL), its line of the plan instead. */
static void json_step(FILE *f, const struct plan *p, const struct plan_step *s,
		      const struct step_record *r, bool with_result)
{
	fprintf(f, "    {\"step\": %d, \"verb\": \"%s\", ", plan_step_number(s), verb_name(s->verb));
	if (s->verb == VERB_EXPR) {
		size_t n;
		const char *t = expr_text(s->src, &n);
		fputs("\"expr\": ", f);
		json_string_n(f, t, n);
	} else {
		fputs("\"ufunc\": ", f);
		json_string(f, s->uf->name);
		if (s->loop) {
			fputs(", \"loop\": \"", f);
			for (int k = 0; k < s->uf->nin + s->uf->nout; k++)
				fprintf(f, "%s%c", k == s->uf->nin ? "->" : "",
					dtype_table[s->loop->types[k]].typechar);
			fputc('"', f);
		}
	}
	if (s->fused.merged_into >= 0) {
		fprintf(f, ", \"fused_into\": %d", plan_step_number(&p->steps[s->fused.merged_into]));
	} else if (fused_count(p, s->index)) {
		fputs(", \"fused\": [", f);
		for (int i = 0, n = 0; i < p->nsteps; i++)
			if (p->steps[i].fused.merged_into == s->index - 1)
				fprintf(f, "%s%d", n++ ? ", " : "", plan_step_number(&p->steps[i]));
		fputc(']', f);
	}
	fputs(",\n     \"inputs\": [", f);
	for (int k = 0; k < s->nin; k++) {
		const struct array *x = s->in[k];
		if (k)
			fputs(", ", f);
		json_operand(f, x, literal_dtype(s, k), false, false, -1, s->blocks.in_runs[k]);
	}
	fputs("],\n     \"outputs\": [", f);
	for (int k = 0; k < s->fused.nown; k++) {   /* each under the step that names it */
		const struct array *x = s->fused.own[k];
		if (k)
			fputs(", ", f);
		json_operand(f, x, x->dtype, true, s->print,
			     r && (s->mask.has_where || s->mask.masked) ? r->masked : -1, false);
	}
	fputc(']', f);
	if (!r) {
		json_plan_line(f, p, s);
	} else {
		fprintf(f, ",\n     \"bytes_read\": %lld, \"bytes_written\": %lld, \"seconds\": %.6f",
			(long long)r->read, (long long)r->written, r->seconds);
	}
	if (r && with_result && s->print) {
		fputs(",\n     \"result\": ", f);
		json_result(f, s->nout, r);
	}
	fputc('}', f);
}

/* "per_rank": one object per rank, in rank order (ALL, gathered). */
static void json_per_rank(FILE *f, const struct rank_counts *all)
{
	fputs(" \"per_rank\": [\n", f);
	for (int r = 0; r < comm_size(); r++) {
		const struct rank_counts *c = &all[r];
		fprintf(f, "  {\"rank\": %d, \"elements\": %lld, \"bytes_read\": %lld, "
			"\"bytes_written\": %lld, \"seconds\": %.6f,\n"
			"   \"h5_reads\": %lld, \"h5_writes\": %lld, \"h5_opens\": %lld, "
			"\"h5_metadata\": %lld,\n"
			"   \"mpiio_reads\": %lld, \"mpiio_writes\": %lld, \"mpiio_coll_reads\": %lld, "
			"\"mpiio_coll_writes\": %lld,\n"
			"   \"mpiio_data_reads\": %lld, \"mpiio_data_writes\": %lld, \"mpiio_opens\": %lld,\n"
			"   \"journal_writes\": %lld, \"journal_records\": %lld, \"journal_bytes\": %lld, "
			"\"journal_syncs\": %lld}%s\n",
			r, (long long)c->elements, (long long)c->read, (long long)c->written,
			(double)c->nanoseconds * 1e-9, (long long)c->io.h5_reads,
			(long long)c->io.h5_writes, (long long)c->io.h5_opens,
			(long long)c->io.h5_metadata, (long long)c->io.mpiio_reads,
			(long long)c->io.mpiio_writes, (long long)c->io.mpiio_coll_reads,
			(long long)c->io.mpiio_coll_writes, (long long)c->io.mpiio_data_reads,
			(long long)c->io.mpiio_data_writes, (long long)c->io.mpiio_opens, (long long)c->io.journal_writes,
			(long long)c->io.journal_records, (long long)c->io.journal_bytes,
			(long long)c->io.journal_syncs, r + 1 < comm_size() ? "," : "");
	}
	fputs(" ],\n", f);
}

/* The members every summary opens with, the list of P's steps included
 * (RECORDS: what each did; NULL from check). */
static void json_head(FILE *f, const struct plan *p, const char *command, int64_t memory,
		      const struct step_record *records)
{
	fputs("\"h5ufunc\": \"" H5UFUNC_VERSION "\", \"command\": ", f);
	json_string(f, command);
	fprintf(f, ", \"ranks\": %d, \"memory\": %lld,\n \"steps\": [\n", comm_size(), (long long)memory);
	for (int i = 0; i < p->nsteps; i++) {
		json_step(f, p, &p->steps[i], records ? &records[i] : NULL, !p->command);
		fputs(i + 1 < p->nsteps ? ",\n" : "\n", f);
	}
	fputs(" ]", f);
}

static void json_summary(FILE *f, const struct rank_counts *all)
{
	const struct plan *p = rep.plan;
	bool one_liner = p->command != NULL;
	fputs("{", f);
	/* A one-liner prints one step's result, the last step's: an eval
	 * whose `@` was split off into steps of its own included. */
	int last = p->nsteps - 1;
	if (one_liner && last >= 0 && p->steps[last].print) {
		fputs("\"result\": ", f);
		json_result(f, p->steps[last].nout, &rep.steps[last]);
		fputs(",\n ", f);
	}
	json_head(f, p, p->command ? p->command : "run", rep.opt.memory, rep.steps);
	fputs(",\n", f);
	int64_t read = 0, written = 0;
	for (int i = 0; i < p->nsteps; i++) {
		read += rep.steps[i].read;
		written += rep.steps[i].written;
	}
	json_per_rank(f, all);
	fprintf(f, " \"totals\": {\"bytes_read\": %lld, \"bytes_written\": %lld, "
		"\"seconds\": %.6f}}\n", (long long)read, (long long)written, now() - rep.run_start);
}

void report_plan(const struct plan *p, int64_t memory, FILE *f)
{
	fputc('{', f);
	json_head(f, p, "check", memory, NULL);
	int n = 0;
	for (int i = 0; i < p->nfiles; i++) {
		if (!p->files[i]->unfinished)
			continue;
		fputs(n++ ? ", " : ",\n \"unfinished\": [", f);
		json_string(f, p->files[i]->unfinished);
	}
	fputs(n ? "]}\n" : "}\n", f);
}

/* End the meter's line, keeping it (rank 0). */
static void meter_end(void)
{
	if (comm_rank() == 0 && rep.opt.progress && rep.drawn)
		fputc('\n', stderr);
	rep.drawn = 0;
}

int report_summary(struct err *e)
{
	if (!rep.active || !rep.opt.json)
		return 0;
	meter_end();
	/* every rank has the options (rank 0's): all gather */
	struct rank_counts mine = {
		rep.run_elements, rep.run_read, rep.run_written,
		(int64_t)((now() - rep.run_start) * 1e9), iostat
	};
	struct rank_counts *all = gather(&mine, sizeof mine);
	if (comm_rank() == 0) {
		json_summary(stdout, all);
		const char *lost = print_flush(stdout);
		if (lost)
			err_set(e, EXIT_RUN, "standard output", "%s", lost);
	}
	free(all);
	return comm_agree(e);
}

void report_end(void)
{
	if (!rep.active)
		return;
	meter_end();
	for (int i = 0; rep.steps && i < rep.plan->nsteps; i++)
		for (int k = 0; k < RECIPE_MAXOUT; k++)
			free(rep.steps[i].result[k]);
	free(rep.steps);
	memset(&rep, 0, sizeof rep);
}
