/*
 * fs.h: toolcell-fs's handlers.  Each runs in a confined child, resolves
 * every path beneath an allowed root (path.h) and fills a tc_result.
 */
#ifndef TC_FS_H
#define TC_FS_H

#include "tools.h"

#define FS_READ_DEFAULT_BYTES	(64u << 10)
#define FS_READ_MAX_BYTES	(32u << 20)
#define FS_LIST_DEFAULT_ENTRIES	2000
#define FS_LIST_MAX_ENTRIES	10000
#define FS_LIST_SCAN_MAX	1000000	/* entries read before giving up */
#define FS_RESOURCE_MAX_BYTES	(8u << 20)	/* a file read as a resource */

tc_tool_fn	fs_list_allowed_directories;
tc_tool_fn	fs_read_text_file;
tc_tool_fn	fs_list_directory;
tc_tool_fn	fs_get_file_info;
tc_tool_fn	fs_read_resource;	/* resources/read, not a tool */

#endif /* TC_FS_H */
