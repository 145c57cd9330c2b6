/* report.c - progress and the JSON summary (being written; counts only). */
#include "report.h"

void report_begin(const struct plan *p, const struct report_options *o) {}
void report_step_begin(const struct plan_step *s) {}
void report_step_end(const struct plan_step *s) {}
void report_read(int64_t bytes) {}
void report_written(int64_t bytes) {}
bool report_result(const struct plan_step *s, int k, const void *data) { return false; }
void report_end(int status) {}
