/* cmd_ufuncs.c - the catalogue as text: every ufunc on one line (a
 * generalized ufunc with its core signature before its loops), or one
 * ufunc in detail. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "ufunc.h"

static const char *identity_text(const struct ufunc *uf)
{
	switch (uf->identity) {
	case ID_ZERO: return "0";
	case ID_ONE: return "1";
	case ID_MINUS_ONE: return "-1";
	case ID_FALSE: return "False";
	case ID_TRUE: return "True";
	case ID_MINUS_INF: return "-inf";
	default: return "None";
	}
}

static void print_loop(const struct ufunc *uf, const struct ufunc_loop *l)
{
	for (int k = 0; k < uf->nin + uf->nout; k++) {
		if (k == uf->nin)
			fputs("->", stdout);
		putchar(dtype_table[l->types[k]].typechar);
	}
}

static void print_loops(const struct ufunc *uf)
{
	for (int l = 0; l < uf->nloops; l++) {
		putchar(' ');
		print_loop(uf, &uf->loops[l]);
	}
}

int cmd_ufuncs(int argc, char **argv)
{
	if (argc > 2) {
		fputs("h5ufunc: ufuncs: one ufunc name at most\n", stderr);
		return 2;
	}
	if (argc == 2) {
		const struct ufunc *uf = ufunc_lookup(argv[1]);
		if (!uf) {
			fprintf(stderr, "h5ufunc: ufuncs: unknown ufunc '%s'\n", argv[1]);
			return 2;
		}
		printf("name: %s\naliases:", uf->name);
		for (int i = 0; ufunc_alias(uf, i); i++)
			printf("%s %s", i ? "," : "", ufunc_alias(uf, i));
		printf("\ninputs: %d\noutputs: %d\nidentity: %s\n", uf->nin, uf->nout,
		       identity_text(uf));
		if (uf->signature)
			printf("signature: %s\n", uf->signature);
		printf("reorderable: %s\n", ufunc_reorderable(uf) ? "yes" : "no");
		printf("reduce: %s\n", uf->signature ? "no (a generalized ufunc)"
		       : uf->nin == 2 && uf->nout == 1
		       ? (ufunc_reorderable(uf) ? "yes, over several axes" : "yes, over one axis") : "no");
		printf("loops:");
		print_loops(uf);
		printf("\ndoc: %s\n", uf->doc);
		return 0;
	}
	for (int i = 0; i < ufunc_count; i++) {
		const struct ufunc *uf = &ufunc_table[i];
		printf("%s %d %d %s", uf->name, uf->nin, uf->nout, identity_text(uf));
		if (uf->signature)
			printf(" %s", uf->signature);
		print_loops(uf);
		putchar('\n');
	}
	return 0;
}
