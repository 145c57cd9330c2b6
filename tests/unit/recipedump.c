/* recipedump.c - print the recipe tree that recipe_parse() reads from a file.
 *
 *   recipedump RECIPE|- [NAME=VALUE...]
 *
 * Each NAME=VALUE is a --set pair for ${NAME}.  On success prints the tree,
 * one node per line with its @LINE:COL, and exits 0; on error prints
 * "h5ufunc: MESSAGE" on stderr and exits 2.  A test driver for
 * tests/32-recipe.bats, not part of h5ufunc: it checks nothing itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "err.h"
#include "options.h"
#include "recipe.h"

/* TEXT in single quotes, with \\, \', \n, \t and other control bytes
 * escaped, so that every value prints on one line. */
static void print_text(const char *text)
{
	putchar('\'');
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		if (*c == '\\' || *c == '\'')
			printf("\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", stdout);
		else if (*c == '\t')
			fputs("\\t", stdout);
		else if (*c < 0x20 || *c == 0x7f)
			printf("\\x%02x", *c);
		else
			putchar(*c);
	}
	putchar('\'');
}

static void print_mark(struct mark m)
{
	printf(" @%d:%d\n", m.line, m.col);
}

static void print_opts(const struct step_opts *o)
{
	static const char *const modes[] = { "off", "mask", "mask-nan" };
	for (int opt = 0; opt < OPT_COUNT; opt++) {
		if (!(o->given & (1u << opt)))
			continue;
		printf("  %s ", step_options[opt].name);
		switch (opt) {
		case OPT_DTYPE:
			fputs(dtype_name(o->dtype), stdout);
			break;
		case OPT_CASTING:
			fputs(casting_name(o->casting), stdout);
			break;
		case OPT_INITIAL:
			print_text(o->initial);
			break;
		case OPT_WHERE:
			print_text(o->where);
			break;
		case OPT_FILL:
			print_text(o->fill);
			break;
		case OPT_MISSING:
			fputs(modes[o->missing], stdout);
			break;
		case OPT_KEEPDIMS:
			fputs(o->keepdims ? "true" : "false", stdout);
			break;
		case OPT_OVERWRITE:
			fputs(o->overwrite ? "true" : "false", stdout);
			break;
		case OPT_CHUNKS:
			if (o->chunks_auto) {
				fputs("auto", stdout);
				break;
			}
			putchar('[');
			for (int i = 0; i < o->nchunks; i++)
				printf("%s%lld", i ? ", " : "", (long long)o->chunks[i]);
			putchar(']');
			break;
		case OPT_COMPRESSION:
			printf("%s:%d", filter_table[o->compression.kind].name, o->compression.level);
			break;
		case OPT_AXIS:
			if (o->axis_all) {
				fputs("all", stdout);
				break;
			}
			putchar('[');
			for (int i = 0; i < o->naxis; i++)
				printf("%s%d", i ? ", " : "", o->axis[i]);
			putchar(']');
			break;
		}
		print_mark(o->mark[opt]);
	}
}

static void print_recipe(const struct recipe *r)
{
	printf("recipe ");
	print_text(r->path);
	printf("\nversion %d\n", r->version);
	for (int i = 0; i < r->ninputs; i++) {
		const struct recipe_input *in = &r->inputs[i];
		printf("input %s @%d:%d = ", in->name, in->mark.line, in->mark.col);
		print_text(in->ref);
		print_mark(in->ref_mark);
	}
	printf("defaults\n");
	print_opts(&r->defaults);
	for (int i = 0; i < r->nsteps; i++) {
		const struct recipe_step *s = &r->steps[i];
		printf("step %d", i + 1);
		print_mark(s->mark);
		printf("  %s ", verb_name(s->verb));
		print_text(s->fn);
		print_mark(s->fn_mark);
		for (int k = 0; k < s->nin; k++) {
			printf("  in ");
			print_text(s->in[k]);
			print_mark(s->in_mark[k]);
		}
		for (int k = 0; k < s->nout; k++) {
			printf("  out ");
			print_text(s->out[k]);
			print_mark(s->out_mark[k]);
		}
		print_opts(&s->opts);
	}
}

/* The whole of FILE (stdin for "-") in a malloc'd buffer, its size in *LEN. */
static char *read_all(const char *file, size_t *len)
{
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "rb");
	if (!f)
		return NULL;
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		char *grown = realloc(buf, cap *= 2);
		if (!grown)
			free(buf);
		buf = grown;
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: recipedump RECIPE|- [NAME=VALUE...]\n", stderr);
		return EXIT_USAGE;
	}
	const char *file = argv[1];
	const char *path = strcmp(file, "-") == 0 ? "<stdin>" : file;
	int nvars = argc - 2;
	const char **names = calloc((size_t)nvars + 1, sizeof *names);
	const char **values = calloc((size_t)nvars + 1, sizeof *values);
	for (int i = 0; i < nvars; i++) {
		char *eq = strchr(argv[i + 2], '=');
		if (!eq) {
			fprintf(stderr, "h5ufunc: --set takes NAME=VALUE, not '%s'\n", argv[i + 2]);
			return EXIT_USAGE;
		}
		*eq = '\0';
		names[i] = argv[i + 2];
		values[i] = eq + 1;
	}
	struct vars vars = {nvars, names, values, NULL};

	size_t len;
	char *text = read_all(file, &len);
	if (!text) {
		fprintf(stderr, "h5ufunc: %s: cannot read: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	struct arena arena = {0};
	struct err e = {0};
	struct recipe r;
	int status = EXIT_OK;
	if (recipe_parse(text, len, path, &vars, &arena, &r, &e) == 0) {
		print_recipe(&r);
	} else {
		err_print(&e);
		status = e.status;
	}
	arena_free(&arena);
	free(text);
	free(names);
	free(values);
	return status;
}
