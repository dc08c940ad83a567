build-t/common/base/proc.o: common/base/proc.c common/base/proc.h
common/base/proc.h:
