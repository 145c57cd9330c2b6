/* journal_disk.c - the journal's files on disk; see journal_disk.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal_disk.h"
#include "tmpfiles.h"

/* ---- the checksum -------------------------------------------------------- */

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

void disk_hash_init(struct disk_hash *h, const char *token)
{
	uint64_t seed = 0;
	for (const char *c = token; *c; c++)
		seed = rotl(seed ^ (uint64_t)(unsigned char)*c, 7) * P1;
	h->v[0] = seed + P1 + P2;
	h->v[1] = seed + P2;
	h->v[2] = seed;
	h->v[3] = seed - P1;
	h->total = 0;
}

void disk_hash_add(struct disk_hash *h, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t i = 0;
	for (; i + 32 <= n; i += 32)
		for (int k = 0; k < 4; k++) {
			uint64_t w;
			memcpy(&w, p + i + 8 * k, 8);
			h->v[k] = rotl(h->v[k] + w * P2, 31) * P1;
		}
	for (; i < n; i++)
		h->v[0] = rotl(h->v[0] ^ (p[i] * P1), 11) * P2;
	h->total += n;
}

static uint64_t disk_hash_end(const struct disk_hash *h)
{
	uint64_t x = rotl(h->v[0], 1) + rotl(h->v[1], 7) + rotl(h->v[2], 12) + rotl(h->v[3], 18);
	x += h->total;
	x ^= x >> 33;
	x *= P2;
	x ^= x >> 29;
	x *= P1;
	return x ^ (x >> 32);
}

uint64_t disk_head_sum(const void *head, size_t n, const char *token, const struct disk_hash *h)
{
	struct disk_hash s;
	disk_hash_init(&s, token);
	if (h)
		disk_hash_add(&s, h->v, sizeof h->v);
	disk_hash_add(&s, head, n - sizeof(uint64_t));
	return disk_hash_end(&s);
}

int disk_read_master(int fd, struct disk_master *h)
{
	if (disk_read_all(fd, h, sizeof *h, 0) < 0 || memcmp(h->magic, DISK_MASTER_MAGIC, 8) ||
	    h->token[TMPFILES_TOKEN_LEN] || h->sum != disk_head_sum(h, sizeof *h, h->token, NULL))
		return -1;
	return 0;
}

/* ---- plain I/O ------------------------------------------------------------ */

int disk_write_all(int fd, const void *buf, size_t n, uint64_t at)
{
	for (size_t done = 0; done < n;) {
		ssize_t k = pwrite(fd, (const char *)buf + done, n - done, (off_t)(at + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	return 0;
}

int disk_read_all(int fd, void *buf, size_t n, uint64_t at)
{
	size_t done = 0;
	while (done < n) {
		ssize_t k = pread(fd, (char *)buf + done, n - done, (off_t)(at + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		done += (size_t)k;
	}
	memset((char *)buf + done, 0, n - done);
	return 0;
}

int disk_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

void *disk_room(void *array, int n, int *cap, size_t size)
{
	if (n < *cap)
		return array;
	*cap = *cap ? 2 * *cap : 64;
	array = realloc(array, size * (size_t)*cap);
	if (!array)
		abort();
	return array;
}

void disk_split_path(const char *path, char *dir, char *base)
{
	const char *slash = strrchr(path, '/');
	if (!slash) {
		snprintf(dir, PATH_MAX, ".");
		snprintf(base, PATH_MAX, "%s", path);
	} else {
		snprintf(dir, PATH_MAX, "%.*s", slash == path ? 1 : (int)(slash - path), path);
		snprintf(base, PATH_MAX, "%s", slash + 1);
	}
}

