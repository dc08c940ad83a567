build-t/common/base/err.o: common/base/err.c common/base/err.h \
 common/base/text.h common/base/buf.h
common/base/err.h:
common/base/text.h:
common/base/buf.h:
