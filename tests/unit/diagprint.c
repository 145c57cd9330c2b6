/* diagprint NAME TEXTFILE MESSAGE - register TEXTFILE as the source NAME
 * (a recipe path, or "<expression>") and print MESSAGE through diag_print,
 * as h5ufunc prints an error: for tests/51-diag.bats.
 *
 * The error record points where the code raising MESSAGE would point it:
 * a message "PATH:LINE:COL: ..." at LINE:COL of PATH (as the recipe reader
 * and the planner raise theirs), "COMMAND: column N: ..." at byte N of the
 * expression (as the planner does for a one-liner's expression); other
 * messages nowhere.  This reading of the text belongs to the test driver
 * only: h5ufunc sets the fields where it raises the error.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

/* A decimal number of one to nine digits at *P, followed by a non-digit. */
static bool number(const char **p, long *out)
{
	char *end;
	if (**p < '0' || **p > '9')
		return false;
	long v = strtol(*p, &end, 10);
	if (end - *p > 9)
		return false;
	*p = end;
	*out = v;
	return true;
}

/* The place MESSAGE's raiser would record. */
static void place_of(const char *msg, struct err_loc *loc)
{
	err_loc_set(loc, NULL, 0, 0, NULL);
	const char *col = strstr(msg, ": column ");
	const char *colon = strchr(msg, ':');
	long l, c;
	if (col && col == colon) {
		const char *p = col + 9;
		if (number(&p, &c) && *p == ':')
			err_loc_set(loc, ERR_EXPRESSION, 1, (int)c, NULL);
		return;
	}
	/* PATH:LINE:COL, the path being everything before the last two numbers */
	for (const char *p = msg; (p = strchr(p, ':')) != NULL; p++) {
		const char *q = p + 1;
		if (!number(&q, &l) || *q++ != ':' || !number(&q, &c) || (*q && *q != ':'))
			continue;
		char path[256];
		snprintf(path, sizeof path, "%.*s", (int)(p - msg), msg);
		err_loc_set(loc, path, (int)l, (int)c, NULL);
		return;
	}
}

int main(int argc, char **argv)
{
	static char text[1 << 16];
	if (argc != 4) {
		fprintf(stderr, "usage: diagprint NAME TEXTFILE MESSAGE\n");
		return 2;
	}
	FILE *f = fopen(argv[2], "rb");
	size_t len = f ? fread(text, 1, sizeof text, f) : 0;
	if (f)
		fclose(f);
	diag_set_source(argv[1], text, len);
	struct err e = {0};
	struct err_loc loc;
	place_of(argv[3], &loc);
	err_set_at(&e, EXIT_USAGE, &loc, NULL, "%s", argv[3]);
	diag_print(&e);
	return 0;
}
