/* cf.c - missing-value and units attributes; see cf.h. */
#include <string.h>

#include "cf.h"
#include "h5attr.h"
#include "h5io.h"

int cf_missing_read(hid_t file, const char *path, enum dtype dt, struct cf_missing *m,
		    const char *where, const char *display, struct err *e)
{
	memset(m, 0, sizeof *m);
	if (dt == DT_BOOL)
		return 0;
	struct shape shape;
	enum dtype stored;
	hid_t d = h5io_dataset_open(file, path, &shape, &stored, where, display, e);
	if (d < 0)
		return -1;
	static const char *const names[] = { "_FillValue", "missing_value", "valid_min", "valid_max",
					     "valid_range" };
	const char *bad = NULL;
	unsigned char range[2][16];
	int n = h5attr_numbers(d, names[0], dt, 1, m->value);
	int k = n < 0 ? (bad = names[0], 0) : n;
	m->fill_value = k > 0;
	n = h5attr_numbers(d, names[1], dt, CF_MAXMISSING - k, m->value + k);
	m->nvalues = n < 0 ? (bad = names[1], k) : k + n;
	if ((n = h5attr_numbers(d, names[2], dt, 1, &m->min)) < 0)
		bad = names[2];
	m->has_min = n > 0;
	if ((n = h5attr_numbers(d, names[3], dt, 1, &m->max)) < 0)
		bad = names[3];
	m->has_max = n > 0;
	if ((n = h5attr_numbers(d, names[4], dt, 2, range)) == 2) {
		memcpy(m->min, range[0], sizeof m->min);
		memcpy(m->max, range[1], sizeof m->max);
		m->has_min = m->has_max = true;
	} else if (n != 0) {
		bad = names[4];
	}
	h5io_dataset_close(d);
	if (bad)
		return err_set(e, EXIT_USAGE, where,
			       "'%s' has a %s attribute that is not %s", display, bad,
			       bad == names[4] ? "two numbers" : bad == names[1] ? "a few numbers" : "a number");
	return 0;
}

struct units cf_units_read(hid_t d, struct arena *a)
{
	const char *text = h5attr_text(d, "units", a);
	if (!text || !*text)
		return (struct units){ UK_NONE, NULL, false, 0 };
	return (struct units){ UK_KNOWN, text, false, 0 };
}

int cf_units_write(hid_t d, struct units u)
{
	return h5attr_write_text(d, "units", u.kind == UK_KNOWN ? u.text : NULL);
}
