PKG_CFLAGS = -I/usr/include/cjson 
PKG_LIBS = -lseccomp -lcap -lcjson -lnettle 
PKG_LIBS_fs = -lpcre2-8 
PKG_LIBS_sqlite = -lsqlite3 
