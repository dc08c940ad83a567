/* toolcell-fs: files and directories under the allowed roots. */
#include <limits.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/text.h"
#include "fs.h"
#include "fs_policy.h"
#include "serve/dirs.h"
#include "serve/server.h"

static const struct tc_arg no_args[] = {
	{ NULL }
};

static const struct tc_arg read_text_file_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "File to read: absolute within an allowed "
	      "directory, or relative to the first one." },
	{ .name = "head", .type = TC_ARG_INT, .min = 1, .max = INT_MAX,
	  .description = "Return only the first N lines." },
	{ .name = "tail", .type = TC_ARG_INT, .min = 1, .max = INT_MAX,
	  .description = "Return only the last N lines." },
	{ .name = "offset", .type = TC_ARG_INT, .min = 0, .max = LLONG_MAX,
	  .description = "Skip this many lines first (0-based); use the "
	      "next_offset of a truncated read to continue." },
	{ .name = "limit", .type = TC_ARG_INT, .min = 1, .max = INT_MAX,
	  .description = "Return at most this many lines." },
	{ .name = "max_bytes", .type = TC_ARG_INT,
	  .flags = TC_ARG_DEFAULT, .def = FS_READ_DEFAULT_BYTES,
	  .min = 1, .max = FS_READ_MAX_BYTES,
	  .description = "Return at most this many bytes (whole lines "
	      "where possible); one call returns at most 4 MiB, and "
	      "next_offset continues." },
	{ NULL }
};

static const struct tc_arg path_arg[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "Absolute within an allowed directory, or "
	      "relative to the first one." },
	{ NULL }
};

static const struct tc_arg list_directory_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "Directory to list: absolute within an allowed "
	      "directory, or relative to the first one." },
	{ .name = "offset", .type = TC_ARG_INT, .min = 0,
	  .max = FS_LIST_SCAN_MAX,
	  .description = "Skip this many entries (in name order); use the "
	      "next_offset of a truncated listing to continue." },
	{ .name = "limit", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .def = FS_LIST_DEFAULT_ENTRIES, .min = 1, .max = FS_LIST_MAX_ENTRIES,
	  .description = "Return at most this many entries." },
	{ NULL }
};

static const char list_allowed_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"directories\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"path\":{\"type\":\"string\"},"
    "\"access\":{\"type\":\"string\",\"enum\":[\"read-only\",\"read-write\"]}},"
    "\"required\":[\"path\",\"access\"]}},"
    "\"served\":{\"type\":\"string\",\"enum\":[\"policy\",\"narrowed\",\"none\"],"
    "\"description\":\"when the client gave roots: whose directories are served\"},"
    "\"client_roots\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"description\":\"the paths of the client's roots\"},"
    "\"note\":{\"type\":\"string\",\"description\":\"what the client's roots did to the directories served, and why\"}},"
    "\"required\":[\"directories\"]}";

static const char read_text_file_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"content\":{\"type\":\"string\"},"
    "\"size\":{\"type\":\"integer\",\"description\":\"file size in bytes\"},"
    "\"start_line\":{\"type\":\"integer\",\"description\":\"0-based index of the first line returned\"},"
    "\"lines\":{\"type\":\"integer\",\"description\":\"lines returned\"},"
    "\"total_lines\":{\"type\":\"integer\",\"description\":\"lines in the file, when known\"},"
    "\"truncated\":{\"type\":\"boolean\",\"description\":\"the text stops before the end of the file (by head, limit or max_bytes), or max_bytes cut lines off the start of a tail\"},"
    "\"next_offset\":{\"type\":\"integer\",\"description\":\"given exactly when a read that is not a tail is truncated: the offset that continues it\"},"
    "\"invalid_utf8\":{\"type\":\"boolean\",\"description\":\"bytes that are not UTF-8 were replaced by U+FFFD\"}},"
    "\"required\":[\"path\",\"content\",\"size\",\"lines\",\"truncated\"]}";

static const char list_directory_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"entries\":{\"type\":\"array\",\"description\":\"in name order: "
    "a regular file as its name alone, anything else as {name, type}\","
    "\"items\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"object\","
    "\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"type\":{\"type\":\"string\",\"enum\":[\"directory\",\"symlink\",\"other\"]}},"
    "\"required\":[\"name\",\"type\"]}]}},"
    "\"total\":{\"type\":\"integer\",\"description\":\"entries in the directory, less those the policy denies\"},"
    "\"truncated\":{\"type\":\"boolean\"},"
    "\"next_offset\":{\"type\":\"integer\"}},"
    "\"required\":[\"path\",\"entries\",\"total\",\"truncated\"]}";

static const char get_file_info_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"type\":{\"type\":\"string\",\"enum\":[\"file\",\"directory\",\"symlink\",\"fifo\",\"socket\",\"char-device\",\"block-device\",\"other\"]},"
    "\"size\":{\"type\":\"integer\"},"
    "\"permissions\":{\"type\":\"string\",\"description\":\"octal mode bits, e.g. 0644\"},"
    "\"uid\":{\"type\":\"integer\"},\"gid\":{\"type\":\"integer\"},"
    "\"links\":{\"type\":\"integer\"},"
    "\"modified\":{\"type\":\"string\"},\"accessed\":{\"type\":\"string\"},"
    "\"changed\":{\"type\":\"string\"},\"created\":{\"type\":\"string\"}},"
    "\"required\":[\"path\",\"type\",\"size\",\"permissions\",\"uid\",\"gid\",\"links\",\"modified\",\"accessed\",\"changed\"]}";

static const char read_resource_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"mimeType\":{\"type\":\"string\"},"
    "\"encoding\":{\"type\":\"string\",\"enum\":[\"text\",\"base64\"]},"
    "\"size\":{\"type\":\"integer\"}},"
    "\"required\":[\"mimeType\",\"encoding\"]}";
/* --- read_media_file, read_multiple_files, list_directory_with_sizes
 * (fs_read.c) --- */

static const struct tc_arg read_media_file_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "Image, audio or other file to read: absolute "
	      "within an allowed directory, or relative to the first one." },
	{ .name = "max_bytes", .type = TC_ARG_INT,
	  .flags = TC_ARG_DEFAULT, .def = FS_MEDIA_DEFAULT_BYTES,
	  .min = 1, .max = FS_MEDIA_MAX_BYTES,
	  .description = "Refuse a file larger than this many bytes "
	      "(default 7 MiB, whose base64 fits the 10 MiB messages the "
	      "official client accepts by default)." },
	{ NULL }
};

static const struct tc_arg read_multiple_files_args[] = {
	{ .name = "paths", .type = TC_ARG_STRING_ARRAY,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = FS_MULTI_MAX_FILES, .item_max_len = PATH_MAX,
	  .description = "Files to read (1 to 1024): each absolute within an "
	      "allowed directory, or relative to the first one." },
	{ .name = "max_bytes", .type = TC_ARG_INT,
	  .flags = TC_ARG_DEFAULT, .def = FS_READ_DEFAULT_BYTES,
	  .min = 1, .max = FS_MULTI_MAX_TOTAL,
	  .description = "Return at most this many bytes of each file "
	      "(whole lines where possible)." },
	{ .name = "max_total_bytes", .type = TC_ARG_INT,
	  .flags = TC_ARG_DEFAULT, .def = FS_MULTI_DEFAULT_TOTAL,
	  .min = 1, .max = FS_MULTI_MAX_TOTAL,
	  .description = "Return at most this many bytes of all the files "
	      "together; files past it are truncated." },
	{ NULL }
};

static const char *const sort_by_enum[] = { "name", "size", NULL };

static const struct tc_arg list_directory_with_sizes_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "Directory to list: absolute within an allowed "
	      "directory, or relative to the first one." },
	{ .name = "sortBy", .type = TC_ARG_STRING, .enums = sort_by_enum,
	  .description = "Order: \"name\" (default) or \"size\" (largest "
	      "files first, then entries without a size by name)." },
	{ .name = "offset", .type = TC_ARG_INT, .min = 0,
	  .max = FS_LIST_SCAN_MAX,
	  .description = "Skip this many entries (in the chosen order); use "
	      "the next_offset of a truncated listing to continue." },
	{ .name = "limit", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .def = FS_LIST_DEFAULT_ENTRIES, .min = 1, .max = FS_LIST_MAX_ENTRIES,
	  .description = "Return at most this many entries." },
	{ NULL }
};

static const char read_multiple_files_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"files\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"as given\"},"
    "\"resolved\":{\"type\":\"string\"},"
    "\"content\":{\"type\":\"string\"},"
    "\"error\":{\"type\":\"string\"},"
    "\"size\":{\"type\":\"integer\",\"description\":\"file size in bytes\"},"
    "\"lines\":{\"type\":\"integer\",\"description\":\"lines returned\"},"
    "\"truncated\":{\"type\":\"boolean\"},"
    "\"next_offset\":{\"type\":\"integer\",\"description\":\"read_text_file offset that continues it\"},"
    "\"invalid_utf8\":{\"type\":\"boolean\"}},"
    "\"required\":[\"path\",\"truncated\"]}},"
    "\"truncated\":{\"type\":\"boolean\"},"
    "\"bytes\":{\"type\":\"integer\",\"description\":\"bytes of file content returned\"},"
    "\"errors\":{\"type\":\"integer\",\"description\":\"files that could not be read\"}},"
    "\"required\":[\"files\",\"truncated\",\"bytes\",\"errors\"]}";

static const char list_directory_with_sizes_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"sortBy\":{\"type\":\"string\",\"enum\":[\"name\",\"size\"]},"
    "\"entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"type\":{\"type\":\"string\",\"enum\":[\"file\",\"directory\",\"symlink\",\"other\"]},"
    "\"size\":{\"type\":\"integer\",\"description\":\"regular files only\"}},"
    "\"required\":[\"name\",\"type\"]}},"
    "\"total\":{\"type\":\"integer\",\"description\":\"entries in the directory, less those the policy denies\"},"
    "\"files\":{\"type\":\"integer\"},"
    "\"directories\":{\"type\":\"integer\"},"
    "\"others\":{\"type\":\"integer\",\"description\":\"symbolic links and special files\"},"
    "\"total_size\":{\"type\":\"integer\",\"description\":\"bytes in the regular files of the whole directory, not only this page\"},"
    "\"truncated\":{\"type\":\"boolean\"},"
    "\"next_offset\":{\"type\":\"integer\"}},"
    "\"required\":[\"path\",\"sortBy\",\"entries\",\"total\",\"files\",\"directories\",\"others\",\"total_size\",\"truncated\"]}";

/* --- directory_tree, search_files, search_file_contents (fs_walk.c) --- */

static const struct tc_arg directory_tree_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "Directory to show: absolute within an allowed "
	      "directory, or relative to the first one." },
	{ .name = "excludePatterns", .type = TC_ARG_STRING_ARRAY,
	  .max_len = FS_WALK_MAX_EXCLUDES,
	  .item_max_len = FS_WALK_PATTERN_MAX,
	  .description = "Globs of entries to leave out (and not descend "
	      "into), on the path relative to path; one without '/' "
	      "matches a name at any depth (\"node_modules\", \"*.log\")." },
	{ .name = "maxDepth", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .def = FS_TREE_DEFAULT_DEPTH, .min = 1, .max = FS_TREE_MAX_DEPTH,
	  .description = "Levels to show; directories at the last level "
	      "are not opened." },
	{ .name = "maxEntries", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .def = FS_TREE_DEFAULT_ENTRIES, .min = 1,
	  .max = FS_TREE_MAX_ENTRIES,
	  .description = "Stop after this many entries." },
	{ NULL }
};

static const struct tc_arg search_files_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "Directory to search: absolute within an allowed "
	      "directory, or relative to the first one." },
	{ .name = "pattern", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY,
	  .max_len = FS_WALK_PATTERN_MAX,
	  .description = "Glob matched against each entry's path relative "
	      "to path: without '/' it matches the name at any depth "
	      "(\"*.ts\" finds nested files too); with '/' the whole "
	      "relative path (\"src/**/*.c\"); a leading '/' anchors it "
	      "at the top (\"/*.ts\")." },
	{ .name = "excludePatterns", .type = TC_ARG_STRING_ARRAY,
	  .max_len = FS_WALK_MAX_EXCLUDES,
	  .item_max_len = FS_WALK_PATTERN_MAX,
	  .description = "Globs of entries to leave out and not descend "
	      "into, with the same rules as pattern." },
	{ .name = "maxResults", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .def = FS_SEARCH_DEFAULT_RESULTS, .min = 1,
	  .max = FS_SEARCH_MAX_RESULTS,
	  .description = "Return at most this many paths." },
	{ .name = "offset", .type = TC_ARG_INT, .min = 0,
	  .max = FS_SEARCH_MAX_OFFSET,
	  .description = "Skip this many matches first; use the "
	      "next_offset of a truncated search to continue." },
	{ .name = "maxDepth", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .def = FS_TREE_MAX_DEPTH, .min = 1, .max = FS_TREE_MAX_DEPTH,
	  .description = "Levels to search below path." },
	{ NULL }
};

static const struct tc_arg search_file_contents_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "Directory to search: absolute within an allowed "
	      "directory, or relative to the first one." },
	{ .name = "pattern", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY,
	  .max_len = FS_WALK_PATTERN_MAX,
	  .description = "Text to find in each line: literal unless regex "
	      "is true." },
	{ .name = "regex", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0,
	  .description = "pattern is a regular expression in PCRE2 "
	      "(Perl-compatible) syntax, matched on each line; a line it "
	      "takes too long on is skipped and counted in slow_lines." },
	{ .name = "ignoreCase", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0,
	  .description = "Match letters in either case (ASCII letters "
	      "only for a literal pattern)." },
	{ .name = "include", .type = TC_ARG_STRING, .flags = TC_ARG_NONEMPTY,
	  .max_len = FS_WALK_PATTERN_MAX,
	  .description = "Search only files matching this glob, with the "
	      "rules of search_files' pattern (\"*.c\")." },
	{ .name = "excludePatterns", .type = TC_ARG_STRING_ARRAY,
	  .max_len = FS_WALK_MAX_EXCLUDES,
	  .item_max_len = FS_WALK_PATTERN_MAX,
	  .description = "Globs of files and directories to skip." },
	{ .name = "contextLines", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .def = 0, .min = 0, .max = FS_GREP_MAX_CONTEXT,
	  .description = "Lines of context before and after each match." },
	{ .name = "maxResults", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .def = FS_GREP_DEFAULT_RESULTS, .min = 1, .max = FS_GREP_MAX_RESULTS,
	  .description = "Return at most this many matching lines." },
	{ .name = "offset", .type = TC_ARG_INT, .min = 0,
	  .max = FS_SEARCH_MAX_OFFSET,
	  .description = "Skip this many matching lines first; use the "
	      "next_offset of a truncated search to continue." },
	{ .name = "maxFileBytes", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .def = FS_GREP_DEFAULT_FILE_BYTES, .min = 1,
	  .max = FS_GREP_MAX_FILE_BYTES,
	  .description = "Skip files larger than this." },
	{ .name = "timeBudget", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .def = FS_GREP_DEFAULT_BUDGET_MS, .min = 100,
	  .max = FS_GREP_MAX_BUDGET_MS,
	  .description = "Milliseconds to search before answering with "
	      "what was found (kept within the call's deadline)." },
	{ .name = "maxDepth", .type = TC_ARG_INT, .flags = TC_ARG_DEFAULT,
	  .def = FS_TREE_MAX_DEPTH, .min = 1, .max = FS_TREE_MAX_DEPTH,
	  .description = "Levels to search below path." },
	{ NULL }
};

#define WALK_CUT_SCHEMA \
    "\"truncated\":{\"type\":\"boolean\"}," \
    "\"truncated_by\":{\"type\":\"array\",\"items\":{\"type\":\"string\"," \
    "\"enum\":[\"maxEntries\",\"maxResults\",\"maxDepth\",\"timeBudget\"," \
    "\"directorySize\",\"unreadable\",\"outputSize\",\"pathLength\"]}}"

static const char directory_tree_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"tree\":{\"type\":\"array\",\"description\":\"entries in name "
    "order: a regular file as its name alone, anything else as {name, "
    "type}, a directory with its children in the same form\","
    "\"items\":{\"anyOf\":[{\"type\":\"string\"},"
    "{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\"},"
    "\"type\":{\"type\":\"string\",\"enum\":[\"directory\",\"symlink\",\"other\"]},"
    "\"children\":{\"type\":\"array\",\"items\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"object\"}]}},"
    "\"truncated\":{\"type\":\"boolean\",\"description\":\"the children shown are not all\"},"
    "\"error\":{\"type\":\"string\"}},"
    "\"required\":[\"name\",\"type\"]}]}},"
    "\"entries\":{\"type\":\"integer\"},"
    WALK_CUT_SCHEMA "},"
    "\"required\":[\"path\",\"tree\",\"entries\",\"truncated\"]}";

static const char search_files_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"matches\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    WALK_CUT_SCHEMA ","
    "\"next_offset\":{\"type\":\"integer\"}},"
    "\"required\":[\"path\",\"matches\",\"truncated\"]}";

