/* print.h - results as text on stdout (SPEC 1).
 *
 * A scalar is one number; 1-D one value per line; 2-D one row per line,
 * values separated by one space; higher dimensions as consecutive 2-D blocks
 * separated by a blank line.  Floats in the shortest form that round-trips
 * in their own dtype, written as Python writes floats ("0.1", "1.0",
 * "1e-300", "1.5e+16", "nan", "inf", "-inf", "-0.0"); bools True/False;
 * complex as NumPy writes it without the parentheses ("1+2j", "-0j").  In
 * JSON a complex value is the pair [re, im].
 */
#ifndef H5UFUNC_PRINT_H
#define H5UFUNC_PRINT_H

#include <stdint.h>
#include <stdio.h>

#include "dtype.h"

/* Format one element of DT at P into BUF (at least 64 bytes). Returns BUF. */
char *print_format(enum dtype dt, const void *p, char *buf);

/* Print a C-ordered array of NDIM dimensions DIMS (NDIM 0: a scalar).
 * MASK (one byte per element, or NULL): where it is 0 the element is
 * masked and prints as "--", as numpy.ma prints it. */
void print_array(FILE *f, enum dtype dt, const void *data, int ndim, const int64_t *dims,
		 const uint8_t *mask);

/* The same as JSON: a number, or nested lists; nan/inf as the strings
 * "nan", "inf", "-inf" (JSON has no such numbers); bools true/false;
 * masked elements null. */
void print_json(FILE *f, enum dtype dt, const void *data, int ndim, const int64_t *dims,
		const uint8_t *mask);

/* Flush F (stdout) and say whether everything printed to it reached it:
 * NULL, or why the first write that failed did (a full disk, a closed
 * descriptor; static text), which F keeps, so a later call says it again. */
const char *print_flush(FILE *f);

#endif
