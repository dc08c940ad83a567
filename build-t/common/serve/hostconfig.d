build-t/common/serve/hostconfig.o: common/serve/hostconfig.c \
 common/base/buf.h common/serve/hostconfig.h common/base/err.h
common/base/buf.h:
common/serve/hostconfig.h:
common/base/err.h:
