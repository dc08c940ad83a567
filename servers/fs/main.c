/* toolcell-fs: files and directories under the allowed roots. */
#include <limits.h>

#include "fs.h"
#include "server.h"

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
	      "where possible)." },
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
    "\"required\":[\"path\",\"access\"]}}},"
    "\"required\":[\"directories\"]}";

static const char read_text_file_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"content\":{\"type\":\"string\"},"
    "\"size\":{\"type\":\"integer\",\"description\":\"file size in bytes\"},"
    "\"start_line\":{\"type\":\"integer\",\"description\":\"0-based index of the first line returned\"},"
    "\"lines\":{\"type\":\"integer\",\"description\":\"lines returned\"},"
    "\"total_lines\":{\"type\":\"integer\",\"description\":\"lines in the file, when known\"},"
    "\"truncated\":{\"type\":\"boolean\"},"
    "\"next_offset\":{\"type\":\"integer\",\"description\":\"offset that continues a truncated read\"},"
    "\"invalid_utf8\":{\"type\":\"boolean\",\"description\":\"bytes that are not UTF-8 were replaced by U+FFFD\"}},"
    "\"required\":[\"path\",\"content\",\"size\",\"lines\",\"truncated\"]}";

static const char list_directory_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"type\":{\"type\":\"string\",\"enum\":[\"file\",\"directory\",\"symlink\",\"other\"]}},"
    "\"required\":[\"name\",\"type\"]}},"
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

#define RO	(TC_TOOL_READONLY | TC_TOOL_IDEMPOTENT)

static const struct tc_tool fs_tools[] = {
	{ "list_allowed_directories", "List allowed directories",
	  "List the directories this server may access and whether each is "
	  "read-only or read-write.",
	  no_args, list_allowed_out, fs_list_allowed_directories,
	  TC_PROFILE_FS_READ, RO },
	{ "read_text_file", "Read text file",
	  "Read a text file as UTF-8. Use head or tail for the first or last "
	  "N lines, or offset and limit for a range of lines; at most "
	  "max_bytes (default 64 KiB) are returned, and a truncated read says "
	  "where to continue. Bytes that are not UTF-8 are replaced by U+FFFD.",
	  read_text_file_args, read_text_file_out, fs_read_text_file,
	  TC_PROFILE_FS_READ, RO },
	{ "read_file", "Read file (deprecated)",
	  "Deprecated: use read_text_file, which this is an alias of.",
	  read_text_file_args, read_text_file_out, fs_read_text_file,
	  TC_PROFILE_FS_READ, RO },
	{ "list_directory", "List directory",
	  "List a directory's entries in name order, each marked [DIR], "
	  "[FILE], [LINK] or [OTHER]; at most limit (default 2000) entries, "
	  "with offset to page through larger ones. Entries the policy "
	  "denies are left out and not counted.",
	  list_directory_args, list_directory_out, fs_list_directory,
	  TC_PROFILE_FS_READ, RO },
	{ "get_file_info", "Get file info",
	  "Get a file's or directory's type, size, permissions, owner and "
	  "times, without reading its contents.",
	  path_arg, get_file_info_out, fs_get_file_info,
	  TC_PROFILE_FS_READ, RO },
	/* Not a tool: what resources/read runs for a file:// URI (only
	 * "path" is given; a directory is listed through list_directory,
	 * hence its arguments).  The policy switches resources off with
	 * "tool read_resource off". */
	{ "read_resource", "Read resource",
	  "Read a file whole (as text if it is UTF-8, else base64) or list "
	  "a directory, for resources/read.",
	  list_directory_args, read_resource_out, fs_read_resource,
	  TC_PROFILE_FS_READ, RO | TC_TOOL_RESOURCE },
};

int
main(int argc, char *argv[])
{
	static const struct tc_server fs = {
		.name = "toolcell-fs",
		.title = "toolcell files",
		.version = TC_VERSION,
		.summary = "serve files under the allowed directories over MCP",
		.touches = "files and directories",
		.tools = fs_tools,
		.ntools = TC_NITEMS(fs_tools),
	};

	return tc_server_main(&fs, argc, argv);
}
