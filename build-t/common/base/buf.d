build-t/common/base/buf.o: common/base/buf.c common/base/buf.h \
 common/base/err.h
common/base/buf.h:
common/base/err.h:
