# toolcell-fs's own libraries (pkg-config names), beside common/'s PKGS:
# PCRE2 for search_file_contents' regular expressions.
fs_PKGS = libpcre2-8
