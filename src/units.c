/* units.c - units carried through ufuncs with UDUNITS-2.  See units.h.
 *
 * UDUNITS-2's unit database is read once, on the first unit that needs
 * parsing, so runs on data without `units` never load it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <udunits2.h>

#include "units.h"

static ut_system *units_system(void)
{
	static ut_system *sys;
	static bool tried;
	if (!tried) {
		tried = true;
		ut_set_error_message_handler(ut_ignore);
		sys = ut_read_xml(NULL);
	}
	return sys;
}

static ut_unit *parse(const char *text)
{
	ut_system *sys = units_system();
	return sys ? ut_parse(sys, text, UT_UTF8) : NULL;
}

static const struct units none = { UK_NONE, NULL, false, 0 };
static const struct units unknown = { UK_UNKNOWN, NULL, false, 0 };

/* Is TEXT one unit's name or symbol alone ("days", "km"), without an
 * operator, a number or an exponent? */
static bool one_word(const char *text)
{
	size_t n = strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_");
	return n > 0 && text[n] == '\0';
}

/* U spelt as UDUNITS-2 writes a product of powers ("m2.s-1"), but in the
 * N operands' own units IN to the powers P ("days2" for days times days,
 * "km.h"), when each is one word and that spelling parses back to U
 * itself; else NULL.  Operands of one spelling make one term, where the
 * first of them stands, to the sum of their powers. */
static const char *own_spelling(ut_unit *u, int n, const struct units *in, const int *p,
				struct arena *a)
{
	char text[256] = "";
	size_t at = 0;
	for (int k = 0; k < n; k++)
		if (in[k].kind != UK_KNOWN || !one_word(in[k].text))
			return NULL;
	for (int k = 0; k < n; k++) {
		int e = 0, first = 0;
		while (strcmp(in[first].text, in[k].text))
			first++;
		for (int j = k; j < n; j++)
			e += strcmp(in[j].text, in[k].text) ? 0 : p[j];
		if (first < k || e == 0 || at >= sizeof text)
			continue;
		at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", at ? "." : "", in[k].text);
		if (e != 1 && at < sizeof text)
			at += (size_t)snprintf(text + at, sizeof text - at, "%d", e);
	}
	ut_unit *v = at > 0 && at < sizeof text ? parse(text) : NULL;
	bool same = v && ut_compare(u, v) == 0;
	ut_free(v);
	return same ? arena_strdup(a, text) : NULL;
}

/* U as a result: the spelling of one of the N operands IN that has U's
 * very unit (m/s times 2 stays m/s), else its definition's text ("m2.s-2")
 * -- but for a multiple of that (a definition with a factor, "7464960000
 * s2"), the operands' own units to the powers P ("days2") where they say
 * it (P NULL: they do not); the unit one is no units. */
static struct units known(ut_unit *u, const struct units *in, int n, const int *p, struct arena *a)
{
	if (!u)
		return unknown;
	for (int k = 0; k < n; k++) {
		ut_unit *x = in[k].kind == UK_KNOWN ? parse(in[k].text) : NULL;
		bool same = x && ut_compare(u, x) == 0;
		ut_free(x);
		if (same) {
			ut_free(u);
			return (struct units){ UK_KNOWN, in[k].text, false, 0 };
		}
	}
	char buf[256];
	int len = ut_format(u, buf, sizeof buf, UT_ASCII | UT_DEFINITION);
	struct units r = unknown;
	if (len > 0 && (size_t)len < sizeof buf) {
		ut_unit *one = ut_get_dimensionless_unit_one(units_system());
		const char *own = p && strchr("0123456789.", buf[0]) ? own_spelling(u, n, in, p, a) : NULL;
		r = ut_compare(u, one) == 0 ? none
		    : (struct units){ UK_KNOWN, own ? own : arena_strdup(a, buf), false, 0 };
		ut_free(one);
	}
	ut_free(u);
	return r;
}

