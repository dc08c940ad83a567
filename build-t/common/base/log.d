build-t/common/base/log.o: common/base/log.c common/base/buf.h \
 common/base/err.h common/base/log.h common/base/text.h
common/base/buf.h:
common/base/err.h:
common/base/log.h:
common/base/text.h:
