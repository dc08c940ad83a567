build-t/common/base/json.o: common/base/json.c common/base/err.h \
 common/base/json.h common/base/buf.h
common/base/err.h:
common/base/json.h:
common/base/buf.h:
