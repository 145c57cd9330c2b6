/* arena.c - a bump allocator: chunks in a list, freed all at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

void *arena_alloc(struct arena *a, size_t n)
{
	const size_t align = sizeof(max_align_t);
	n = (n + align - 1) / align * align;
	struct arena_chunk *c = a->head;
	if (!c || c->size - c->used < n) {
		size_t size = n > 65536 ? n : 65536;
		c = calloc(1, sizeof *c + size);
		if (!c) {
			fputs("h5ufunc: out of memory\n", stderr);
			abort();
		}
		c->size = size;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void arena_free(struct arena *a)
{
	if (!a)
		return;
	while (a->head) {
		struct arena_chunk *next = a->head->next;
		free(a->head);
		a->head = next;
	}
}
