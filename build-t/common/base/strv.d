build-t/common/base/strv.o: common/base/strv.c common/base/strv.h
common/base/strv.h:
