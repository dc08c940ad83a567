build-t/common/base/ring.o: common/base/ring.c common/base/err.h \
 common/base/ring.h
common/base/err.h:
common/base/ring.h:
