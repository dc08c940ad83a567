build-t/common/serve/usage.o: common/serve/usage.c common/base/log.h \
 common/base/text.h common/base/buf.h common/serve/usage.h
common/base/log.h:
common/base/text.h:
common/base/buf.h:
common/serve/usage.h:
