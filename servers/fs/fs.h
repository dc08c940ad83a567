/*
 * fs.h: toolcell-fs's handlers.  Each runs in a confined child, resolves
 * every path beneath an allowed root (path.h) and fills a tc_result.
 */
#ifndef TC_FS_H
#define TC_FS_H

#include <limits.h>
#include <sys/types.h>

#include "policy/path.h"
#include "base/text.h"
#include "protocol/tools.h"

struct tc_resources;
/* fs_profile.c: what the children of fs's tools may do. */
extern const struct tc_profile fs_read_profile;
extern const struct tc_profile fs_write_profile;

#define FS_READ_DEFAULT_BYTES	(64u << 10)
#define FS_READ_MAX_BYTES	(32u << 20)
#define FS_LIST_DEFAULT_ENTRIES	2000
#define FS_LIST_MAX_ENTRIES	10000
#define FS_LIST_SCAN_MAX	1000000	/* entries read before giving up */
#define FS_DENTS		32768	/* getdents64() buffer */
/*
 * What one read_text_file answer returns at most.  Its body goes twice,
 * in content[0].text and in structuredContent.content, since hosts pass on
 * one or the other (Claude Desktop the text, Claude Code and Codex the
 * structured content), and the whole message must stay under the 10 MiB
 * the official client (TypeScript SDK) accepts by default: a page is at
 * most FS_READ_PAGE_BYTES of the file and at most FS_READ_PAGE_JSON once
 * escaped as a JSON string, so two copies and the rest fit in 9 MiB and a
 * little.  A larger max_bytes gets a page, with next_offset to continue.
 */
#define FS_READ_PAGE_BYTES	(4u << 20)
#define FS_READ_PAGE_JSON	(4608u << 10)
#define FS_RESOURCE_MAX_BYTES	(8u << 20)	/* a file read as a resource */

/* The write tools (fs_write.c, fs_edit.c). */
#define FS_WRITE_MAX_BYTES	(32u << 20)	/* write_file's content */
#define FS_EDIT_MAX_BYTES	(10u << 20)	/* a file edit_file edits */
#define FS_DIFF_MAX_BYTES	(1u << 20)	/* of a diff sent back */
#define FS_EDIT_MAX_EDITS	1000

tc_tool_fn	fs_list_allowed_directories;
tc_tool_fn	fs_read_text_file;
tc_tool_fn	fs_list_directory;
tc_tool_fn	fs_get_file_info;
tc_tool_fn	fs_read_resource;	/* resources/read, not a tool */

/* resources/list and the rest: the roots, read through read_resource
 * (fs_resource.c). */
extern const struct tc_resources fs_resources;

/*
 * read_media_file, read_multiple_files and list_directory_with_sizes
 * (fs_read.c).  A media file is refused, not cut, past its cap: part of
 * an image is not an image.
 */
/* 7 MiB of file is about 9.3 MiB of base64: the official MCP client
 * (TypeScript SDK) closes the connection on a message over 10 MiB unless
 * its maxBufferSize is raised. */
#define FS_MEDIA_DEFAULT_BYTES	(7u << 20)
#define FS_MEDIA_MAX_BYTES	(32u << 20)	/* base64 of it fits the 64 MiB
						   result cap */
/*
 * Paths of one read_multiple_files call.  The server checks the deny and
 * consent rules on every path of a call, however many.  1,024 names of
 * ordinary length (the message limit allows 16 MiB of them) and
 * FS_MULTI_MAX_TOTAL of content fit, twice over, within the result cap;
 * an answer that would not (long names full of characters JSON escapes)
 * is refused whole, as a tool error, never cut.
 */
#define FS_MULTI_MAX_FILES	1024
#define FS_MULTI_DEFAULT_TOTAL	(256u << 10)
/* The files' text goes in content and in structuredContent, so a batch
 * is held to read_text_file's page: twice over it stays under the 10 MiB
 * message the official client accepts. */
#define FS_MULTI_MAX_TOTAL	FS_READ_PAGE_BYTES

tc_tool_fn	fs_read_media_file;
tc_tool_fn	fs_read_multiple_files;
tc_tool_fn	fs_list_directory_with_sizes;

/* What fs_tools.c lends fs_read.c. */
struct stat;
struct tc_path;

struct fs_lines {
	unsigned long long	 lines;		/* whole lines returned */
	unsigned long long	 total_lines;	/* when total_known */
	int			 total_known;
	int			 truncated;	/* cut by max_bytes */
	int			 more;		/* lines follow what was read */
	int			 cut_line;	/* one line longer than the cap */
};

/*
 * Returns the description of |rc| in toolcell-fs's words: tc_strerror()'s,
 * but "outside the allowed directories" for TC_EOUTSIDE, whose shared
 * wording names no directories.
 */
const char	*fs_strerror(int rc);

/*
 * Makes |res| the tool error for a path tc_path_map() refused with |rc|
 * and |d|: for one outside the roots in force, with what the client's
 * roots did to them (tc_policy_roots_note()).  Returns 0.
 */
int	fs_map_error(const struct tc_call *call, int rc,
	    const struct tc_diag *d, struct tc_result *res);

/*
 * Opens |user| for reading as read_text_file does: deny rules, no FIFO,
 * device or directory.  Returns an fd and fills |p| (the caller releases
 * it) and |st|; or -1 with |res| made a tool error naming |user|.
 */
int	fs_open_regular(const struct tc_call *call, const char *user,
	    struct tc_path *p, struct stat *st, struct tc_result *res);

/*
 * Reads all of |fd| (|size| bytes by fstat) into a new NUL-terminated
 * buffer in *|out|, at most |cap| bytes.  Returns 0, TC_ETOOBIG if there
 * were more (the file grew), TC_ENOMEM, or TC_ESYS with errno set.
 */
int	fs_read_all(int fd, size_t size, size_t cap, char **out,
	    size_t *len);

/*
 * Reading a directory: getdents64() straight into one buffer of FS_DENTS
 * bytes (opendir()'s own buffer, with its fstat() and fcntl(), costs more
 * than a large listing's own work).  fs_dents_next() returns the next
 * entry, "." and ".." passed over, or NULL at the end or when a read
 * failed (|err| is its errno then).
 */
struct fs_dents {
	int		 fd;
	char		*buf;
	ssize_t		 got, off;
	int		 err;
};

struct dirent64 *fs_dents_next(struct fs_dents *d);

/* A directory's entries, as the listings read them. */
struct fs_entry {
	union {
		size_t		 off;		/* in the names, while reading */
		char		*name;		/* invalid UTF-8 replaced */
	};
	int			 type;		/* DT_* */
	int			 has_size;	/* regular files, when asked */
	unsigned long long	 size;
};

struct fs_dir {
	struct tc_path		 path;
	struct fs_entry		*v;		/* in readdir order */
	size_t			 n;
	char			*names;		/* what v's names point into */
	int			 complete;	/* not cut at FS_LIST_SCAN_MAX */
};

/*
 * Reads the entries of directory |user|, those the deny rules refuse left
 * out unseen, with the sizes of regular files if |sizes|.  Returns 0 with
 * |out| filled (released with fs_dir_release()), or -1 with |res| made a
 * tool error naming |user|.
 */
int	fs_read_dir(const struct tc_call *call, const char *user, int sizes,
	    struct fs_dir *out, struct tc_result *res);
void	fs_dir_release(struct fs_dir *d);

/* "file", "directory", "symlink", "fifo"... for a file type from stat. */
const char *fs_mode_name(mode_t m);

/* "file", "directory", "symlink" or "other" for a dirent d_type. */
const char *fs_dtype_name(int t);

/*
 * Appends entries [|from|, |to|) of |v| to |b| as a JSON array of {name,
 * type} objects, with "size" where it is known; with |bare|, a regular
 * file without a size is its name alone.  Returns 0 or a TC_E* code.
 */
int	fs_entries_json(struct tc_buf *b, const struct fs_entry *v,
	    size_t from, size_t to, int bare);

/*
 * Returns |name| for a line of text, shown as text.h shows it, in |buf|
 * (of |len| bytes; FS_LINE_NAME_MAX holds any name whole): controls,
 * format characters and line separators escaped as \uXXXX, so that a file
 * named "x\n[FILE] .env" cannot pose as two entries, nor one named
 * "evil<U+202E>txt.exe" read as "evilexe.txt".  structuredContent keeps
 * the name.
 */
#define FS_LINE_NAME_MAX	(NAME_MAX * 6 + 1)	/* \u0001 for a byte */
const char *fs_line_name(const char *name, char *buf, size_t len);

/*
 * Reads whole lines from the start of |fd| into |out| (whose cap is at
 * least |max_bytes|, which is at least 1), as read_text_file without
 * head, tail, offset or limit.  Returns 0 or a TC_E* code (TC_ESYS with
 * errno set).
 */
int	fs_read_lines(int fd, size_t max_bytes, struct tc_buf *out,
	    struct fs_lines *g);

/* The walking tools (fs_walk.c). */
#define FS_TREE_DEFAULT_DEPTH		8
#define FS_TREE_MAX_DEPTH		64
#define FS_TREE_DEFAULT_ENTRIES		2000
#define FS_TREE_MAX_ENTRIES		10000
#define FS_SEARCH_DEFAULT_RESULTS	1000
#define FS_SEARCH_MAX_RESULTS		10000
#define FS_SEARCH_MAX_OFFSET		10000000
#define FS_GREP_DEFAULT_RESULTS		500
#define FS_GREP_MAX_RESULTS		5000
#define FS_GREP_MAX_CONTEXT		10
#define FS_GREP_DEFAULT_FILE_BYTES	(10u << 20)
#define FS_GREP_MAX_FILE_BYTES		(1u << 30)
#define FS_GREP_DEFAULT_BUDGET_MS	5000
#define FS_GREP_MAX_BUDGET_MS		60000
#define FS_WALK_PATTERN_MAX		1024
#define FS_WALK_MAX_EXCLUDES		64

tc_tool_fn	fs_directory_tree;
tc_tool_fn	fs_search_files;
tc_tool_fn	fs_search_file_contents;

/* The write tools, in fs_write.c (edit_file in fs_edit.c). */
tc_tool_fn	fs_write_file;
tc_tool_fn	fs_edit_file;
tc_tool_fn	fs_create_directory;
tc_tool_fn	fs_move_file;
tc_tool_fn	fs_delete_file;

#endif /* TC_FS_H */
