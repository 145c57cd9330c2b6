/* diag.c - error messages with the offending source line and a caret.
 *
 * diag_print() prints the error record's line "h5ufunc: WHERE: WHAT" exactly
 * as err_print() does, then, when WHERE points into a registered text, two
 * more lines: the source line under a gutter with its number, and a caret
 * under the column, as compilers and jq do:
 *
 *     h5ufunc: r.yaml:5:13: step 1 (ufunc add): unknown name 'w'
 *         5 |     in: [u, w]
 *           |             ^
 *
 * The place comes from the record's fields (err.h), never from its text:
 * a registered recipe (its line, and its column in characters, as libyaml
 * counts), or the registered expression ERR_EXPRESSION (the byte offset in
 * its text, as the expression parser counts; the expression's line is
 * numbered from 1).  The line is shown safely: tabs are expanded to stops of eight,
 * control characters, invalid UTF-8 and bidirectional overrides become '?',
 * and a line too long for a terminal is trimmed around the column with
 * "..." on the cut sides.  Anything else prints the first line alone.
 *
 * It is not a message formatter: the text of every message is decided where
 * the error is raised.  It keeps pointers to the registered texts and never
 * copies or frees them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define DIAG_MAXSOURCES 4
#define DIAG_WINDOW 76           /* display cells of source shown at most */

struct source {
	const char *path;
	const char *text;
	size_t len;
};

static struct source sources[DIAG_MAXSOURCES];
static int nsources;

void diag_set_source(const char *path, const char *text, size_t len)
{
	if (!path || !text)
		return;
	for (int i = 0; i < nsources; i++)
		if (strcmp(sources[i].path, path) == 0) {
			sources[i].text = text;
			sources[i].len = len;
			return;
		}
	if (nsources == DIAG_MAXSOURCES) {   /* forget the oldest */
		memmove(sources, sources + 1, sizeof *sources * (DIAG_MAXSOURCES - 1));
		nsources--;
	}
	sources[nsources++] = (struct source){ path, text, len };
}

static const struct source *source_find(const char *path)
{
	for (int i = 0; i < nsources; i++)
		if (strcmp(sources[i].path, path) == 0)
			return &sources[i];
	return NULL;
}

/* ---- decoding: one unit of a line at a time --------------------------- */

enum unit_kind {
	UNIT_CHAR,      /* a printable character: shown as its bytes */
	UNIT_TAB,       /* to the next stop of eight */
	UNIT_UNSAFE     /* a control character, an invalid byte, a bidi override: '?' */
};

struct unit {
	enum unit_kind kind;
	size_t len;     /* bytes */
	int width;      /* display cells (tabs: decided by position) */
};

/* Display width of code point C: 0 for combining marks, 2 for East Asian
 * wide and fullwidth forms and emoji, 1 otherwise. */
static int code_point_width(uint32_t c)
{
	if ((c >= 0x0300 && c <= 0x036f) || (c >= 0x200b && c <= 0x200d) ||
	    (c >= 0xfe00 && c <= 0xfe0f))
		return 0;
	if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c != 0x303f) ||
	    (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
	    (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
	    (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
	    (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd))
		return 2;
	return 1;
}

/* The unit starting at P (N > 0 bytes left in the line). */
static struct unit unit_at(const unsigned char *p, size_t n)
{
	struct unit u = { UNIT_UNSAFE, 1, 1 };
	unsigned char b = p[0];
	if (b == '\t') {
		u.kind = UNIT_TAB;
		return u;
	}
	if (b < 0x80) {
		if (b >= 0x20 && b != 0x7f)
			u.kind = UNIT_CHAR;
		return u;
	}
	size_t len;
	uint32_t c, min;
	if (b >= 0xc2 && b <= 0xdf) {
		len = 2, c = b & 0x1f, min = 0x80;
	} else if (b >= 0xe0 && b <= 0xef) {
		len = 3, c = b & 0x0f, min = 0x800;
	} else if (b >= 0xf0 && b <= 0xf4) {
		len = 4, c = b & 0x07, min = 0x10000;
	} else {
		return u;
	}
	if (len > n)
		return u;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return u;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return u;
	u.len = len;
	if ((c >= 0x80 && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
	    (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029)
		return u;   /* C1 controls, bidi overrides, separators: one '?' */
	u.kind = UNIT_CHAR;
	u.width = code_point_width(c);
	return u;
}

/* Width of unit U at display cell CELL. */
static int unit_width(const struct unit *u, int64_t cell)
{
	return u->kind == UNIT_TAB ? (int)(8 - cell % 8) : u->width;
}

/* ---- finding the line -------------------------------------------------- */

/* Length of the line break at P (0 when none): \n, \r\n, \r, and the
 * breaks YAML also counts, NEL (U+0085), LS (U+2028) and PS (U+2029). */
static size_t break_at(const unsigned char *p, size_t n)
{
	if (p[0] == '\n')
		return 1;
	if (p[0] == '\r')
		return n > 1 && p[1] == '\n' ? 2 : 1;
	if (n > 1 && p[0] == 0xc2 && p[1] == 0x85)
		return 2;
	if (n > 2 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
		return 3;
	return 0;
}

/* The bytes of line LINE (1-based) of S: *START and *LEN.  Returns false
 * when S has fewer lines. */
static bool line_find(const struct source *s, long line, size_t *start, size_t *len)
{
	const unsigned char *t = (const unsigned char *)s->text;
	size_t i = 0, n = s->len;
	for (long l = 1; l < line; l++) {
		size_t k;
		while (i < n && !(k = break_at(t + i, n - i)))
			i++;
		if (i >= n)
			return false;
		i += k;
	}
	if (i == n && line > 1 && i > 0)
		return false;   /* past the final line break */
	size_t j = i;
	while (j < n && !break_at(t + j, n - j))
		j++;
	if (line == 1 && j - i >= 3 && memcmp(t + i, "\xef\xbb\xbf", 3) == 0)
		i += 3;   /* a byte order mark is not a column */
	*start = i;
	*len = j - i;
	return true;
}

/* ---- showing a line with a caret -------------------------------------- */

/* Print LEN bytes of LINE under a gutter holding LABEL, with a caret under
 * byte offset AT (AT == LEN: just past the end; beyond: that many cells
 * further). */
static void show(FILE *f, const char *label, const char *line, size_t len, size_t at)
{
	const unsigned char *p = (const unsigned char *)line;
	/* The display cell of the caret, and the line's width. */
	int64_t cell = 0, caret = -1;
	for (size_t i = 0; i < len;) {
		struct unit u = unit_at(p + i, len - i);
		if (caret < 0 && at < i + u.len)
			caret = cell;
		cell += unit_width(&u, cell);
		i += u.len;
	}
	int64_t total = cell;
	if (caret < 0)
		caret = total + (int64_t)(at > len ? at - len : 0);
	/* The window of cells shown. */
	int64_t from = 0, to = total;
	if (total > DIAG_WINDOW) {
		from = caret - DIAG_WINDOW / 2;
		if (from + DIAG_WINDOW > total)
			from = total - DIAG_WINDOW;
		if (from < 0)
			from = 0;
		to = from + DIAG_WINDOW;
	}
	int width = (int)strlen(label) > 4 ? (int)strlen(label) : 4;
	fprintf(f, " %*s | ", width, label);
	if (from > 0)
		fputs("...", f);
	cell = 0;
	for (size_t i = 0; i < len && cell < to;) {
		struct unit u = unit_at(p + i, len - i);
		int w = unit_width(&u, cell);
		if (cell >= from && cell + w <= to) {
			if (u.kind == UNIT_CHAR)
				fwrite(p + i, 1, u.len, f);
			else if (u.kind == UNIT_TAB)
				fprintf(f, "%*s", w, "");
			else
				fputc('?', f);
		} else if (cell + w > from && cell < to) {
			/* a unit cut by the window's edge: blanks for its cells inside */
			int64_t a = cell > from ? cell : from, b = cell + w < to ? cell + w : to;
			fprintf(f, "%*s", (int)(b - a), "");
		}
		cell += w;
		i += u.len;
	}
	if (to < total)
		fputs("...", f);
	fputc('\n', f);
	int64_t pad = caret - from + (from > 0 ? 3 : 0);
	if (pad > DIAG_WINDOW + 6)
		pad = DIAG_WINDOW + 6;
	fprintf(f, " %*s | %*s^\n", width, "", (int)pad, "");
}

/* Byte offset in LINE (LEN bytes) of character column COL (1-based), as
 * libyaml counts: one per character, one per invalid byte. */
static size_t column_offset(const char *line, size_t len, long col)
{
	const unsigned char *p = (const unsigned char *)line;
	size_t i = 0;
	long c = 1;
	for (; c < col && i < len; c++)
		i += unit_at(p + i, len - i).len;
	return i + (size_t)(col - c);
}

/* The recipe line LINE of S with a caret under character column COL. */
static bool show_recipe(FILE *f, const struct source *s, long line, long col)
{
	size_t start, len;
	if (line < 1 || col < 1 || !line_find(s, line, &start, &len))
		return false;
	char label[24];
	snprintf(label, sizeof label, "%ld", line);
	const char *text = s->text + start;
	show(f, label, text, len, column_offset(text, len, col));
	return true;
}

/* The line of expression S holding byte COL - 1, numbered from 1 like a
 * recipe's, with a caret under that byte. */
static bool show_expression(FILE *f, const struct source *s, long col)
{
	if (col < 1 || (size_t)(col - 1) > s->len)
		return false;
	size_t at = (size_t)(col - 1), start = 0, i = 0;
	long line = 1;
	const unsigned char *t = (const unsigned char *)s->text;
	while (i < at) {
		size_t k = break_at(t + i, s->len - i);
		if (k && i + k <= at) {
			start = i + k;
			line++;
		}
		i += k ? k : 1;
	}
	size_t end = start;
	while (end < s->len && !break_at(t + end, s->len - end))
		end++;
	char label[24];
	snprintf(label, sizeof label, "%ld", line);
	show(f, label, s->text + start, end - start, at - start);
	return true;
}

void diag_print(const struct err *e)
{
	err_print(e);
	const struct err_loc *l = &e->loc;
	const struct source *s = l->source[0] ? source_find(l->source) : NULL;
	if (s && !strcmp(l->source, ERR_EXPRESSION))
		show_expression(stderr, s, l->col);
	else if (s)
		show_recipe(stderr, s, l->line, l->col);
	fflush(stderr);
}
