build-t/common/base/text.o: common/base/text.c common/base/text.h \
 common/base/buf.h
common/base/text.h:
common/base/buf.h:
