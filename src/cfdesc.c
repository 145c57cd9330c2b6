/* cfdesc.c - long_name, standard_name, cell_methods and calendar; see
 * cfdesc.h. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cfdesc.h"
#include "h5attr.h"

/* The attributes, in the order they are written. */
#define CFDESC_FIELDS(X) X(long_name) X(standard_name) X(cell_methods) X(calendar)

struct cfdesc cfdesc_read(hid_t d, struct arena *a)
{
	struct cfdesc x = { 0 };
#define READ(F) x.F = h5attr_text(d, #F, a);
	CFDESC_FIELDS(READ)
#undef READ
	return x;
}

/* The one value the field at OFFSET of struct cfdesc has in all N of IN,
 * or NULL. */
static const char *agreed(int n, const struct cfdesc *const *in, size_t offset)
{
	const char *first = NULL;
	for (int k = 0; k < n; k++) {
		const char *v = *(const char *const *)((const char *)in[k] + offset);
		if (!v || (first && strcmp(v, first) != 0))
			return NULL;
		first = v;
	}
	return first;
}

struct cfdesc cfdesc_elementwise(int n, const struct cfdesc *const *in, bool same_quantity)
{
	struct cfdesc x = { 0 };
	if (!same_quantity)
		return x;
#define AGREE(F) x.F = agreed(n, in, offsetof(struct cfdesc, F));
	CFDESC_FIELDS(AGREE)
#undef AGREE
	return x;
}

const char *cfdesc_calendar(int n, const struct cfdesc *const *in)
{
	return agreed(n, in, offsetof(struct cfdesc, calendar));
}

struct cfdesc cfdesc_reduce(const struct cfdesc *x, const char *method, int naxes,
			    const char *const *names, struct arena *a)
{
	struct cfdesc y = { 0 };
	if (!method || !names || naxes == 0)
		return y;
	char text[2048];
	size_t n = 0;
	if (x->cell_methods && *x->cell_methods)
		n = (size_t)snprintf(text, sizeof text, "%s ", x->cell_methods);
	for (int i = 0; i < naxes && n < sizeof text; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%s: ", names[i]);
	if (n < sizeof text)
		snprintf(text + n, sizeof text - n, "%s", method);
	y = *x;
	y.cell_methods = arena_strdup(a, text);
	return y;
}

int cfdesc_write(hid_t d, const struct cfdesc *x)
{
	int rc = 0;
#define WRITE(F)                                                     \
	if (x->F && h5attr_write_text(d, #F, x->F) < 0)              \
		rc = -1;
	CFDESC_FIELDS(WRITE)
#undef WRITE
	return rc;
}