static const char search_file_contents_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"matches\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"file\":{\"type\":\"string\"},"
    "\"line\":{\"type\":\"integer\"},"
    "\"column\":{\"type\":\"integer\",\"description\":\"1-based byte offset of the match\"},"
    "\"text\":{\"type\":\"string\"},"
    "\"cut\":{\"type\":\"boolean\",\"description\":\"only part of the line is shown\"},"
    "\"before\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
    "\"after\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}}},"
    "\"required\":[\"file\",\"line\",\"column\",\"text\"]}},"
    WALK_CUT_SCHEMA ","
    "\"next_offset\":{\"type\":\"integer\"},"
    "\"files_scanned\":{\"type\":\"integer\"},"
    "\"files_matched\":{\"type\":\"integer\"},"
    "\"files_skipped\":{\"type\":\"object\",\"properties\":{"
    "\"binary\":{\"type\":\"integer\"},\"too_large\":{\"type\":\"integer\"},"
    "\"unreadable\":{\"type\":\"integer\"},\"symlinks\":{\"type\":\"integer\"},"
    "\"special\":{\"type\":\"integer\"}}},"
    "\"long_lines\":{\"type\":\"integer\"},"
    "\"slow_lines\":{\"type\":\"integer\"}},"
    "\"required\":[\"path\",\"matches\",\"truncated\",\"files_scanned\",\"files_matched\",\"files_skipped\"]}";

/* --- Write tools (fs_write.c, fs_edit.c), only listed with a writable root */

static const char *const write_encodings[] = { "utf8", "base64", NULL };

static const struct tc_arg write_file_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "File to create or replace, under a read-write "
	      "directory: absolute within an allowed directory, or relative "
	      "to the first one." },
	{ .name = "content", .type = TC_ARG_STRING, .flags = TC_ARG_REQUIRED,
	  .max_len = FS_WRITE_MAX_BYTES,
	  .description = "The file's new content, whole." },
	{ .name = "encoding", .type = TC_ARG_STRING, .enums = write_encodings,
	  .description = "How content is given: utf8 (the default) or "
	      "base64, for bytes that are not text." },
	{ NULL }
};

static const struct tc_arg edit_item_args[] = {
	{ .name = "oldText", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY,
	  .max_len = FS_EDIT_MAX_BYTES,
	  .description = "Text to find, exactly (blanks and line endings "
	      "included); it must occur once unless replaceAll is set." },
	{ .name = "newText", .type = TC_ARG_STRING, .flags = TC_ARG_REQUIRED,
	  .max_len = FS_EDIT_MAX_BYTES,
	  .description = "Text to put in its place." },
	{ .name = "replaceAll", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0,
	  .description = "Replace every occurrence instead of requiring "
	      "exactly one." },
	{ NULL }
};

static const struct tc_arg edit_file_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "File to edit, under a read-write directory: "
	      "absolute within an allowed directory, or relative to the "
	      "first one." },
	{ .name = "edits", .type = TC_ARG_OBJECT_ARRAY,
	  .flags = TC_ARG_REQUIRED, .max_len = FS_EDIT_MAX_EDITS,
	  .items = edit_item_args,
	  .description = "Edits applied in order, each to the result of the "
	      "one before; if one fails, nothing is written." },
	{ .name = "dryRun", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0,
	  .description = "Only return the diff; write nothing." },
	{ NULL }
};

static const struct tc_arg move_file_args[] = {
	{ .name = "source", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "File or directory to move or rename, under a "
	      "read-write directory." },
	{ .name = "destination", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "Its new path, under a read-write directory." },
	{ .name = "overwrite", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0,
	  .description = "Replace what is at destination (never a directory "
	      "that is not empty); refused by default." },
	{ NULL }
};

static const struct tc_arg delete_file_args[] = {
	{ .name = "path", .type = TC_ARG_STRING,
	  .flags = TC_ARG_REQUIRED | TC_ARG_NONEMPTY | TC_ARG_PATH,
	  .max_len = PATH_MAX,
	  .description = "File or symbolic link (the link itself) to delete, "
	      "under a read-write directory." },
	{ .name = "directory", .type = TC_ARG_BOOL, .flags = TC_ARG_DEFAULT,
	  .def = 0,
	  .description = "Also delete path if it is an empty directory; a "
	      "directory that is not empty is never deleted." },
	{ NULL }
};

static const char write_file_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"size\":{\"type\":\"integer\",\"description\":\"bytes written\"},"
    "\"created\":{\"type\":\"boolean\",\"description\":\"false when an existing file was replaced\"},"
    "\"encoding\":{\"type\":\"string\",\"enum\":[\"utf8\",\"base64\"]}},"
    "\"required\":[\"path\",\"size\",\"created\",\"encoding\"]}";

static const char edit_file_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"dryRun\":{\"type\":\"boolean\"},"
    "\"changed\":{\"type\":\"boolean\"},"
    "\"replacements\":{\"type\":\"integer\"},"
    "\"edits\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"replacements\":{\"type\":\"integer\"}},"
    "\"required\":[\"replacements\"]}},"
    "\"size\":{\"type\":\"integer\",\"description\":\"bytes after the edits\"},"
    "\"diff\":{\"type\":\"string\",\"description\":\"unified diff, 3 lines of context\"},"
    "\"diff_truncated\":{\"type\":\"boolean\"}},"
    "\"required\":[\"path\",\"dryRun\",\"changed\",\"replacements\",\"edits\",\"size\",\"diff\"]}";

static const char create_directory_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"created\":{\"type\":\"boolean\",\"description\":\"false when it existed already\"}},"
    "\"required\":[\"path\",\"created\"]}";

static const char move_file_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"source\":{\"type\":\"string\"},"
    "\"destination\":{\"type\":\"string\"},"
    "\"type\":{\"type\":\"string\"},"
    "\"replaced\":{\"type\":\"boolean\"}},"
    "\"required\":[\"source\",\"destination\",\"type\",\"replaced\"]}";

static const char delete_file_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"type\":{\"type\":\"string\",\"enum\":[\"file\",\"symlink\",\"directory\"]}},"
    "\"required\":[\"path\",\"type\"]}";

/* --- End of the write tools' tables. --- */

#define RO	(TC_TOOL_READONLY | TC_TOOL_IDEMPOTENT)

static const struct tc_tool fs_tools[] = {
	{ .name = "list_allowed_directories",
	  .title = "List allowed directories",
	  .description = "List the directories this server may access and "
	      "whether each is read-only or read-write.",
	  .args = no_args, .output_schema = list_allowed_out,
	  .fn = fs_list_allowed_directories, .profile = &fs_read_profile,
	  .flags = RO },
	{ .name = "read_text_file", .title = "Read text file",
	  .description = "Read a text file as UTF-8. Use head or tail for the "
	      "first or last N lines, or offset and limit for a range of "
	      "lines; at most max_bytes (default 64 KiB) are returned, and a "
	      "truncated read says where to continue. Bytes that are not "
	      "UTF-8 are replaced by U+FFFD.",
	  .args = read_text_file_args, .output_schema = read_text_file_out,
	  .fn = fs_read_text_file, .profile = &fs_read_profile, .flags = RO },
	{ .name = "read_file", .title = "Read file (deprecated)",
	  .description = "Deprecated: use read_text_file, which this is an "
	      "alias of.",
	  .args = read_text_file_args, .output_schema = read_text_file_out,
	  .fn = fs_read_text_file, .profile = &fs_read_profile,
	  .flags = RO | TC_TOOL_ALIAS },
	{ .name = "list_directory", .title = "List directory",
	  .description = "List a directory's entries in name order, each "
	      "marked [DIR], [FILE], [LINK] or [OTHER] (in structured "
	      "content, a regular file is its name alone, anything else "
	      "{name, type}); at most limit (default 2000) entries, with "
	      "offset to page through larger ones. Entries the policy denies "
	      "are left out and not counted.",
	  .args = list_directory_args, .output_schema = list_directory_out,
	  .fn = fs_list_directory, .profile = &fs_read_profile, .flags = RO },
	{ .name = "get_file_info", .title = "Get file info",
	  .description = "Get a file's or directory's type, size, "
	      "permissions, owner and times, without reading its contents.",
	  .args = path_arg, .output_schema = get_file_info_out,
	  .fn = fs_get_file_info, .profile = &fs_read_profile, .flags = RO },
	/* fs_read.c */
	{ .name = "read_media_file", .title = "Read media file",
	  .description = "Read an image or audio file and return it as an "
	      "image or audio content item (base64, with its MIME type, "
	      "checked against the file's first bytes); any other file comes "
	      "as an embedded resource blob. Files larger than max_bytes "
	      "(default 7 MiB, at most 32 MiB) are refused.",
	  .args = read_media_file_args, .output_schema = NULL,
	  .fn = fs_read_media_file, .profile = &fs_read_profile, .flags = RO },
	{ .name = "read_multiple_files", .title = "Read multiple files",
	  .description = "Read up to 1024 text files at once, each as "
	      "read_text_file would (at most max_bytes of each, default 64 "
	      "KiB, and max_total_bytes of all, default 256 KiB). A file that "
	      "cannot be read is reported in its place and does not stop the "
	      "others; a truncated file says the offset to continue it with "
	      "read_text_file.",
	  .args = read_multiple_files_args,
	  .output_schema = read_multiple_files_out,
	  .fn = fs_read_multiple_files, .profile = &fs_read_profile,
	  .flags = RO },
	{ .name = "list_directory_with_sizes",
	  .title = "List directory with sizes",
	  .description = "List a directory's entries with the size of each "
	      "file, sorted by name or by size, with totals for the whole "
	      "directory; at most limit (default 2000) entries, with offset "
	      "to page through larger ones. Entries the policy denies are "
	      "left out and not counted.",
	  .args = list_directory_with_sizes_args,
	  .output_schema = list_directory_with_sizes_out,
	  .fn = fs_list_directory_with_sizes, .profile = &fs_read_profile,
	  .flags = RO },
	/* --- the walking tools (fs_walk.c) --- */
	{ .name = "directory_tree", .title = "Directory tree",
	  .description = "Show a directory's tree in name order: as text, an "
	      "outline (two spaces a level, a '/' after directory names); as "
	      "structured content, JSON: a regular file as its name, anything "
	      "else as {name, type}, a directory with children. Bounded: "
	      "maxDepth levels (default 8) and maxEntries entries (default "
	      "2000); a directory cut short has a bracketed line under it in "
	      "the outline and \"truncated\": true in the JSON. Symlinks are "
	      "shown, never followed; entries the policy denies are left out.",
	  .args = directory_tree_args, .output_schema = directory_tree_out,
	  .fn = fs_directory_tree, .profile = &fs_read_profile, .flags = RO },
	{ .name = "search_files", .title = "Search files by name",
	  .description = "Find files and directories whose path matches a "
	      "glob: \"*.ts\" at any depth, \"src/*.ts\" directly in src, "
	      "\"**\" for any number of levels. Returns full paths, one per "
	      "line, in name order; at most maxResults (default 1000), with "
	      "offset to page. Symlinks are not followed; denied entries are "
	      "left out.",
	  .args = search_files_args, .output_schema = search_files_out,
	  .fn = fs_search_files, .profile = &fs_read_profile, .flags = RO },
	{ .name = "search_file_contents", .title = "Search file contents",
	  .description = "Find lines containing a text (or, with regex=true, "
	      "a PCRE2 Perl-compatible regex; a line it takes too long on is "
	      "skipped and counted in slow_lines) in the files under a "
	      "directory, like grep -rn: \"path:line:text\", with "
	      "contextLines around each match. Binary files, files over "
	      "maxFileBytes, symlinks and special files are skipped; at most "
	      "maxResults matches (default 500) within timeBudget ms (default "
	      "5000), with offset to continue.",
	  .args = search_file_contents_args,
	  .output_schema = search_file_contents_out,
	  .fn = fs_search_file_contents, .profile = &fs_read_profile,
	  .flags = RO },
	/* The write tools (fs_write.c, fs_edit.c), offered only while a
	 * directory is writable (fs_offered()). */
	{ .name = "write_file", .title = "Write file",
	  .description = "Create a file, or replace one whole, under a "
	      "read-write directory. The content is written to a new file "
	      "beside it and renamed over it, so the file is never seen half "
	      "written. A symbolic link, or a file with more than one hard "
	      "link, is refused, never followed.",
	  .args = write_file_args, .output_schema = write_file_out,
	  .fn = fs_write_file, .profile = &fs_write_profile,
	  .flags = TC_TOOL_DESTRUCTIVE | TC_TOOL_IDEMPOTENT },
	{ .name = "edit_file", .title = "Edit file",
	  .description = "Replace exact text in a file: each edit's oldText "
	      "must occur exactly once (or set replaceAll). Edits apply in "
	      "order; if one fails nothing is written, and the error shows "
	      "the closest text and any difference in blanks or line endings. "
	      "Returns a unified diff; dryRun returns it without writing.",
	  .args = edit_file_args, .output_schema = edit_file_out,
	  .fn = fs_edit_file, .profile = &fs_write_profile,
	  .flags = TC_TOOL_DESTRUCTIVE },
	{ .name = "create_directory", .title = "Create directory",
	  .description = "Create a directory and any missing parents under a "
	      "read-write directory; succeeds if it already exists.",
	  .args = path_arg, .output_schema = create_directory_out,
	  .fn = fs_create_directory, .profile = &fs_write_profile,
	  .flags = TC_TOOL_IDEMPOTENT },
	{ .name = "move_file", .title = "Move file",
	  .description = "Move or rename a file or directory within the "
	      "read-write directories. An existing destination is refused "
	      "unless overwrite is set.",
	  .args = move_file_args, .output_schema = move_file_out,
	  .fn = fs_move_file, .profile = &fs_write_profile,
	  .flags = TC_TOOL_DESTRUCTIVE },
	{ .name = "delete_file", .title = "Delete file",
	  .description = "Delete a file or a symbolic link (the link, not "
	      "what it points to) under a read-write directory; with "
	      "directory: true also an empty directory. Never a directory "
	      "that is not empty.",
	  .args = delete_file_args, .output_schema = delete_file_out,
	  .fn = fs_delete_file, .profile = &fs_write_profile,
	  .flags = TC_TOOL_DESTRUCTIVE },
	/* Not a tool: what resources/read runs for a file:// URI (only
	 * "path" is given; a directory is listed through list_directory,
	 * hence its arguments).  The policy switches resources off with
	 * "tool read_resource off". */
	{ .name = "read_resource", .title = "Read resource",
	  .description = "Read a file whole (as text if it is UTF-8, else "
	      "base64) or list a directory, for resources/read.",
	  .args = list_directory_args, .output_schema = read_resource_out,
	  .fn = fs_read_resource, .profile = &fs_read_profile,
	  .flags = RO | TC_TOOL_RESOURCE },
};

/* --- The server --- */

/*
 * Appends what the model is told: the directories it may reach, each with
 * its access, and where a relative path starts.
 */
static int
fs_instructions(const struct tc_server *srv, const struct tc_policy *pol,
    struct tc_buf *b)
{
	const struct tc_root *r;
	size_t i;

	tc_buf_printf(b, "%s gives access to files and directories only "
	    "under: ", srv->name);
	for (i = 0; i < pol->nroots; i++) {
		r = &pol->roots[i];
		tc_buf_printf(b, "%s%s (%s)", i ? "; " : "", r->path,
		    (r->flags & TC_ROOT_WRITE) ? "read-write" : "read-only");
	}
	return tc_buf_printf(b, ". Anything else is refused; relative paths "
	    "are taken from %s.", pol->nroots > 0 ? pol->roots[0].path : "");
}

/* Returns 1 if a directory of the policy itself, before any narrowing by
 * the client's roots, is writable. */
static int
policy_writable(const struct tc_policy *pol)
{
	size_t i;

	if (pol->ceiling == NULL)
		return tc_policy_writable(pol);
	for (i = 0; i < pol->nceiling; i++)
		if (pol->ceiling[i].flags & TC_ROOT_WRITE)
			return 1;
	return 0;
}

/*
 * A tool that changes files (any that is not read-only) is offered only
 * while a directory is writable; a refused call says what would make one
 * so.
 */
static int
fs_offered(const struct tc_policy *pol, const struct tc_tool *t, char *why,
    size_t len)
{
	if ((t->flags & TC_TOOL_READONLY) || tc_policy_writable(pol))
		return 1;
	if (why == NULL)
		return 0;
	if (policy_writable(pol))
		tc_text_fmt(why, len, "cannot run now: no directory is "
		    "writable (the client's roots leave %s of the policy)",
		    pol->nroots == 0 ? "no directory" : "only read-only "
		    "directories");
	else
		tc_text_fmt(why, len, "is not offered: no directory is writable "
		    "(start the server with --write DIR, or give its policy an "
		    "'allow write DIR' rule)");
	return 0;
}

/* The policy's warnings, with the tools that change files named. */
static void
fs_warn(const struct tc_policy *pol, tc_policy_report_fn *report, void *ctx)
{
	const char *writers[TC_NITEMS(fs_tools) + 1];
	size_t k, n = 0;

	for (k = 0; k < TC_NITEMS(fs_tools); k++)
		if (!(fs_tools[k].flags & TC_TOOL_READONLY) &&
		    tc_tool_alias_of(&fs_tools[k]) == NULL)
			writers[n++] = fs_tools[k].name;
	writers[n] = NULL;
	tc_policy_warn(pol, writers, report, ctx);
}

int
main(int argc, char *argv[])
{
	static const struct tc_server fs = {
		.name = "toolcell-fs",
		.title = "toolcell files",
		.version = TC_VERSION,
		.summary = "serve files under the allowed directories over MCP",
		.tools = fs_tools,
		.ntools = TC_NITEMS(fs_tools),
		.policy_section = &fs_policy_section,
		/* DIR... and --write, "no directories to serve". */
		TC_DIRS_CMDLINE,
		.instructions = fs_instructions,
		.offered = fs_offered,
		.policy_features = TC_POLICY_F_WRITERS,
		.warn = fs_warn,
		.resources = &fs_resources,
	};

	return tc_server_main(&fs, argc, argv);
}
