/*
 * fs_walk.h: the bounded directory walker shared by directory_tree,
 * search_files (fs_walk.c) and search_file_contents (fs_grep.c).  Private
 * to toolcell-fs's walking tools: nothing else includes it.
 *
 * A walk starts from a directory opened beneath its root (fs_walk_start())
 * and goes down by one-component names from each directory's fd with
 * O_DIRECTORY | O_NOFOLLOW, dropping what the deny rules refuse and what
 * the excludes name, in name order, within its depth, entry and time
 * bounds.  fs_walk.c's first comment has the details and the pattern rules.
 */
#ifndef TC_FS_WALK_H
#define TC_FS_WALK_H

#include <limits.h>
#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "protocol/tools.h"

struct tc_path;

/* Why a walk's answer is incomplete (bits). */
enum {
	CUT_CAP		= 1 << 0,	/* the tool's cap on results */
	CUT_DEPTH	= 1 << 1,	/* directories at maxDepth not opened */
	CUT_TIME	= 1 << 2,	/* the time budget ran out */
	CUT_DIRSIZE	= 1 << 3,	/* a directory had too many entries */
	CUT_UNREADABLE	= 1 << 4,	/* a directory could not be read */
	CUT_OUTPUT	= 1 << 5,	/* the answer reached its byte cap */
	CUT_LONGPATH	= 1 << 6,	/* a path longer than PATH_MAX */
};

/* What a visit tells the walker. */
enum { WALK_NEXT, WALK_SKIP, WALK_STOP };

struct walk;

/* One entry, as a visit sees it; valid during the visit only. */
struct walk_item {
	const char	*name;		/* raw bytes */
	const char	*rel;		/* relative to the start, raw bytes */
	unsigned char	 type;		/* DT_*, never DT_UNKNOWN if fstatat
					   could tell */
	int		 depth;		/* 1: directly in the start */
	int		 dirfd;		/* the directory holding it */
};

struct walk {
	const struct tc_policy *pol;
	size_t		 root;
	int		 max_depth;
	char		**excl;		/* normalised patterns */
	size_t		 nexcl;
	struct timespec	 deadline;

	/* Called for each entry kept, in walk order; a directory is entered
	 * after its visit returns WALK_NEXT, if within max_depth. */
	int		(*visit)(struct walk *, const struct walk_item *);
	/* Called after a visited directory: |how| is 0 (read whole), a CUT_*
	 * bit, or -errno when it could not be opened or checked. */
	void		(*leave)(struct walk *, const struct walk_item *, int how);
	void		*arg;

	struct tc_buf	 rel;
	int		 deny;		/* deny rules apply to reads */
	char		 rootpath[PATH_MAX];	/* the root's, read once */
	char		*dents;		/* getdents64() buffer */
	int		 noatime;	/* O_NOATIME still worth trying */
	int		 stopped;
	int		 nomem;		/* ran out of memory: stopped */
	unsigned	 cut;		/* CUT_* */
	size_t		 unreadable;
	size_t		 depth_limited;
	unsigned	 ticks;
};

/* A pattern that matches a whole path only (see SENTINEL_LEN). */
struct exact {
	char	*pat;		/* pattern "/" sentinel */
	char	*buf;		/* path "/" sentinel, rebuilt per match */
	size_t	 bufsz;
};

/*
 * Makes a user's pattern a tc_glob pattern relative to the start (a name
 * without '/' at any depth, a leading '/' anchoring it).  Returns a new
 * string, or NULL with the reason in |why| (|n| bytes).
 */
char	*fs_walk_pattern(const char *user, char *why, size_t n);

/* Prepares |x| to match |pat| against whole paths only.  Returns 0 or -1. */
int	fs_exact_init(struct exact *x, const char *pat);
void	fs_exact_release(struct exact *x);

/* Returns 1 if |x|'s pattern matches the whole of |rel|, else 0. */
int	fs_exact_match(struct exact *x, const char *rel);

/*
 * Opens the "path" argument of |call| as the start of a walk and prepares
 * |w| (its excludes and maxDepth included).  Returns the fd, or -1 with
 * |res| made a tool error; |p| is filled on success and the caller
 * releases it.  The caller calls fs_walk_release() in either case.
 */
int	fs_walk_start(const struct tc_call *call, struct walk *w,
	    struct tc_path *p, struct tc_result *res);

/*
 * Walks from |fd|, taking ownership of it, calling w->visit and w->leave.
 * Returns 0, a CUT_* bit when the start was cut short, or -errno when it
 * could not be read (-ENOMEM: out of memory).
 */
int	fs_walk_run(struct walk *w, int fd);
void	fs_walk_release(struct walk *w);

/* Sets the walk's deadline |ms| from now. */
void	fs_walk_budget(struct walk *w, long ms);

/* Returns |want| ms, or less to stay well within the call's deadline. */
long	fs_walk_budget_ms(const struct tc_call *call, long want);

/* Returns 1 once the budget is spent, marking the walk stopped. */
int	fs_walk_out_of_time(struct walk *w);

/*
 * Opens |name| in |dirfd| with |flags| | O_NOFOLLOW | O_NOCTTY |
 * O_CLOEXEC, and O_NOATIME while the kernel allows it.  Returns an fd or
 * -1 with errno set.
 */
int	fs_walk_open(struct walk *w, int dirfd, const char *name, int flags);

/* Appends |display| "/" |rel|, made valid UTF-8, to |b|.  Returns 0 or a
 * TC_E* code. */
int	fs_walk_full_path(struct tc_buf *b, const char *display,
	    const char *rel);

/* Appends |n| bytes for a line of text, shown as text.h shows it (tabs
 * kept, with |tabs|). */
int	fs_walk_text(struct tc_buf *t, const char *s, size_t n, int tabs);

/*
 * The end of a walk, as every walking tool says it.  fs_walk_failed():
 * when the walk ran out of memory (|nomem|, or |how| -ENOMEM) or could not
 * read its start (|how| < 0), makes |res| the error, naming |user| and, for
 * memory, what to lower; returns 1 then, else 0.  fs_walk_cut(): adds
 * "truncated" to |o| and, when cut, "truncated_by": the names of the CUT_*
 * bits in |cut|, the tool's cap called |cap_name|.
 */
int	fs_walk_failed(int how, int nomem, const char *user,
	    const char *lower, struct tc_result *res);
void	fs_walk_cut(cJSON *o, unsigned cut, const char *cap_name);

/* Adds |note| as a further text block of |res|. */
void	fs_walk_note(struct tc_result *res, const char *note);

/* Appends "; ..." for each bound other than the cap that cut |w| short. */
void	fs_walk_note_cuts(struct tc_buf *b, const struct walk *w,
	    long budget);

#endif /* TC_FS_WALK_H */
