/* SPDX-License-Identifier: MIT */
/*
 * Values of settings (sizes, on/off, counts) and the warning line.  Like
 * the rest of the settings this runs inside ifunc resolvers: no libc, no
 * allocation, output by a raw write(2).
 *
 * Keywords and units are read without regard to case (never, NEVER, On,
 * 4kIB, 1gB), as people write them.
 */
#include "settings.h"
#include "sys.h"

const char *fm_op_name(enum fm_op op)
{
	return fm_op_key(op);
}

/* --- sizes -------------------------------------------------------------- */

/* K, KB, KiB (M, G alike, any case), B or nothing: the shift, or -1. */
static int unit_shift(const char *s, size_t len)
{
	size_t i = 1;
	int shift;

	if (!len)
		return 0;
	switch (fm_lower(s[0])) {
	case 'k':
		shift = 10;
		break;
	case 'm':
		shift = 20;
		break;
	case 'g':
		shift = 30;
		break;
	case 'b':
		return len == 1 ? 0 : -1;
	default:
		return -1;
	}
	if (i < len && fm_lower(s[i]) == 'i')
		i++;
	if (i < len && fm_lower(s[i]) == 'b')
		i++;
	return i == len ? shift : -1;
}

int fm_parse_size(const char *s, size_t len, size_t *out)
{
	size_t v = 0, i = 0;
	int shift;

	s = fm_trim(s, &len);
	if (fm_str_is(s, len, "never", 1)) {
		*out = SIZE_MAX;
		return 0;
	}
	if (!len || s[0] < '0' || s[0] > '9')
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		size_t digit = (size_t)(s[i] - '0');

		if (v > (SIZE_MAX - digit) / 10)
			return -1;
		v = v * 10 + digit;
	}
	shift = unit_shift(s + i, len - i);
	if (shift < 0 || (shift && v > (SIZE_MAX >> shift)))
		return -1;
	*out = v << shift;
	return 0;
}

/* --- on/off and counts -------------------------------------------------- */

int fm_parse_on_off(const char *s, size_t len)
{
	s = fm_trim(s, &len);
	if (fm_str_is(s, len, "on", 1))
		return FM_PROBE_ON;
	if (fm_str_is(s, len, "off", 1))
		return FM_PROBE_OFF;
	return -1;
}

int fm_parse_count(const char *s, size_t len, unsigned min, unsigned max,
		   unsigned *out)
{
	unsigned v = 0;

	s = fm_trim(s, &len);
	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > max)
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* --- warnings ----------------------------------------------------------- */

void fm_warn_begin(struct fm_warn_line *w)
{
	w->len = 0;
	w->cut = 0;
	for (const char *p = "fastmem: "; *p;)
		w->text[w->len++] = *p++;
}

/*
 * Bytes that are not printable ASCII (terminal control sequences, anything
 * an environment variable or a file may hold) and the backslash are shown
 * as \xNN, so a warning can neither drive the terminal nor hide its text.
 */
void fm_warn_add(struct fm_warn_line *w, const char *const *parts,
		 size_t nparts)
{
	static const char hex[] = "0123456789abcdef";
	const size_t room = sizeof(w->text) - 4; /* "...\n" */

	for (size_t i = 0; i < nparts && !w->cut; i++) {
		for (const char *p = parts[i]; p && *p; p++) {
			unsigned char c = (unsigned char)*p;
			int plain = c >= 0x20 && c < 0x7f && c != '\\';

			if (w->len + (plain ? 1 : 4) > room) {
				w->cut = 1;
				break;
			}
			if (plain) {
				w->text[w->len++] = (char)c;
				continue;
			}
			w->text[w->len++] = '\\';
			w->text[w->len++] = 'x';
			w->text[w->len++] = hex[c >> 4];
			w->text[w->len++] = hex[c & 15];
		}
	}
}

void fm_warn_end(struct fm_warn_line *w)
{
	if (w->cut) {
		w->text[w->len++] = '.';
		w->text[w->len++] = '.';
		w->text[w->len++] = '.';
	}
	w->text[w->len++] = '\n';
	(void)fm_write(2, w->text, w->len);
}

void fm_warn(const char *const *parts, size_t nparts)
{
	struct fm_warn_line w;

	fm_warn_begin(&w);
	fm_warn_add(&w, parts, nparts);
	fm_warn_end(&w);
}
