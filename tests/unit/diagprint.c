/* diagprint NAME TEXTFILE MESSAGE - register TEXTFILE as the source NAME
 * (a recipe path, or "<expression>") and print MESSAGE through diag_print,
 * as h5ufunc prints an error: for tests/51-diag.bats. */
#include <stdio.h>

#include "diag.h"

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
	err_set(&e, EXIT_USAGE, NULL, "%s", argv[3]);
	diag_print(&e);
	return 0;
}