/* Do A and B (UK_KNOWN) name one unit? */
static bool same_unit(const char *a, const char *b)
{
	if (!strcmp(a, b))
		return true;
	ut_unit *x = parse(a), *y = parse(b);
	bool same = x && y && ut_compare(x, y) == 0;
	ut_free(x);
	ut_free(y);
	return same;
}

/* UNITS_SAME: the units of the operands that are not weak literals, when
 * they all have the same; the first one's spelling is kept. */
static struct units same(int n, const struct units *in)
{
	const struct units *first = NULL;
	for (int k = 0; k < n; k++) {
		if (in[k].weak)
			continue;
		if (in[k].kind == UK_UNKNOWN)
			return unknown;
		if (!first) {
			first = &in[k];
			continue;
		}
		if (first->kind != in[k].kind ||
		    (first->kind == UK_KNOWN && !same_unit(first->text, in[k].text)))
			return unknown;
	}
	if (!first)
		return none;
	return (struct units){ first->kind, first->text, false, 0 };
}

/* U parsed (NULL for no units: the unit one). */
static ut_unit *unit_of(struct units u)
{
	return u.kind == UK_KNOWN ? parse(u.text) : ut_get_dimensionless_unit_one(units_system());
}

static struct units combine(int n, const struct units *in, bool quotient, struct arena *a)
{
	bool any = false;
	for (int k = 0; k < n; k++) {
		if (in[k].kind == UK_UNKNOWN)
			return unknown;
		any = any || in[k].kind == UK_KNOWN;
	}
	if (!any)
		return none;
	ut_unit *x = unit_of(in[0]), *y = unit_of(in[1]);
	ut_unit *r = x && y ? (quotient ? ut_divide(x, y) : ut_multiply(x, y)) : NULL;
	ut_free(x);
	ut_free(y);
	return known(r, in, n, (const int[]){ 1, quotient ? -1 : 1 }, a);
}

static int gcd(int a, int b)
{
	return b ? gcd(b, a % b) : a < 0 ? -a : a;
}

/* Append to BUF (LEN bytes) one factor of unyt's spelling: SYM to the
 * power N/D (N > 0, D > 0, in lowest terms). */
static void append_power(char *buf, size_t len, const char *sym, int n, int d)
{
	size_t at = strlen(buf);
	const char *sep = at ? "*" : "";
	if (n == 1 && d == 2)
		snprintf(buf + at, len - at, "%ssqrt(%s)", sep, sym);
	else if (d == 1 && n == 1)
		snprintf(buf + at, len - at, "%s%s", sep, sym);
	else if (d == 1)
		snprintf(buf + at, len - at, "%s%s**%d", sep, sym, n);
	else
		snprintf(buf + at, len - at, "%s%s**(%d/%d)", sep, sym, n, d);
}

/* The P-th root of U where UDUNITS-2 has no unit for it (a power of 3/2):
 * U's base units with their exponents divided by P, spelt as unyt prints
 * them ("sqrt(kg)/m**(3/2)"); unknown when U is not a plain product of
 * powers of base units (a factor, as cm's 0.01 m, or an offset). */
static struct units fractional_root(ut_unit *u, int p, struct arena *a)
{
	char def[256], num[512] = "", den[512] = "";
	int len = ut_format(u, def, sizeof def, UT_ASCII), nden = 0;
	if (len <= 0 || (size_t)len >= sizeof def)
		return unknown;
	for (char *tok = strtok(def, "."); tok; tok = strtok(NULL, ".")) {
		size_t n = strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_");
		char *end = tok + n;
		long e = *end ? strtol(end, &end, 10) : 1;
		if (!n || *end || e == 0 || labs(e) > 1000)
			return unknown;
		char sym[64];
		snprintf(sym, sizeof sym, "%.*s", (int)n, tok);
		int g = gcd((int)e, p);
		append_power(e > 0 ? num : den, sizeof num, sym, abs((int)e) / g, p / g);
		nden += e < 0;
	}
	char text[1100];
	snprintf(text, sizeof text, "%s%s%s%s%s", *num ? num : "1", nden ? "/" : "",
		 nden > 1 ? "(" : "", den, nden > 1 ? ")" : "");
	return (struct units){ UK_KNOWN, arena_strdup(a, text), false, 0 };
}

/* X's units to the power P (ROOT: to the power 1/P). */
static struct units raise(struct units x, int p, bool root, struct arena *a)
{
	if (x.kind != UK_KNOWN)
		return x.kind == UK_NONE ? none : unknown;
	ut_unit *u = parse(x.text);
	ut_unit *r = u ? (root ? ut_root(u, p) : ut_raise(u, p)) : NULL;
	if (root && u && !r) {
		struct units f = fractional_root(u, p, a);
		ut_free(u);
		return f;
	}
	ut_free(u);
	return known(r, &x, 1, root ? NULL : &p, a);
}

/* The length of the unit X counts in when X is a reference time, CF's
 * "UNIT since DATE" of a time coordinate ("days" of "days since
 * 2000-01-01"); 0 when it is not one. */
static size_t reference_time(struct units x)
{
	const char *since = x.kind == UK_KNOWN ? strstr(x.text, " since ") : NULL;
	if (!since)
		return 0;
	char unit[64];
	snprintf(unit, sizeof unit, "%.*s", (int)(since - x.text), x.text);
	ut_unit *u = parse(unit), *second = parse("s");
	bool time = u && second && ut_are_convertible(u, second);
	ut_free(u);
	ut_free(second);
	return time ? (size_t)(since - x.text) : 0;
}

/* Is X (no weak literal) a duration in the unit of the reference time
 * DATE, LEN its length ("days" beside "days since 2000-01-01")? */
static bool duration_of(struct units x, struct units date, size_t len)
{
	char unit[64];
	snprintf(unit, sizeof unit, "%.*s", (int)len, date.text);
	return !x.weak && x.kind == UK_KNOWN && same_unit(x.text, unit);
}

/* What UF makes of its N operands IN when reference times are among them,
 * points in time as xarray's datetime64 are, whose loops NumPy has for a
 * few ufuncs only (the catalogue's UF_TAKES_DATES): a date plus or minus a
 * number or a duration in its own unit is that date (add(t, 1)); a date
 * minus a date in the same units is a duration in their unit ("days");
 * dates compared, picked (maximum) or tested (isnan) among dates in the
 * same units and numbers are what the ufunc's rule says (DATED_AMONG).
 * Anything else -- a sum of dates, a duration minus a date, dates or
 * durations in other units (whose numbers would need converting), and a
 * date as an operand of any other ufunc (a negated, absolute or scaled
 * date) -- is nothing that can be determined. */
enum dated { DATED_NONE, DATED_FIRST, DATED_SECOND, DATED_DURATION, DATED_AMONG, DATED_UNKNOWN };
static enum dated dated_kind(const struct ufunc *uf, int n, const struct units *in)
{
	int first = -1;
	for (int k = n - 1; k >= 0; k--)
		if (reference_time(in[k]))
			first = k;
	if (first < 0)
		return DATED_NONE;
	if (!(uf->flags & UF_TAKES_DATES))
		return DATED_UNKNOWN;
	if (uf->units == UNITS_SUM || uf->units == UNITS_DIFFERENCE) {
		bool difference = uf->units == UNITS_DIFFERENCE;
		size_t len0 = reference_time(in[0]), len1 = reference_time(in[1]);
		if (len0 && len1)
			return difference && same_unit(in[0].text, in[1].text) ? DATED_DURATION : DATED_UNKNOWN;
		if (difference && !len0)
			return DATED_UNKNOWN;
		struct units date = in[first], other = in[1 - first];
		if (other.weak || duration_of(other, date, len0 ? len0 : len1))
			return first ? DATED_SECOND : DATED_FIRST;
		return DATED_UNKNOWN;
	}
	for (int k = 0; k < n; k++)
		if (!in[k].weak && !(reference_time(in[k]) && same_unit(in[k].text, in[first].text)))
			return DATED_UNKNOWN;
	return DATED_AMONG;
}

/* The units of rule R applied to the N operands IN, dates aside. */
static struct units rule_units(enum units_rule r, int n, const struct units *in, struct arena *a)
{
	switch (r) {
	case UNITS_SAME:
	case UNITS_SUM:
	case UNITS_DIFFERENCE:
		return same(n, in);
	case UNITS_PRODUCT:
	case UNITS_QUOTIENT:
		return n == 2 ? combine(n, in, r == UNITS_QUOTIENT, a) : unknown;
	case UNITS_POWER:
		if (n == 2 && in[1].weak && in[1].value == floor(in[1].value) && fabs(in[1].value) <= 64)
			return in[1].value == 0 ? none : raise(in[0], (int)in[1].value, false, a);
		return in[0].kind == UK_NONE && in[1].kind == UK_NONE ? none : unknown;
	case UNITS_SQRT:
		return raise(in[0], 2, true, a);
	case UNITS_CBRT:
		return raise(in[0], 3, true, a);
	case UNITS_SQUARE:
		return raise(in[0], 2, false, a);
	case UNITS_RECIPROCAL:
		return raise(in[0], -1, false, a);
	case UNITS_COMPARE:
	case UNITS_NONE:
		return none;
	case UNITS_ANGLE:
	case UNITS_DIMENSIONLESS:
		break;
	}
	for (int k = 0; k < n; k++)
		if (in[k].kind != UK_NONE)
			return unknown;
	return none;
}

struct units units_apply(const struct ufunc *uf, int n, const struct units *in, struct arena *a)
{
	if (!units_system())
		return unknown;
	enum dated kind = dated_kind(uf, n, in);
	switch (kind) {
	case DATED_FIRST:
	case DATED_SECOND:
		return (struct units){ UK_KNOWN, in[kind == DATED_SECOND].text, false, 0 };
	case DATED_DURATION:
		return (struct units){ UK_KNOWN, arena_strndup(a, in[0].text, reference_time(in[0])), false, 0 };
	case DATED_UNKNOWN:
		return unknown;
	default:
		return rule_units(uf->nout == 1 ? uf->units : UNITS_DIMENSIONLESS, n, in, a);
	}
}

bool units_dated(struct units x)
{
	return reference_time(x) > 0;
}

bool units_fold_undates(const struct ufunc *uf, struct units x)
{
	return !(uf->flags & UF_PICKS_OPERAND) && reference_time(x) > 0;
}

struct units units_fold(const struct ufunc *uf, bool accumulate, long long count, struct units x,
			struct arena *a)
{
	enum units_rule r = uf->units;
	x.weak = false;
	if (units_fold_undates(uf, x))   /* the durations since the reference fold */
		x.text = arena_strndup(a, x.text, reference_time(x));
	if (r == UNITS_SUM || r == UNITS_DIFFERENCE)
		r = UNITS_SAME;   /* of durations or dates alone */
	if (r == UNITS_SAME || r == UNITS_NONE || r == UNITS_COMPARE)
		return r == UNITS_SAME ? x : none;
	if (r == UNITS_PRODUCT && !accumulate && count > 0 && count <= 64)
		return raise(x, (int)count, false, a);
	return rule_units(UNITS_DIMENSIONLESS, 1, &x, a);
}

/* The factor that takes values in FROM to TO, when they are convertible:
 * the converter's slope, so that a temperature is converted as a
 * difference (unyt's K + degC adds the degC values as kelvins). */
static bool factor_between(ut_unit *from, ut_unit *to, double *factor)
{
	cv_converter *c = from && to && ut_are_convertible(from, to) ? ut_get_converter(from, to) : NULL;
	if (!c)
		return false;
	*factor = cv_convert_double(c, 1.0) - cv_convert_double(c, 0.0);
	cv_free(c);
	return true;
}

/* U's text as messages show it. */
static const char *shown(struct units u)
{
	return u.kind == UK_KNOWN ? u.text : "dimensionless";
}

/* units: strict's message (in MSG, LEN bytes) for dates among UF's N
 * operands IN (named NAME) that dated_kind finds nothing of; -1. */
static int dates_refused(const struct ufunc *uf, int n, const struct units *in, const char *const *name,
			 char *msg, size_t len)
{
	int k = 0;
	while (k < n - 1 && !reference_time(in[k]))
		k++;
	if (!(uf->flags & UF_TAKES_DATES))
		snprintf(msg, len, "cannot take %s of %s (%s): a date is only added to, subtracted, compared "
			 "or picked (maximum, minimum), as NumPy's datetime64 is", uf->name, name[k], shown(in[k]));
	else if (uf->units == UNITS_SUM || uf->units == UNITS_DIFFERENCE)
		snprintf(msg, len, "cannot %s %s (%s) and %s (%s): a date takes a number or a duration in its "
			 "own unit, and is subtracted from a date in the same units", uf->name, name[0],
			 shown(in[0]), name[1], shown(in[1]));
	else
		snprintf(msg, len, "cannot take %s of %s (%s) and %s (%s): a date is compared with or picked "
			 "among numbers and dates in the same units", uf->name, name[0], shown(in[0]),
			 name[1], shown(in[1]));
	return -1;
}

int units_strict(const struct ufunc *uf, int n, struct units *in, const char *const *name,
		 double *factor, char *msg, size_t len)
{
	for (int k = 0; k < n; k++)
		factor[k] = 1.0;
	for (int k = 0; k < n; k++)
		if (in[k].kind == UK_UNKNOWN) {
			snprintf(msg, len, "the units of %s cannot be determined", name[k]);
			return -1;
		}
	if (!units_system()) {
		snprintf(msg, len, "the UDUNITS-2 unit database cannot be read");
		return -1;
	}
	enum units_rule r = uf->units;
	bool sum = n == 2 && (r == UNITS_SUM || r == UNITS_DIFFERENCE);
	enum dated kind = dated_kind(uf, n, in);
	if (kind == DATED_UNKNOWN)
		return dates_refused(uf, n, in, name, msg, len);
	if (kind != DATED_NONE)
		return 0;   /* nothing converted: the numbers are in the date's unit */
	bool match = n == 2 && (r == UNITS_SAME || r == UNITS_COMPARE || sum);
	bool plain = r == UNITS_DIMENSIONLESS || r == UNITS_ANGLE;
	if (!match && !plain)
		return 0;
	int rc = 0;
	ut_unit *one = ut_get_dimensionless_unit_one(units_system());
	ut_unit *x = unit_of(in[0]), *y = n > 1 ? unit_of(in[1]) : NULL;
	if (match) {
		/* unyt converts the second operand to the first's units */
		if (!factor_between(y, x, &factor[1])) {
			snprintf(msg, len, "cannot %s %s (%s) and %s (%s): their units are not convertible",
				 uf->name, name[0], shown(in[0]), name[1], shown(in[1]));
			rc = -1;
		}
	} else {
		for (int k = 0; k < n && !rc; k++) {
			ut_unit *u = k ? y : x;
			double f;
			if (!factor_between(u, one, &f)) {
				snprintf(msg, len, "cannot take %s of %s (%s): it needs %s operand",
					 uf->name, name[k], shown(in[k]),
					 r == UNITS_ANGLE ? "an angle or a dimensionless" : "a dimensionless");
				rc = -1;
			} else if (r == UNITS_ANGLE) {
				factor[k] = f;   /* to radians, as unyt takes sin of degrees */
			}
		}
	}
	for (int k = 0; k < n && !rc; k++)   /* the operands as converted */
		if (match || plain)
			in[k] = match ? in[0] : none;
	ut_free(x);
	ut_free(y);
	ut_free(one);
	return rc;
}
