/* ufunc.c - the ufunc catalogue: the table built from ufunc.def, lookup by
 * name and alias, identities, and the record of faults loops raise.
 *
 * The table holds, per ufunc, NumPy's name, arity, identity, doc line and
 * type loops in NumPy's order, each loop pointing at its kernel in
 * loops_*.c (a generalized ufunc's loops have none: contract.c runs them).  This file does not choose a loop for given operands (that is
 * type resolution, in plan.c) and does not run loops.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "loops.h"
#include "ufunc.h"

/* ---- the loop lists, one array per ufunc ---- */

/* A loop's types, inputs then outputs, padded with DT_NONE. */
#if UF_MAXARGS != 4
#error "ufunc.c fills four types per loop: divmod has two inputs and two outputs"
#endif
#define TYPES2(A, B) { DT_##A, DT_##B, DT_NONE, DT_NONE }
#define TYPES3(A, B, C) { DT_##A, DT_##B, DT_##C, DT_NONE }
#define TYPES4(A, B, C, D) { DT_##A, DT_##B, DT_##C, DT_##D }

#define UFUNC(NAME, NIN, NOUT, IDENTITY, DOC) static const struct ufunc_loop loops_##NAME[] = {
#define UFUNC_END(NAME) };
#define ALIAS(ALIAS, NAME)
#define LOOP11(UF, I1, O1) \
	{ TYPES2(I1, O1), loop_##UF##_##I1##_##O1 },
#define LOOP21(UF, I1, I2, O1) \
	{ TYPES3(I1, I2, O1), loop_##UF##_##I1##_##I2##_##O1 },
#define LOOP12(UF, I1, O1, O2) \
	{ TYPES3(I1, O1, O2), loop_##UF##_##I1##_##O1##_##O2 },
#define LOOP22(UF, I1, I2, O1, O2) \
	{ TYPES4(I1, I2, O1, O2), loop_##UF##_##I1##_##I2##_##O1##_##O2 },
#define CORE_LOOP21(UF, I1, I2, O1) { TYPES3(I1, I2, O1), NULL },
#include "ufunc.def"
#undef UFUNC
#undef UFUNC_END
#undef ALIAS
#undef LOOP11
#undef LOOP21
#undef LOOP12
#undef LOOP22
#undef CORE_LOOP21

/* ---- the table ---- */

#define UFUNC(NAME, NIN, NOUT, IDENTITY, DOC)                                 \
	{ #NAME, NIN, NOUT, IDENTITY,                                         \
	  (int)(sizeof loops_##NAME / sizeof loops_##NAME[0]), loops_##NAME, DOC,
#define UFUNC_FLAGS(NAME, FLAGS) FLAGS
#define UFUNC_UNITS(NAME, RULE) , RULE
#define UFUNC_MA_DOMAIN(NAME, KIND, A, B) , .ma_domain = { KIND, A, B }
#define UFUNC_CELL_METHOD(NAME, METHOD) , .cell_method = METHOD
#define UFUNC_SIGNATURE(NAME, SIGNATURE) , .signature = SIGNATURE
#define UFUNC_END(NAME) },
#define ALIAS(ALIAS, NAME)
#define LOOP11(UF, I1, O1)
#define LOOP21(UF, I1, I2, O1)
#define LOOP12(UF, I1, O1, O2)
#define LOOP22(UF, I1, I2, O1, O2)
const struct ufunc ufunc_table[] = {
#include "ufunc.def"
};
#undef UFUNC
#undef UFUNC_FLAGS
#undef UFUNC_UNITS
#undef UFUNC_MA_DOMAIN
#undef UFUNC_CELL_METHOD
#undef UFUNC_SIGNATURE
#undef UFUNC_END
#undef ALIAS

const int ufunc_count = (int)(sizeof ufunc_table / sizeof ufunc_table[0]);

/* ---- the aliases ---- */

struct ufunc_alias {
	const char *alias, *name;
};

#define UFUNC(NAME, NIN, NOUT, IDENTITY, DOC)
#define UFUNC_END(NAME)
#define ALIAS(ALIAS, NAME) { #ALIAS, #NAME },
static const struct ufunc_alias alias_table[] = {
#include "ufunc.def"
};
#undef UFUNC
#undef UFUNC_END
#undef ALIAS
#undef LOOP11
#undef LOOP21
#undef LOOP12
#undef LOOP22

/* The table row called exactly NAME, by binary search (the rows are in
 * alphabetical order), or NULL. */
static const struct ufunc *find(const char *name)
{
	int lo = 0, hi = ufunc_count - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(name, ufunc_table[mid].name);
		if (c == 0)
			return &ufunc_table[mid];
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct ufunc *ufunc_lookup(const char *name)
{
	if (!name)
		return NULL;
	const struct ufunc *uf = find(name);
	if (uf)
		return uf;
	for (size_t i = 0; i < sizeof alias_table / sizeof alias_table[0]; i++)
		if (strcmp(name, alias_table[i].alias) == 0)
			return find(alias_table[i].name);
	return NULL;
}

const struct ufunc *ufunc_comparison(unsigned true_for)
{
	for (int i = 0; i < ufunc_count; i++)
		if (ufunc_table[i].flags & UF_COMPARISON &&
		    (ufunc_table[i].flags & UF_COMPARISON) == true_for)
			return &ufunc_table[i];
	return NULL;
}

bool ufunc_reorderable(const struct ufunc *uf)
{
	return uf->identity != ID_NONE;
}

bool ufunc_fold_exact(const struct ufunc *uf, enum dtype t)
{
	char kind = dtype_table[t].kind;
	return ufunc_reorderable(uf) &&
	       (kind == 'b' || kind == 'i' || kind == 'u' || (uf->flags & UF_PICKS_OPERAND));
}

/* Store the identity V (0, 1, -1 or -inf) as one element of DT, as NumPy
 * converts it: -1 in an unsigned type has all bits set, a bool is V != 0,
 * a complex value is V + 0j.  Returns -1 for an infinity in an integer
 * type, which has no such value. */
static int store_value(enum dtype dt, double v, void *out)
{
	switch (dt) {
#define DTYPE(TAG, CTYPE, NAME, KIND, CHAR)                                   \
	case DT_##TAG:                                                        \
		if (KIND == 'b') {                                            \
			*(CTYPE *)out = (CTYPE)(v != 0);                      \
		} else if (DT_##TAG == DT_FLOAT16) {                          \
			*(uint16_t *)out = half_from_double(v);               \
		} else if (KIND == 'f' || KIND == 'c') {                      \
			*(CTYPE *)out = (CTYPE)v;                             \
		} else {                                                      \
			if (isinf(v))                                         \
				return -1;                                    \
			*(CTYPE *)out = (CTYPE)(int64_t)v;                    \
		}                                                             \
		return 0;
#include "dtype.def"
#undef DTYPE
	default:
		return -1;
	}
}

int ufunc_identity_value(const struct ufunc *uf, enum dtype dt, void *out)
{
	switch (uf->identity) {
	case ID_ZERO:
	case ID_FALSE:
		return store_value(dt, 0, out);
	case ID_ONE:
	case ID_TRUE:
		return store_value(dt, 1, out);
	case ID_MINUS_ONE:
		return store_value(dt, -1, out);
	case ID_MINUS_INF:
		return store_value(dt, -INFINITY, out);
	case ID_NONE:
	case ID_NONE_REORDER:
		break;
	}
	return -1;
}

const struct ufunc_loop *ufunc_partial_loop(const struct ufunc *uf, const struct ufunc_loop *loop)
{
	if (loop->types[0] != DT_FLOAT16 || !(uf->flags & UF_HALF_WIDE))
		return loop;
	for (int i = 0; i < uf->nloops; i++)
		if (uf->loops[i].types[0] == DT_FLOAT32 && uf->loops[i].types[1] == DT_FLOAT32)
			return &uf->loops[i];
	return loop;
}

int ufunc_identity_exact(const struct ufunc *uf, enum dtype dt, void *out)
{
	if (ufunc_identity_value(uf, dt, out) < 0)
		return -1;
	char kind = dtype_table[dt].kind;
	if (uf->identity != ID_ZERO || (kind != 'f' && kind != 'c'))
		return 0;
	const double minus_zero = -0.0;
	if (kind == 'f')
		return store_value(dt, minus_zero, out);
	int half = dtype_size(dt) / 2;
	enum dtype part = half == 4 ? DT_FLOAT32 : DT_FLOAT64;
	dtype_cast(DT_FLOAT64, &minus_zero, 0, part, out, 0, 1);
	dtype_cast(DT_FLOAT64, &minus_zero, 0, part, (char *)out + half, 0, 1);
	return 0;
}

/* ---- faults raised by loops ---- */

static enum ufunc_fault pending_fault = UFERR_NONE;

void ufunc_raise(enum ufunc_fault f)
{
	if (pending_fault == UFERR_NONE)
		pending_fault = f;
}

enum ufunc_fault ufunc_take_error(void)
{
	enum ufunc_fault f = pending_fault;
	pending_fault = UFERR_NONE;
	return f;
}

const char *ufunc_fault_message(enum ufunc_fault f)
{
	switch (f) {
	case UFERR_NEGATIVE_POWER:
		return "Integers to negative integer powers are not allowed.";
	case UFERR_NONE:
		break;
	}
	return "no error";
}

const char *ufunc_alias(const struct ufunc *uf, int i)
{
	for (size_t k = 0; k < sizeof alias_table / sizeof alias_table[0]; k++)
		if (strcmp(alias_table[k].name, uf->name) == 0 && i-- == 0)
			return alias_table[k].alias;
	return NULL;
}
