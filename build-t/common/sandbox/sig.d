build-t/common/sandbox/sig.o: common/sandbox/sig.c common/sandbox/sig.h
common/sandbox/sig.h:
