build-t/common/sandbox/pids.o: common/sandbox/pids.c common/base/proc.h \
 common/sandbox/pids.h common/base/err.h
common/base/proc.h:
common/sandbox/pids.h:
common/base/err.h:
