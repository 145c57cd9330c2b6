/* check.h - assertions for the unit programs of tests/unit/.
 *
 * CHECK(COND, FMT, ...) counts a check and, when COND is false, prints
 * "FILE:LINE: failed: COND: <FMT...>" on stderr.  check_done() prints
 * "N checks, N failed" and returns the exit status: 0 only when every
 * check passed and at least one ran.  Header-only: each unit program is one
 * file linked with the modules it tests.
 */
#ifndef H5UFUNC_TESTS_CHECK_H
#define H5UFUNC_TESTS_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int check_count, check_failed;

__attribute__((format(printf, 5, 6)))
static void check_one(bool ok, const char *file, int line, const char *cond, const char *fmt, ...)
{
	check_count++;
	if (ok)
		return;
	check_failed++;
	fprintf(stderr, "%s:%d: failed: %s: ", file, line, cond);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* COND is evaluated first, then the message's arguments (they may read
 * what COND computed). */
#define CHECK(COND, ...)                                                       \
	do {                                                                   \
		bool check_ok_ = (COND);                                       \
		check_one(check_ok_, __FILE__, __LINE__, #COND, __VA_ARGS__); \
	} while (0)

static int check_done(void)
{
	printf("%d checks, %d failed\n", check_count, check_failed);
	return check_failed || !check_count;
}

#endif
