build-t/common/protocol/tools.o: common/protocol/tools.c \
 common/base/json.h common/base/buf.h common/base/log.h \
 common/base/text.h common/protocol/tools.h common/base/err.h
common/base/json.h:
common/base/buf.h:
common/base/log.h:
common/base/text.h:
common/protocol/tools.h:
common/base/err.h:
