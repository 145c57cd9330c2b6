/* arena.h - a bump allocator for nodes that live as long as a command.
 *
 * Recipe and plan nodes are allocated here and freed together by
 * arena_free().  Allocation failure aborts: h5ufunc cannot continue without
 * its plan, and a recipe never needs more than a few kilobytes.
 */
#ifndef H5UFUNC_ARENA_H
#define H5UFUNC_ARENA_H

#include <stddef.h>

struct arena {
	struct arena_chunk *head;
};

/* N zeroed bytes, aligned for any type, owned by the arena. */
void *arena_alloc(struct arena *a, size_t n);
/* A copy of S (or of its first N bytes, NUL-terminated) owned by the arena. */
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* Free everything; the arena is empty and usable again.  NULL-safe. */
void arena_free(struct arena *a);

#endif
