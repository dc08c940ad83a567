build-t/common/sandbox/keeper.o: common/sandbox/keeper.c \
 common/sandbox/keeper.h
common/sandbox/keeper.h:
