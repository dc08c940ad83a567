# toolcell-sqlite's own libraries (pkg-config names), beside common/'s
# PKGS: SQLite, linked by toolcell-sqlite alone.
sqlite_PKGS = sqlite3
