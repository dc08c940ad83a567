build-t/common/base/clock.o: common/base/clock.c common/base/clock.h
common/base/clock.h:
