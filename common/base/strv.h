/*
 * strv.h: NULL-terminated arrays of strings that the array owns (a
 * policy's patterns, a hook's argv, a client's roots).
 *
 * Returns (base/): nothing here can fail.
 */
#ifndef TC_STRV_H
#define TC_STRV_H

/* Frees each string of |v|, then |v|; a NULL |v| is a no-op. */
void	tc_strv_free(char **v);

#endif /* TC_STRV_H */
